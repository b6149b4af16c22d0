package broker

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// LogBuffer keeps the embedded server's most recent log lines, bounded, and
// lets a pane follow it. The server's log never goes to the terminal the TUI
// draws on: it goes here, and optionally to a tee writer (natslab serve).
type LogBuffer struct {
	mu      sync.Mutex
	lines   []string // ring
	start   int
	count   int
	total   uint64 // lines ever written, so followers can tell what is new
	changed chan struct{}
	tee     io.Writer
	pid     int
	now     func() time.Time
	fatal   string // the last fatal message, if any
}

// DefaultLogLines is how many lines of server log the lab keeps.
const DefaultLogLines = 2000

// NewLogBuffer returns a buffer that keeps the last max lines.
func NewLogBuffer(max int) *LogBuffer {
	if max <= 0 {
		max = DefaultLogLines
	}
	return &LogBuffer{lines: make([]string, max), changed: make(chan struct{}), pid: os.Getpid(), now: time.Now}
}

// Tee sends every new line to w as well (nil stops it).
func (b *LogBuffer) Tee(w io.Writer) {
	b.mu.Lock()
	b.tee = w
	b.mu.Unlock()
}

// Append adds one line, formatted as nats-server formats its log:
// "[pid] 2006/01/02 15:04:05.000000 [INF] message".
// User info in a URL the server logs (a route, a client's) is masked.
func (b *LogBuffer) Append(level, msg string) {
	msg = Redact(msg)
	line := fmt.Sprintf("[%d] %s [%s] %s", b.pid, b.now().Format("2006/01/02 15:04:05.000000"), level, msg)
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := (b.start + b.count) % len(b.lines)
	if b.count == len(b.lines) {
		b.start = (b.start + 1) % len(b.lines)
	} else {
		b.count++
	}
	b.lines[idx] = line
	b.total++
	if level == "FTL" {
		b.fatal = msg
	}
	if b.tee != nil {
		fmt.Fprintln(b.tee, line)
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

// Lines returns the kept lines, oldest first.
func (b *LogBuffer) Lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, b.count)
	for i := 0; i < b.count; i++ {
		out[i] = b.lines[(b.start+i)%len(b.lines)]
	}
	return out
}

// Since returns the lines written after the first n ever written (as counted
// by Total), oldest first, and the new total. Lines that fell out of the
// buffer in between are skipped.
func (b *LogBuffer) Since(n uint64) ([]string, uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	missing := b.total - n
	if n > b.total {
		missing = uint64(b.count)
	}
	if missing > uint64(b.count) {
		missing = uint64(b.count)
	}
	out := make([]string, 0, missing)
	for i := b.count - int(missing); i < b.count; i++ {
		out = append(out, b.lines[(b.start+i)%len(b.lines)])
	}
	return out, b.total
}

// Total is the number of lines ever written.
func (b *LogBuffer) Total() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Changed returns a channel closed when the next line arrives.
func (b *LogBuffer) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// Contains reports whether any kept line contains s.
func (b *LogBuffer) Contains(s string) bool {
	for _, l := range b.Lines() {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func (b *LogBuffer) lastFatal() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fatal
}

// serverLogger adapts a LogBuffer to nats-server's Logger interface. Fatalf
// only records: the standard logger would call os.Exit behind the TUI's back.
type serverLogger struct{ buf *LogBuffer }

func (l serverLogger) Noticef(f string, v ...any) { l.buf.Append("INF", fmt.Sprintf(f, v...)) }
func (l serverLogger) Warnf(f string, v ...any)   { l.buf.Append("WRN", fmt.Sprintf(f, v...)) }
func (l serverLogger) Fatalf(f string, v ...any)  { l.buf.Append("FTL", fmt.Sprintf(f, v...)) }
func (l serverLogger) Errorf(f string, v ...any)  { l.buf.Append("ERR", fmt.Sprintf(f, v...)) }
func (l serverLogger) Debugf(f string, v ...any)  { l.buf.Append("DBG", fmt.Sprintf(f, v...)) }
func (l serverLogger) Tracef(f string, v ...any)  { l.buf.Append("TRC", fmt.Sprintf(f, v...)) }
