package lab

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker/text"
	"natslab/scenes/kit/kittest"
)

func TestScrollbackIsBounded(t *testing.T) {
	sb := NewScrollback(100)
	w := sb.Writer(kindOut)
	for i := range 1000 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	lines := sb.Lines()
	if len(lines) != 100 || lines[0] != "line 900" || lines[99] != "line 999" {
		t.Fatalf("kept %d lines: first %q last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	oldest, next := sb.Bounds()
	if oldest != 900 || next != 1000 {
		t.Errorf("bounds %d, %d", oldest, next)
	}
}

func TestPaneWriterKeepsPartialLinesPerWriter(t *testing.T) {
	sb := NewScrollback(100)
	a, b := sb.Writer(kindOut), sb.Writer(kindStatus)
	io.WriteString(a, "hel")
	io.WriteString(b, "status ")
	io.WriteString(a, "lo\nwor")
	io.WriteString(b, "line\n")
	io.WriteString(a, "ld")
	a.Close()
	b.Close()
	got := strings.Join(sb.Lines(), "|")
	if got != "hello|status line|world" {
		t.Errorf("got %q", got)
	}
}

func TestLinesAreMadeSafeToShow(t *testing.T) {
	sb := NewScrollback(10)
	w := sb.Writer(kindOut)
	io.WriteString(w, "a\tb\x1b[31mred\x07\r\n")
	io.WriteString(w, "\xff\xfeok\n")
	io.WriteString(w, "héllo wörld\n")
	w.Close()
	lines := sb.Lines()
	if lines[0] != "a       b␛[31mred␇" {
		t.Errorf("control characters: %q", lines[0])
	}
	if lines[1] != "��ok" {
		t.Errorf("invalid UTF-8: %q", lines[1])
	}
	sb.mu.Lock()
	e := sb.ring[2]
	sb.mu.Unlock()
	if e.width != 11 {
		t.Errorf("width of %q = %d", e.text, e.width)
	}
}

func TestLongLinesAreCut(t *testing.T) {
	sb := NewScrollback(10)
	w := sb.Writer(kindOut)
	long := strings.Repeat("x", maxLineBytes+5000)
	// In pieces, and in one write.
	for i := 0; i < len(long); i += 1000 {
		io.WriteString(w, long[i:min(i+1000, len(long))])
	}
	io.WriteString(w, "\n"+long+"\n")
	w.Close()
	for i, l := range sb.Lines() {
		want := strings.Repeat("x", maxLineBytes) + " … (5000 more bytes)"
		if l != want {
			t.Errorf("line %d: %d bytes, ends %q", i, len(l), l[max(0, len(l)-30):])
		}
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if e := sb.ring[0]; e.width != maxLineBytes+len(" … (5000 more bytes)")-2 {
		t.Errorf("width %d", e.width)
	}
}

func TestConcurrentWritersAndReaders(t *testing.T) {
	sb := NewScrollback(500)
	var wg sync.WaitGroup
	for j := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := sb.Writer(kindOut)
			for i := range 2000 {
				fmt.Fprintf(w, "writer %d line %d\n", j, i)
			}
		}()
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, next := sb.Bounds()
				if next > 0 {
					sb.tail(next-1, 40, 80)
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	if _, next := sb.Bounds(); next != 8000 {
		t.Errorf("%d lines appended, want 8000", next)
	}
	for _, l := range sb.Lines() {
		if !strings.HasPrefix(l, "writer ") {
			t.Fatalf("spliced line %q", l)
		}
	}
}

// TestFloodKeepsMemoryBounded writes a million lines (a replay's worth) and
// checks the heap does not grow with them.
func TestFloodKeepsMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million lines")
	}
	sb := NewScrollback(DefaultScrollback)
	w := sb.Writer(kindOut)
	block := strings.Repeat("[#123456] Received JetStream message: stream: EVENTS seq: 123456 / pending: 0\n{\"page\":\"/home\"}\n\n\n", 200)
	write := func(n int) {
		for i := 0; i < n; i += 800 {
			io.WriteString(w, block)
		}
	}
	write(100_000)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	write(1_000_000)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("heap grew %d KiB over a million lines", grew>>10)
	}
	if n := len(sb.Lines()); n != DefaultScrollback {
		t.Errorf("kept %d lines", n)
	}
}

// TestRedrawnLinesReplaceTheirLast: the real CLI's progress bar redraws
// its line (cursor up, erase line) every 250ms; in the pane each frame
// replaces the last.
func TestRedrawnLinesReplaceTheirLast(t *testing.T) {
	sb := NewScrollback(10)
	out := sb.Writer(kindOut)
	other := sb.Writer(kindStatus)
	out.Write([]byte("  0.00% ║░░║ [1 in 1ms]\n"))
	other.Write([]byte("15:04:05 a status line between\n"))
	out.Write([]byte("\x1b[A\x1b[K 50.00% ║▒░║ [2 in 2ms]\n\x1b[A\x1b[K done! [4 in 3ms]\n"))
	got := strings.Join(sb.Lines(), "|")
	if want := " done! [4 in 3ms]|15:04:05 a status line between"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
	// A redraw with nothing of its own above it is kept, without its codes.
	fresh := sb.Writer(kindOut)
	fresh.Write([]byte("\x1b[A\x1b[Kfirst\n"))
	if lines := sb.Lines(); lines[len(lines)-1] != "first" {
		t.Errorf("a lone redraw: %q", lines[len(lines)-1])
	}
}

// A number that says what a step still wants stays with its words
// ("wants at least 2") in the command pane and the lesson pane at every
// width, and shows as a plain blank: no row starts with it alone.
func TestAWantedNumberStaysWithItsWords(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.run("lesson queue-groups")
	h.run("hint")
	if !strings.Contains(h.text(), "wants at least") {
		t.Fatalf("hint does not say what the step wants:\n%s", h.text())
	}
	for w := minWidth; w < wideWidth; w++ {
		h.send(tea.WindowSizeMsg{Width: w, Height: 30})
		screen := h.screen()
		if strings.Contains(screen, text.NoBreak) {
			t.Fatalf("%dx30: a no-break space reaches the screen:\n%s", w, screen)
		}
		for _, r := range []rect{h.m.lay.cmd, h.m.lay.lesson} { // the lesson pane zero when compact
			var rows []string
			for _, l := range strings.Split(screen, "\n")[r.y : r.y+r.h] {
				rows = append(rows, strings.TrimPrefix(strings.TrimSuffix(ansi.Cut(l, r.x, r.x+r.w), "│"), "│"))
			}
			if n, ok := kittest.LoneNumber(strings.Join(rows, "\n")); ok {
				t.Fatalf("%dx30: %q stands alone on its row:\n%s", w, n, screen)
			}
		}
	}
}
