package kit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"natslab/scenes"
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
	t0 := time.Unix(100, 0)
	f.last.Store(t0.UnixNano()) // a batch delivered at t0
	for _, c := range []struct{ at, gap time.Duration }{
		{0, 50 * time.Millisecond},
		{10 * time.Millisecond, 40 * time.Millisecond},
		{50 * time.Millisecond, 0},
		{time.Second, 0},
	} {
		if got := f.gap(t0.Add(c.at)); got != c.gap {
			t.Errorf("%v after a batch the next waits %v, want %v", c.at, got, c.gap)
		}
	}
	if got := NewFeed(16, 0).gap(t0); got != 0 {
		t.Errorf("without a rate a batch waits %v", got)
	}
}

// A model that applied a message has applied every event sent before it
// was made and read the state after every poke before it: the numbers a
// test waits on.
func TestFeedNumbersEventsAndPokes(t *testing.T) {
	f := NewFeed(2, 0)
	f.Send(Event{Kind: Published})
	f.Send(Event{Kind: Stored})
	f.Send(Event{Kind: Lost}) // dropped: the feed holds 2
	f.Poke()
	if f.Sent() != 2 || f.Poked() != 1 {
		t.Fatalf("sent %d poked %d, want 2 and 1", f.Sent(), f.Poked())
	}
	m := f.Wait()().(FeedMsg)
	if len(m.Events) != 2 || m.Through != 2 || m.Pokes != 1 {
		t.Fatalf("first message: %d events through %d, pokes %d; want 2, 2, 1", len(m.Events), m.Through, m.Pokes)
	}
	f.Send(Event{Kind: Published})
	f.Poke()
	m = f.Next(time.Millisecond)().(FeedMsg)
	if !m.Frame || len(m.Events) != 1 || m.Through != 3 || m.Pokes != 2 {
		t.Fatalf("a frame: %d events through %d, pokes %d; want 1, 3, 2", len(m.Events), m.Through, m.Pokes)
	}
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

// Next says when movers next look different, and nothing looks different
// before: a mover waiting to start, one moving (every frame), one fading
// (a few steps), then nothing.
func TestMoversNextIsTheNextChange(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(name string) (Point, bool) {
		return map[string]Point{"a": {0, 0}, "b": {40, 0}}[name], true
	}
	var ms Movers
	ms.Add(Mover{Route: []string{"a", "b"}, Legs: []time.Duration{450 * time.Millisecond}, Start: t0.Add(100 * time.Millisecond), Fade: 1000 * time.Millisecond})
	look := func(now time.Time) string {
		c := NewCanvas(41, 1)
		ms.Draw(c, now, at, nil)
		return c.Render(NewStyles(true))
	}
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 100 * time.Millisecond},                      // waiting to start
		{200 * time.Millisecond, 100 * time.Millisecond}, // moving: every frame
		{550 * time.Millisecond, 200 * time.Millisecond}, // arrived: five shapes over the fade
		{700 * time.Millisecond, 50 * time.Millisecond},
		{1500 * time.Millisecond, 50 * time.Millisecond}, // the last shape, then gone
		{1550 * time.Millisecond, 0},
	} {
		if got := ms.Next(t0.Add(c.at)); got != c.want {
			t.Errorf("at %v: next change in %v, want %v", c.at, got, c.want)
		}
	}
	// Fading, the picture holds until the change Next names, and changes then.
	for now := t0.Add(550 * time.Millisecond); ; {
		d := ms.Next(now)
		if d == 0 {
			break
		}
		if look(now.Add(d-time.Millisecond)) != look(now) {
			t.Fatalf("at %v the picture changed before the %v Next named", now.Sub(t0), d)
		}
		if look(now.Add(d)) == look(now) {
			t.Fatalf("at %v the picture did not change after the %v Next named", now.Sub(t0), d)
		}
		now = now.Add(d)
	}
	if got := Soonest(0, 3*time.Second, time.Second, 0); got != time.Second {
		t.Fatalf("Soonest: %v", got)
	}
	if got := Soonest(0, 0); got != 0 {
		t.Fatalf("Soonest of nothing due: %v", got)
	}
}

func TestFlashesNextIsWhenOneEnds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := Flashes{Dur: 900 * time.Millisecond}
	if got := f.Next(t0); got != 0 {
		t.Fatalf("no flash: next %v", got)
	}
	f.Trigger("a", t0)
	f.Trigger("b", t0.Add(300*time.Millisecond))
	for _, c := range []struct{ at, want time.Duration }{
		{350 * time.Millisecond, 550 * time.Millisecond},
		{950 * time.Millisecond, 250 * time.Millisecond},
		{1200 * time.Millisecond, 0},
	} {
		if got := f.Next(t0.Add(c.at)); got != c.want {
			t.Errorf("at %v: next %v, want %v", c.at, got, c.want)
		}
	}
}

// A frame far off (a fade's next step, a flash's end) does not hold back
// news: an event or a poke meanwhile comes at once, as with nothing
// moving. At the frame rate, news waits for the frame and comes with it.
func TestFeedNewsCutsALongWaitShort(t *testing.T) {
	f := NewFeed(16, 0)
	got := make(chan any, 1)
	next := func(d time.Duration) FeedMsg {
		t.Helper()
		select {
		case m := <-got:
			return m.(FeedMsg)
		case <-time.After(10 * time.Second):
			t.Fatalf("news waited for a frame %v away", d)
			return FeedMsg{}
		}
	}
	go func() { got <- f.Next(time.Hour)() }()
	f.Send(Event{Kind: Published, Subject: "events.a"})
	if m := next(time.Hour); m.Frame || len(m.Events) != 1 {
		t.Fatalf("got %+v, want the event and no frame", m)
	}
	go func() { got <- f.Next(time.Hour)() }()
	f.Poke()
	if m := next(time.Hour); m.Frame || m.Pokes != 1 {
		t.Fatalf("got %+v, want the poke and no frame", m)
	}
	go func() { got <- f.Next(scenes.FrameInterval)() }()
	f.Send(Event{Kind: Published, Subject: "events.b"})
	if m := next(scenes.FrameInterval); !m.Frame || len(m.Events) != 1 {
		t.Fatalf("got %+v, want a frame carrying the event", m)
	}
}

// A poke that lands while a scene animates is taken with the next frame:
// that frame is news (the driver's state changed), and once answered the
// poke makes no later frame news.
func TestAPokeDuringFramesIsNews(t *testing.T) {
	f := NewFeed(4, 0)
	if m := f.Next(time.Millisecond)().(FeedMsg); !m.Frame || m.News() {
		t.Fatalf("a frame with nothing new: Frame %v, News %v; want true, false", m.Frame, m.News())
	}
	f.Poke()
	if m := f.Next(time.Millisecond)().(FeedMsg); !m.Frame || !m.News() {
		t.Fatalf("a frame that took a poke: Frame %v, News %v; want true, true", m.Frame, m.News())
	}
	if m := f.Next(time.Millisecond)().(FeedMsg); m.News() {
		t.Fatal("the poke was answered, yet the next frame is news too")
	}
	f.Send(Event{Kind: Published})
	if m := f.Next(time.Millisecond)().(FeedMsg); !m.News() {
		t.Fatal("a frame with an event is news")
	}
	f.Poke()
	if m := f.Wait()().(FeedMsg); m.Frame || !m.News() {
		t.Fatal("a poke Wait delivers is news")
	}
}

// A sentence too long for its room loses whole words, never a word's
// end; only a name with no blank to cut at (or one that would leave too
// little) is cut inside.
func TestClipKeepsWordsWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"the server is down", 18, "the server is down"},
		{"the server is down: the apps reconnect", 26, "the server is down: the …"},
		{" ack floor #1 · 1 pending", 16, " ack floor #1 …"},
		{"_INBOX.g4akdmhGZ5JpLuNAczFAu9", 12, "_INBOX.g4ak…"},
		{"◂ shop.orders.>", 10, "◂ shop.or…"},
	} {
		if got := Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A burst on one wire reads as a train, gap apart, until the train is
// backlog long: later messages are not scheduled, and the wire stays as it
// was for them.
func TestSlotMakesATrainAndSamples(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	var free time.Time
	gap, backlog := 100*time.Millisecond, 250*time.Millisecond
	var got []time.Duration
	for i := 0; i < 5; i++ {
		at, ok := Slot(&free, t0, t0, gap, backlog)
		if !ok {
			break
		}
		got = append(got, at.Sub(t0))
	}
	if want := []time.Duration{0, gap, 2 * gap}; !slices.Equal(got, want) {
		t.Fatalf("slots %v, want %v", got, want)
	}
	if !free.Equal(t0.Add(3 * gap)) {
		t.Fatalf("the wire is free from %v, want %v", free.Sub(t0), 3*gap)
	}
	// Once the train has gone, a message leaves at once.
	later := t0.Add(time.Second)
	if at, ok := Slot(&free, later, later, gap, backlog); !ok || !at.Equal(later) {
		t.Fatalf("on a free wire: %v, %v; want %v, true", at.Sub(t0), ok, later.Sub(t0))
	}
	if d := Paced(2)(900); d != 450*time.Millisecond {
		t.Fatalf("at speed 2, 900 ms take %v, want 450ms", d)
	}
	if d := Paced(0)(900); d != 900*time.Millisecond {
		t.Fatalf("at speed 0 (unset), 900 ms take %v, want 900ms", d)
	}
}

// Try draws its sentence and every command whole, or nothing: not where
// the rows are too few for all of them, nor where a command is wider than
// the pane.
func TestTryDrawsAllOrNothing(t *testing.T) {
	for _, tc := range []struct {
		w, rows, took int
		want          string
	}{
		{32, 3, 3, "Then type these two, and watch:\n  pub a 1\n  pub a 2 --count 9"},
		{32, 2, 0, ""},
		{18, 9, 0, ""}, // pub a 2 --count 9 in 16 columns
	} {
		c := NewCanvas(tc.w, 9)
		took := c.Try(0, 0, tc.w, tc.rows, "Then type these two, and watch:", "pub a 1", "pub a 2 --count 9")
		var lines []string
		for l := range strings.SplitSeq(ansi.Strip(c.Render(NewStyles(false))), "\n") {
			if l = strings.TrimRight(l, " "); l != "" {
				lines = append(lines, l)
			}
		}
		if got := strings.Join(lines, "\n"); took != tc.took || got != tc.want {
			t.Errorf("%d wide, %d rows: took %d rows and drew\n%s\nwant %d and\n%s", tc.w, tc.rows, took, got, tc.took, tc.want)
		}
	}
}

// A poke that lands while a message is being made is never lost: either the
// message counts it (the model reads the state after it), or its wake-up
// is still waiting for the next message. A message that took the wake-up
// without counting the poke would leave a test's CatchUp waiting for a
// message that never comes.
func TestAPokeWhileAMessageIsMadeIsNeverLost(t *testing.T) {
	for i := range 20000 {
		f := NewFeed(4, 0)
		f.Send(Event{Kind: Published})
		poked := make(chan struct{})
		go func() { f.Poke(); close(poked) }()
		m := f.Wait()().(FeedMsg)
		<-poked
		if m.Pokes < f.Poked() && len(f.wake) == 0 {
			t.Fatalf("try %d: the message counted %d of %d pokes and took the wake-up of the last", i, m.Pokes, f.Poked())
		}
	}
}
