package lab

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"natslab/broker"
)

// logPane shows the tail of the embedded server's real log. It reads the
// broker's bounded LogBuffer when the buffer says it changed; nothing
// polls. The "[pid] 2006/01/02 " prefix is dropped to leave room for the
// message at pane widths; the time, level and text are the server's.
type logPane struct {
	st    *Styles
	log   *broker.LogBuffer // nil for an external deployment
	w, h  int
	frame []string
	valid bool
}

func newLogPane(st *Styles, log *broker.LogBuffer) *logPane { return &logPane{st: st, log: log} }

// Update: the log pane only shows what the server logs (see Model.waitLog).
func (p *logPane) Update(tea.Msg) tea.Cmd { return nil }

// SetSize implements Component.
func (p *logPane) SetSize(w, h int) {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.valid = false
	}
}

// Invalidate marks the log as changed.
func (p *logPane) Invalidate() { p.valid = false }

// Lines draws the pane, exactly w×h.
func (p *logPane) Lines() []string {
	if p.valid {
		return p.frame
	}
	iw, ih := max(p.w-2, 0), max(p.h-2, 0)
	var rows []string
	if p.log == nil {
		rows = fitLines(" The lab is connected to an external deployment:\n its log is on that server.", iw, ih)
	} else {
		lines := p.log.Lines()
		// Wrap from the newest back while whole lines fit: each at its
		// blanks, its later rows hanging under its text, so no word is
		// cut in two and the pane starts with a line's start (only a
		// newest line taller than the pane shows its end alone).
		var wrapped []string
		older := false // an older line had no room
		for i := len(lines) - 1; i >= 0; i-- {
			e := makeEntry([]byte(shortLogLine(lines[i])), 0, kindOut) // a client name can hold anything
			var rows []string
			wrapHanging(e, max(iw-1, 1), "  ", func(row string, _ int) { rows = append(rows, " "+row) })
			if len(wrapped)+len(rows) > ih && len(wrapped) > 0 {
				older = true
				break
			}
			for j := len(rows) - 1; j >= 0; j-- {
				wrapped = append(wrapped, rows[j])
			}
		}
		for l, r := 0, len(wrapped)-1; l < r; l, r = l+1, r-1 {
			wrapped[l], wrapped[r] = wrapped[r], wrapped[l]
		}
		if len(wrapped) > ih {
			wrapped = wrapped[len(wrapped)-ih:]
		}
		if older {
			// The newest line stays on the bottom row, as a log
			// followed in a terminal: the row an older line had no
			// room in is left blank above.
			wrapped = append(make([]string, ih-len(wrapped)), wrapped...)
		}
		rows = fitLines(strings.Join(wrapped, "\n"), iw, ih)
	}
	p.frame = box(p.st, "server log", false, rows, "f3 hides", p.w, p.h)
	p.valid = true
	return p.frame
}

// shortLogLine turns "[123] 2006/01/02 15:04:05.000000 [INF] msg" into
// "15:04:05.000 [INF] msg".
func shortLogLine(l string) string {
	if !strings.HasPrefix(l, "[") {
		return l
	}
	rest := l
	if i := strings.Index(rest, "] "); i > 0 {
		rest = rest[i+2:]
	}
	if len(rest) > 11 && rest[4] == '/' && rest[7] == '/' && rest[10] == ' ' {
		rest = rest[11:]
	}
	if len(rest) > 16 && rest[8] == '.' && rest[15] == ' ' {
		rest = rest[:12] + rest[15:]
	}
	return rest
}

// View implements Component.
func (p *logPane) View() string { return strings.Join(p.Lines(), "\n") }
