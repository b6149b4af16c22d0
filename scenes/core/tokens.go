package core

import (
	"strconv"
	"strings"
	"time"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// The wildcards scene: the subject just published, tokens in columns on the
// header row, and under it each subscription's filter, token under token,
// each marked ✓ or ✗ as the match proceeds (one column per step), then the
// verdict. Earlier publishes are listed below with the filters that took
// them.

// columns is the token grid at this moment.
type columns struct {
	subject []string // the subject on show; nil before the first publish
	x       []int    // each column's offset from the row's start
	width   int
	reveal  int // columns whose marks are shown
}

// shown is the latest publish that has reached the server on screen.
func (s *Scene) shown(now time.Time) (arrival, int, bool) {
	for i := len(s.recent) - 1; i >= 0; i-- {
		if !s.recent[i].at.After(now) {
			return s.recent[i], i, true
		}
	}
	return arrival{}, -1, false
}

func (s *Scene) columns(now time.Time) columns {
	var cols columns
	if s.kind != Wildcards {
		return cols
	}
	n := 0
	a, _, ok := s.shown(now)
	if ok {
		cols.subject = strings.Split(a.subject, ".")
		n = len(cols.subject)
		cols.reveal = int(now.Sub(a.at)/s.t.token) + 1
	}
	// The columns fit every recent subject, not only the one on show, so
	// they stay put from one publish to the next.
	var all [][]string
	for _, a := range s.recent {
		all = append(all, strings.Split(a.subject, "."))
	}
	for _, r := range s.rows {
		all = append(all, r.tokens)
	}
	for _, t := range all {
		n = max(n, len(t))
	}
	widths := make([]int, n)
	for _, t := range all {
		for j, tok := range t {
			widths[j] = max(widths[j], runes(tok))
		}
	}
	x := 0
	for _, w := range widths {
		cols.x = append(cols.x, x)
		x += w + 2 // the token, its mark, a blank
	}
	cols.width = max(x-1, 0)
	return cols
}

// revealing reports whether the wildcards scene is still stepping through
// a match, or has a publish on its way to the server.
func (s *Scene) revealing(now time.Time) bool {
	if s.kind != Wildcards || len(s.recent) == 0 {
		return false
	}
	if s.recent[len(s.recent)-1].at.After(now) {
		return true
	}
	cols := s.columns(now)
	return cols.reveal <= len(cols.x)+1
}

// verdictRoom is the width the wildcards scene keeps for a verdict.
const verdictRoom = 22

// rowWidths are the narrowest a row can be drawn, and a comfortable width.
func (s *Scene) rowWidths(cols columns, countW int) (need, want int) {
	if len(s.rows) == 0 {
		return runes("no subscriber"), 48 // see emptyText
	}
	switch s.kind {
	case Wildcards:
		// Room for a verdict such as "✗ ends before created" beside the
		// filter, whichever subject is on show, so the layout holds still.
		return cols.width + 1, cols.width + 2 + verdictRoom
	case Queues:
		return s.groupWidth() + 12, s.groupWidth() + 26
	}
	// Beside the subject, the connection's name ("NATS CLI Version 0.5.0").
	w := s.subjectWidth()
	return w + 2, w + 28
}

// subjectWidth is the hello scene's subject column: the widest subject
// (and queue group) on screen.
func (s *Scene) subjectWidth() int {
	w := 0
	for _, r := range s.rows {
		l := runes(r.sub.Subject)
		if r.sub.Queue != "" {
			l += runes(" in queue " + r.sub.Queue)
		}
		w = max(w, l)
	}
	return w
}

// drawSubject puts the subject on show over the filters, and returns the
// column after it.
func (s *Scene) drawSubject(c *kit.Canvas, p *plan, cols columns) int {
	if cols.subject == nil {
		return c.Text(p.rowX, p.header, text.Fit(p.countX-p.rowX-1, "publish to compare", "publish"), kit.Faint)
	}
	end := p.rowX
	for j, tok := range cols.subject {
		end = put(c, p.rowX+cols.x[j], p.header, tok, kit.Msg, p.countX-1)
	}
	// Pointing at the subject, when that leaves the counts their header.
	if x := p.rowX + cols.width + 2; x+runes("◀ published")+runes("received") < p.right {
		end = c.Text(x, p.header, "◀ published", kit.Faint)
	}
	return end
}

// steps is how many columns a match looks at before its verdict.
func steps(m matching, tokens int) int {
	switch {
	case !m.ok:
		return m.fail + 1
	case m.rest >= 0:
		return m.rest + 1
	}
	return tokens
}

// drawMatch draws a filter under the subject, marked as far as the match
// has got, and its verdict once it is through.
func (s *Scene) drawMatch(c *kit.Canvas, p *plan, r row, y int, cols columns, end int, now time.Time) {
	at := func(j int) int { return p.rowX + cols.x[j] }
	if cols.subject == nil {
		for j, tok := range r.tokens {
			put(c, at(j), y, tok, kit.Strong, end)
		}
		return
	}
	m := match(r.tokens, cols.subject)
	for j, tok := range r.tokens {
		role, mk := kit.Strong, ""
		if j < cols.reveal {
			switch m.marks[j] {
			case good:
				role, mk = kit.Good, "✓"
			case bad:
				role, mk = kit.Bad, "✗"
			default:
				role = kit.Faint
			}
		}
		x := put(c, at(j), y, tok+mk, role, end)
		if m.rest == j && j < cols.reveal && len(cols.subject) > 0 {
			// > took the rest of the subject: a line along what it took.
			last := len(cols.subject) - 1
			c.HLine(x+1, min(at(last)+runes(cols.subject[last]), end), y, '┄', kit.Good)
		}
	}
	if m.fail == len(r.tokens) && m.fail < cols.reveal && m.fail < len(cols.x) {
		put(c, at(m.fail), y, "✗", kit.Bad, end)
	}
	if cols.reveal <= steps(m, len(r.tokens)) {
		return
	}
	x := p.rowX + cols.width + 2
	if p.twoLine {
		x, y = p.rowX, y+1
	}
	role := kit.Good
	if !m.ok {
		role = kit.Bad
	}
	v := verdictText(m)
	if runes(v) > end-x {
		// Cut, "✗ …" says less than the mark alone: the tokens' marks
		// show where the match failed.
		v, _, _ = strings.Cut(v, " ")
	}
	c.Text(x, y, kit.Clip(v, end-x), role)
}

func verdictText(m matching) string {
	if m.ok {
		return "✓ match"
	}
	return "✗ " + m.why
}

// drawHistory lists the publishes before the one on show, newest first,
// with the filters on screen that take each.
func (s *Scene) drawHistory(c *kit.Canvas, p *plan, now time.Time) {
	_, i, ok := s.shown(now)
	if !ok {
		return
	}
	y := p.histY
	for j := i - 1; j >= 0 && y < p.histY+p.histN; j-- {
		a := s.recent[j]
		subject := strings.Split(a.subject, ".")
		var takers []string
		for _, r := range s.rows {
			if match(r.tokens, subject).ok {
				takers = append(takers, r.sub.Subject)
			}
		}
		x := c.Text(p.rowX, y, kit.Clip(a.subject, p.w-p.rowX-1), kit.Faint)
		if x+4 < p.w {
			x = c.Text(x, y, " → ", kit.Faint)
			if len(takers) == 0 {
				c.Text(x, y, kit.Clip("no subscription takes it", p.w-x-1), kit.Bad)
			} else {
				c.Text(x, y, takersWithin(dedupe(takers), p.w-x-1), kit.Good)
			}
		}
		y++
	}
}

// takersWithin names the filters that take a publish in at most w cells:
// all of them, or the first few and how many more, or only how many.
func takersWithin(takers []string, w int) string {
	wordings := []string{strings.Join(takers, ", ")}
	for k := len(takers) - 1; k >= 1; k-- {
		wordings = append(wordings, strings.Join(takers[:k], ", ")+" +"+strconv.Itoa(len(takers)-k)+" more")
	}
	wordings = append(wordings, text.Count(len(takers), "filter", "filters"))
	return text.Fit(w, wordings...)
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
