package lab

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"natslab/broker/command"
)

// history is the command pane's ↑/↓ history, kept in <store>/history so it
// survives restarts. The file is appended to line by line and compacted on
// load when it has grown well past the bound.
type history struct {
	path  string // "" keeps history in memory only
	max   int
	items []string
	pos   int    // index into items while browsing; len(items) when not
	draft string // the line being typed before browsing started
}

// DefaultHistory is how many lines of history are kept.
const DefaultHistory = 1000

// historyFile is the history's name inside the store directory.
const historyFile = "history"

func loadHistory(path string, max int) *history {
	if max <= 0 {
		max = DefaultHistory
	}
	h := &history{path: path, max: max}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	// A line the prompt could never have run (longer than a command may
	// be, binary junk, a secret written by an older lab) is skipped, and
	// reading goes on past it: one bad line must not cost the rest.
	r := bufio.NewReaderSize(f, 64*1024)
	read, skipped := 0, false
	for {
		line, complete, err := readHistoryLine(r)
		if line != "" {
			if complete && historyKeeps(line) {
				h.items = append(h.items, line)
				read++
			} else {
				skipped = true
			}
		}
		if err != nil {
			break
		}
	}
	f.Close()
	if len(h.items) > max {
		h.items = h.items[len(h.items)-max:]
	}
	if read > 2*max || skipped {
		h.rewrite()
	}
	h.pos = len(h.items)
	return h
}

// readHistoryLine reads one line of at most command.MaxLineLength bytes,
// trimmed; complete is false when the line was longer (what was read of it
// is returned, the rest skipped). err is io.EOF (or a read error) at the end.
func readHistoryLine(r *bufio.Reader) (line string, complete bool, err error) {
	var buf []byte
	complete = true
	for {
		part, err := r.ReadSlice('\n')
		if complete && len(buf)+len(part) <= command.MaxLineLength+1 {
			buf = append(buf, part...)
		} else if complete {
			complete = false
			buf = append(buf, part[:min(len(part), 16)]...) // enough to say it was not empty
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimSpace(string(buf)), complete, err
	}
}

// historyKeeps reports whether a line may be kept: printable text of one
// line, never one that carries a secret.
func historyKeeps(line string) bool {
	if len(line) > command.MaxLineLength || !utf8.ValidString(line) {
		return false
	}
	if _, secret := command.CarriesSecret(line); secret {
		return false
	}
	for _, r := range line {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// rewrite replaces the file with the kept items.
func (h *history) rewrite() {
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(h.items, "\n")+"\n"), 0o600); err != nil {
		return
	}
	_ = os.Rename(tmp, h.path)
}

// add records a line that was run (not a repeat of the one before). A line
// that carries a secret is never kept, in memory or in the file: secret
// names what it carries, for the pane to say so.
func (h *history) add(line string) (secret string) {
	line = strings.TrimSpace(line)
	h.pos = len(h.items)
	h.draft = ""
	if what, ok := command.CarriesSecret(line); ok {
		return what
	}
	if line == "" || !historyKeeps(line) || (len(h.items) > 0 && h.items[len(h.items)-1] == line) {
		return ""
	}
	h.items = append(h.items, line)
	if len(h.items) > h.max {
		h.items = append([]string(nil), h.items[len(h.items)-h.max:]...)
	}
	h.pos = len(h.items)
	if h.path == "" {
		return ""
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o755); err != nil {
		return ""
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return ""
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
	return ""
}

// prev steps back from the line being typed; ok is false at the oldest.
func (h *history) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.items) {
		h.draft = current
	}
	h.pos--
	return h.items[h.pos], true
}

// next steps forward; past the newest it returns the draft.
func (h *history) next() (string, bool) {
	if h.pos >= len(h.items) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.items) {
		return h.draft, true
	}
	return h.items[h.pos], true
}

// reset stops browsing (the line was edited or run).
func (h *history) reset() {
	h.pos = len(h.items)
	h.draft = ""
}
