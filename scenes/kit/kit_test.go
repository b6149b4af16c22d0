package kit

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestCanvasClipsAndRenders(t *testing.T) {
	c := NewCanvas(12, 3)
	c.Box(0, 0, 7, 3, Node)
	c.TextCenter(0, 7, 1, "srv", Strong)
	c.Text(8, 1, "a long text clipped", Msg)
	c.Set(-1, 5, 'x', Bad) // outside: ignored
	got := ansi.Strip(c.Render(NewStyles(true)))
	want := "╭─────╮\n│ srv │ a lo\n╰─────╯"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestStylesRespectNoColor(t *testing.T) {
	c := NewCanvas(3, 1)
	c.Text(0, 0, "abc", Good)
	colored := c.Render(NewStyles(true))
	plain := c.Render(NewStyles(false))
	if !strings.Contains(colored, "32") && !strings.Contains(colored, "38;5;2") {
		t.Fatalf("no green in %q", colored)
	}
	if strings.Contains(plain, "32m") || strings.Contains(plain, "38;") {
		t.Fatalf("colour without colour: %q", plain)
	}
	if !strings.Contains(plain, "\x1b[1m") {
		t.Fatalf("without colour the role must keep its attribute (bold): %q", plain)
	}
}

func TestFlashPaintsBlanks(t *testing.T) {
	c := NewCanvas(5, 1)
	c.Text(0, 0, " 5 ", Flash)
	out := c.Render(NewStyles(true))
	if !strings.HasPrefix(out, "\x1b[1;7m 5 ") && !strings.HasPrefix(out, "\x1b[7;1m 5 ") {
		t.Fatalf("a flash must reverse its padding too: %q", out)
	}
}

func TestMoverTravelsThenFades(t *testing.T) {
	t0 := time.Unix(0, 0)
	pts := map[string]Point{"a": {0, 1}, "b": {10, 1}, "c": {20, 1}}
	at := func(n string) (Point, bool) { p, ok := pts[n]; return p, ok }
	m := Mover{Route: []string{"a", "b", "c"}, Legs: []time.Duration{time.Second, time.Second}, Start: t0, Fade: time.Second}
	cases := []struct {
		at    time.Duration
		x     int
		glyph rune
		ok    bool
	}{
		{-time.Millisecond, 0, 0, false},
		{0, 0, '●', true},
		{500 * time.Millisecond, 5, '●', true},
		{1500 * time.Millisecond, 15, '●', true},
		{2 * time.Second, 20, '●', true},
		{2900 * time.Millisecond, 20, '·', true},
		{3 * time.Second, 0, 0, false},
	}
	for _, c := range cases {
		p, g, _, ok := m.Where(t0.Add(c.at), at)
		if ok != c.ok || (ok && (p.X != c.x || g != c.glyph)) {
			t.Errorf("at %v: got %v %q %v, want x=%d %q %v", c.at, p, g, ok, c.x, c.glyph, c.ok)
		}
	}
	var ms Movers
	ms.Max = 1
	if !ms.Add(m) || ms.Add(m) {
		t.Fatal("Max must bound the movers in flight")
	}
	if !ms.Active(t0.Add(2*time.Second)) || ms.Active(t0.Add(3*time.Second)) {
		t.Fatal("active while moving or fading, not after")
	}
	ms.Prune(t0.Add(3 * time.Second))
	if ms.Len() != 0 {
		t.Fatal("prune keeps a finished mover")
	}
}

func TestMoversHideInsideBoxes(t *testing.T) {
	c := NewCanvas(20, 3)
	t0 := time.Unix(0, 0)
	at := func(n string) (Point, bool) {
		return map[string]Point{"a": {2, 1}, "b": {18, 1}}[n], true
	}
	var ms Movers
	ms.Add(Mover{Label: "x", Route: []string{"a", "b"}, Legs: []time.Duration{time.Second}, Start: t0})
	inside := func(p Point) bool { return p.X < 5 }
	ms.Draw(c, t0, at, inside)
	if strings.ContainsRune(ansi.Strip(c.Render(NewStyles(false))), '●') {
		t.Fatal("a message inside a box must not be drawn")
	}
	ms.Draw(c, t0.Add(500*time.Millisecond), at, inside)
	out := ansi.Strip(c.Render(NewStyles(false)))
	if !strings.Contains(out, "x") || !strings.Contains(out, "●") {
		t.Fatalf("a message on a wire shows with its label:\n%s", out)
	}
}

func TestFeedNeverBlocksAndCountsDrops(t *testing.T) {
	f := NewFeed(4, 0)
	for i := 0; i < 10; i++ {
		f.Send(Event{Kind: Published})
	}
	if f.Dropped() != 6 {
		t.Fatalf("dropped %d, want 6", f.Dropped())
	}
	msg := f.Wait()().(FeedMsg)
	if !msg.For(f) || len(msg.Events) != 4 {
		t.Fatalf("one batch of the 4 kept, got %d", len(msg.Events))
	}
	f.Poke()
	if msg := f.Wait()().(FeedMsg); len(msg.Events) != 0 {
		t.Fatal("a poke carries no events")
	}
	f.Close()
	if f.Wait()() != nil {
		t.Fatal("a closed feed delivers nothing")
	}
}

func TestFeedRateLimitsBatches(t *testing.T) {
	f := NewFeed(16, 20) // at most 20 batches a second
	start := time.Now()
	for i := 0; i < 3; i++ {
		f.Send(Event{Kind: Published})
		f.Wait()()
	}
	if el := time.Since(start); el < 90*time.Millisecond {
		t.Fatalf("three batches in %v: the feed must space them 50ms apart", el)
	}
}

func TestFramesTickOnlyWhileAnimating(t *testing.T) {
	f := NewFrames(30)
	cmd := f.Kick()
	if cmd == nil || f.Kick() != nil {
		t.Fatal("one tick at a time")
	}
	msg := cmd()
	if ours, next := f.Next(msg, true); !ours || next == nil {
		t.Fatal("a frame while animating asks for the next")
	}
	if ours, next := f.Next(msg, false); !ours || next != nil || f.Ticking() {
		t.Fatal("ticking stops when nothing moves")
	}
	if ours, _ := f.Next(FrameMsg{}, true); ours {
		t.Fatal("another ticker's frame is not ours")
	}
	var _ tea.Msg = msg
}

func TestFlashes(t *testing.T) {
	var f Flashes
	f.Dur = time.Second
	t0 := time.Unix(0, 0)
	f.Trigger("n", t0)
	if !f.On("n", t0.Add(500*time.Millisecond)) || f.On("n", t0.Add(time.Second)) || f.On("m", t0) {
		t.Fatal("a flash lasts Dur")
	}
	if !f.Active(t0) || f.Active(t0.Add(2*time.Second)) {
		t.Fatal("Active follows the flashes")
	}
}

func TestBigDigits(t *testing.T) {
	c := NewCanvas(12, 3)
	end := c.Big(0, 0, "105", Warn)
	if end != BigWidth("105") {
		t.Fatalf("Big ends at %d, BigWidth says %d", end, BigWidth("105"))
	}
	got := ansi.Strip(c.Render(NewStyles(false)))
	want := "╺┓  ┏━┓ ┏━╸\n ┃  ┃ ┃ ┗━┓\n╺┻╸ ┗━┛ ╺━┛"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestManualClock(t *testing.T) {
	c := NewManualClock(time.Unix(10, 0))
	c.Advance(time.Second)
	if c.Now() != time.Unix(11, 0) {
		t.Fatal(c.Now())
	}
}
