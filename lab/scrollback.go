package lab

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"natslab/broker/command"
	"natslab/broker/text"
)

// The command pane's scrollback: a bounded ring of lines that commands
// write into from their own goroutines. A writer only appends under a mutex
// and wakes the UI at most once per frame, so a flood of output (a replay
// of a million messages) costs one append per line and about twenty
// repaints a second, never one message to the UI per line, and memory
// stays bounded however much is written.

// lineKind says how a scrollback line is styled.
type lineKind uint8

const (
	kindOut    lineKind = iota // a command's stdout, as printed
	kindStatus                 // a command's stderr: status lines
	kindError                  // nats: error: …
	kindEcho                   // the line as typed
	kindNote                   // the lab's own remarks, each line led by command.NoteMarker
)

const (
	// DefaultScrollback is how many lines the pane keeps.
	DefaultScrollback = 10000
	// maxLineBytes bounds one stored line; the rest is counted, not kept.
	maxLineBytes = 4096
	// frame is the repaint interval while output is arriving, and of the
	// lab's scene frames: the renderer's rate (see renderFPS).
	frame = time.Second / renderFPS
)

type entry struct {
	text  string // sanitised: no control characters, tabs expanded
	width int    // display width of text, measured once on append
	kind  lineKind
}

// Scrollback is the bounded line store. Safe for concurrent use.
type Scrollback struct {
	mu      sync.Mutex
	ring    []entry
	start   int
	n       int
	total   uint64 // lines ever appended: the absolute index of the next line
	version uint64 // bumped on every change, so views know when to redraw

	wake      chan struct{} // one pending wake-up at most
	lastFlush atomic.Int64  // unix nanos of the UI's last repaint

	last *Source // who wrote the last line (nil: the lab, or the prompt)
}

// Source is the job a writer's lines come from. When lines from another
// source came in between, its next lines are led by a note naming the job
// ("» [2] sub tasks --queue workers"): with several subscribers running,
// the pane says which one received what, without touching the real CLI's
// lines.
type Source struct {
	mu  sync.Mutex
	job *command.Job
}

// SetJob names the job the source's lines come from, once it started.
func (src *Source) SetJob(j *command.Job) {
	src.mu.Lock()
	src.job = j
	src.mu.Unlock()
}

// label is the note that introduces the source's lines, "" for none.
func (src *Source) label() string {
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.job == nil || src.job.ID == 0 {
		return ""
	}
	return fmt.Sprintf("[%d] %s", src.job.ID, src.job.Shown())
}

// NewScrollback keeps the last max lines.
func NewScrollback(max int) *Scrollback {
	if max <= 0 {
		max = DefaultScrollback
	}
	return &Scrollback{ring: make([]entry, max), wake: make(chan struct{}, 1)}
}

func (s *Scrollback) push(es ...entry) { s.pushFrom(nil, es...) }

// pushFrom appends lines written by src (nil: the lab itself).
func (s *Scrollback) pushFrom(src *Source, es ...entry) {
	if len(es) == 0 {
		return
	}
	s.mu.Lock()
	if src != s.last {
		if src != nil {
			if l := src.label(); l != "" {
				es = append([]entry{makeEntry([]byte(l), 0, kindNote)}, es...)
			}
		}
		s.last = src
	}
	for _, e := range es {
		idx := (s.start + s.n) % len(s.ring)
		if s.n == len(s.ring) {
			s.start = (s.start + 1) % len(s.ring)
		} else {
			s.n++
		}
		s.ring[idx] = e
		s.total++
	}
	s.version++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Expect says that the lines to come are src's: the echo of the line a job
// runs has just been shown, so its first lines need no note.
func (s *Scrollback) Expect(src *Source) {
	s.mu.Lock()
	s.last = src
	s.mu.Unlock()
}

// Append adds text (one or more lines) of a kind.
func (s *Scrollback) Append(kind lineKind, text string) {
	text = strings.TrimSuffix(text, "\n")
	var es []entry
	for _, l := range strings.Split(text, "\n") {
		es = append(es, makeEntry([]byte(l), 0, kind))
	}
	s.push(es...)
}

// Clear empties the scrollback.
func (s *Scrollback) Clear() {
	s.mu.Lock()
	s.start, s.n = 0, 0
	s.last = nil
	clear(s.ring)
	s.version++
	s.mu.Unlock()
}

// lastIndex is the absolute index of the newest line.
func (s *Scrollback) lastIndex() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total - 1
}

// Version changes whenever the content does.
func (s *Scrollback) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Bounds returns the absolute indexes of the oldest kept line and of the
// next line to come.
func (s *Scrollback) Bounds() (oldest, next uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total - uint64(s.n), s.total
}

// Lines returns the kept lines' text, oldest first (for tests and copying).
func (s *Scrollback) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.n)
	for i := range s.n {
		out[i] = s.ring[(s.start+i)%len(s.ring)].text
	}
	return out
}

// tail copies the lines ending at absolute index bottom (inclusive) going
// back until they fill at least rows display rows at width w.
func (s *Scrollback) tail(bottom uint64, rows, w int) []entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return nil
	}
	oldest := s.total - uint64(s.n)
	if bottom >= s.total {
		bottom = s.total - 1
	}
	if bottom < oldest {
		bottom = oldest
	}
	var out []entry
	got := 0
	for i := bottom; got < rows; i-- {
		e := s.ring[(s.start+int(i-oldest))%len(s.ring)]
		out = append(out, e)
		got += rowsFor(e, w)
		if i == oldest {
			break
		}
	}
	// Oldest first.
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// fullFrom is the lowest bottom index whose lines fill rows display rows at
// width w, counting from the oldest line: scrolling further back than that
// would only show a screen that is not full.
func (s *Scrollback) fullFrom(rows, w int) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldest := s.total - uint64(s.n)
	got := 0
	for i := range s.n {
		got += rowsFor(s.ring[(s.start+i)%len(s.ring)], w)
		if got >= rows {
			return oldest + uint64(i)
		}
	}
	return s.total - 1
}

// rowsUpTo is how many rows the kept lines take at width w, counting up
// to most.
func (s *Scrollback) rowsUpTo(most, w int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := 0
	for i := s.n - 1; i >= 0 && got < most; i-- {
		got += rowsFor(s.ring[(s.start+i)%len(s.ring)], w)
	}
	return min(got, most)
}

// rowsFor is how many rows e takes at width w (as wrapEntry cuts it).
func rowsFor(e entry, w int) int {
	if e.width <= w || w <= 0 {
		return 1
	}
	n := 0
	wrapEntry(e, w, func(string, int) { n++ })
	return n
}

// wrapEntry cuts a line wider than w into rows of at most w cells, each
// passed to row with its width. It breaks at a space, so the words of a
// sentence (a hint, a note) read whole, and cuts a word only when it is
// wider than a row. The space a row breaks at is dropped; other spaces
// (indents, columns) stay. A note's later rows hang under its text, clear
// of the marker, so the marker still says where each note begins; an
// indented line's hang two cells in from its indent, so they read as its
// own (a lesson's "not yet:" under its step, a value under its key).
func wrapEntry(e entry, w int, row func(text string, width int)) {
	indent := ""
	if e.kind == kindNote && strings.HasPrefix(e.text, command.NoteMarker) {
		if hang := ansi.StringWidth(command.NoteMarker); w > 2*hang {
			indent = strings.Repeat(" ", hang)
		}
	} else if lead := len(e.text) - len(strings.TrimLeft(e.text, " ")); lead > 0 && w > 2*(lead+2) {
		indent = strings.Repeat(" ", lead+2)
	}
	wrapHanging(e, w, indent, row)
}

// wrapHanging is wrapEntry with e's later rows starting with indent (a
// hanging indent), for a line wider than w.
func wrapHanging(e entry, w int, indent string, row func(text string, width int)) {
	if e.width <= w || w <= 0 {
		row(shown(e), e.width)
		return
	}
	ascii := len(e.text) == e.width
	if !ascii {
		// A text.NoBreak stays inside its word (only a blank splits
		// one) and shows as the blank it stands for.
		inner := row
		row = func(s string, width int) { inner(text.Plain(s), width) }
	}
	cells := func(s string) int {
		if ascii {
			return len(s)
		}
		return ansi.StringWidth(s)
	}
	var b strings.Builder
	col, started, lead := 0, false, ""
	limit := w
	emit := func(text string, width int) {
		row(lead+text, len(lead)+width)
		lead, limit = indent, w-len(indent)
	}
	for word := range strings.SplitSeq(e.text, " ") {
		ww := cells(word)
		if started && col+1+ww <= limit {
			b.WriteByte(' ')
			b.WriteString(word)
			col += 1 + ww
			continue
		}
		if started {
			emit(b.String(), col)
			b.Reset()
		}
		for ww > limit {
			var head string
			if ascii {
				head, word = word[:limit], word[limit:]
			} else {
				head = ansi.Truncate(word, limit, "")
				if head == "" { // a character wider than the row
					_, n := utf8.DecodeRuneInString(word)
					head = word[:n]
				}
				word = word[len(head):]
			}
			emit(head, cells(head))
			ww = cells(word)
		}
		b.WriteString(word)
		col, started = ww, true
	}
	emit(b.String(), col)
}

// shown is e's text as the screen shows it: each text.NoBreak, which keeps
// a number with its words when the line wraps, a plain blank.
func shown(e entry) string {
	if len(e.text) == e.width { // one cell a byte: plain ASCII
		return e.text
	}
	return text.Plain(e.text)
}

// replace puts e in place of the line at absolute index idx, if it is
// still kept; else it appends e.
func (s *Scrollback) replace(idx uint64, e entry) {
	s.mu.Lock()
	oldest := s.total - uint64(s.n)
	if idx < oldest || idx >= s.total {
		s.mu.Unlock()
		s.push(e)
		return
	}
	s.ring[(s.start+int(idx-oldest))%len(s.ring)] = e
	s.version++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Writer returns an io.Writer for one stream of one job: it keeps a
// partial last line of its own, so jobs writing at once never splice each
// other's lines. Call Close when the job ends, to keep a final line that
// has no newline.
func (s *Scrollback) Writer(kind lineKind) *PaneWriter {
	return &PaneWriter{sb: s, kind: kind}
}

// WriterFrom is Writer for the lines of src's job.
func (s *Scrollback) WriterFrom(src *Source, kind lineKind) *PaneWriter {
	return &PaneWriter{sb: s, kind: kind, src: src}
}

// PaneWriter is a Scrollback writer; see Scrollback.Writer.
type PaneWriter struct {
	sb      *Scrollback
	src     *Source
	kind    lineKind
	mu      sync.Mutex
	partial []byte
	dropped int // bytes of the current line beyond maxLineBytes
	batch   []entry
	last    uint64 // absolute index of the last line this writer pushed
	wrote   bool   // it pushed one
}

// redraw is how the real CLI's progress bar draws over its previous line:
// cursor up, erase the line.
var redraw = []byte("\x1b[A\x1b[K")

// Write appends every complete line in p; it never blocks on the UI.
func (w *PaneWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.batch = w.batch[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.keep(p)
			break
		}
		var line []byte
		if len(w.partial) == 0 && w.dropped == 0 {
			line = p[:i]
		} else {
			w.keep(p[:i])
			line = w.partial
		}
		if rest, ok := bytes.CutPrefix(line, redraw); ok {
			// A redrawn line (the real CLI's progress bar) replaces this
			// writer's last line rather than piling up below it.
			w.flushBatch()
			if w.wrote {
				w.sb.replace(w.last, makeEntry(rest, w.dropped, w.kind))
			} else {
				w.batch = append(w.batch, makeEntry(rest, w.dropped, w.kind))
			}
		} else {
			w.batch = append(w.batch, makeEntry(line, w.dropped, w.kind))
		}
		w.partial, w.dropped = w.partial[:0], 0
		p = p[i+1:]
	}
	w.flushBatch()
	return n, nil
}

// flushBatch pushes the lines gathered so far and remembers where the
// last one went.
func (w *PaneWriter) flushBatch() {
	if len(w.batch) == 0 {
		return
	}
	w.sb.pushFrom(w.src, w.batch...)
	w.last, w.wrote = w.sb.lastIndex(), true
	w.batch = w.batch[:0]
}

func (w *PaneWriter) keep(p []byte) {
	room := maxLineBytes - len(w.partial)
	if room < len(p) {
		w.dropped += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	w.partial = append(w.partial, p...)
}

// Close keeps a last line that had no newline.
func (w *PaneWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.partial) > 0 || w.dropped > 0 {
		w.sb.pushFrom(w.src, makeEntry(w.partial, w.dropped, w.kind))
		w.partial, w.dropped = nil, 0
	}
	return nil
}

// makeEntry turns raw output into a line the screen can show as is.
// Printable ASCII (nearly all output) is stored unchanged and measured by
// its length. Otherwise tabs are expanded, a trailing CR dropped, and
// control characters shown as their Unicode control pictures (␛ for ESC):
// a message body can hold anything, and raw escape sequences would break
// the screen. A line longer than maxLineBytes keeps its head and says how
// much was left out.
func makeEntry(b []byte, dropped int, kind lineKind) entry {
	if kind == kindNote {
		// The marker, not only the style, says "the lab, not NATS": it
		// survives NO_COLOR and a copy of the text.
		b = append([]byte(command.NoteMarker), b...)
	}
	if len(b) > maxLineBytes {
		dropped += len(b) - maxLineBytes
		b = b[:maxLineBytes]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	suffix, suffixWidth := "", 0
	if dropped > 0 {
		suffix = fmt.Sprintf(" … (%d more bytes)", dropped)
		suffixWidth = len(suffix) - len("…") + 1
	}
	if plainASCII(b) {
		return entry{text: string(b) + suffix, width: len(b) + suffixWidth, kind: kind}
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	col := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == '\t':
			pad := 8 - col%8
			sb.WriteString("        "[:pad])
			col += pad
			continue
		case r < 0x20:
			r = 0x2400 + r
		case r == 0x7f:
			r = '␡'
		case r >= 0x80 && r < 0xa0:
			r = utf8.RuneError
		}
		sb.WriteRune(r)
		col++
	}
	text := sb.String() + suffix
	return entry{text: text, width: ansi.StringWidth(text), kind: kind}
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}
