package retention

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

// colPlan is where one column's parts were drawn, for the movers.
type colPlan struct {
	ok          bool
	left, right int // the cells' span inside the frame
	row         int // the cells' row
	cw          int
	last        uint64
	cons        map[string]int // consumer → its row
}

func (p *colPlan) cellX(seq uint64) int {
	x := p.right - int(p.last-seq+1)*p.cw + p.cw/2
	if seq > p.last {
		x = p.right - p.cw/2
	}
	return max(x, p.left)
}

// at resolves the movers' waypoints: "cell:<column>:<seq>", a message,
// and "cons:<column>:<seq>:<consumer>", the consumer's row under it.
func (s *Scene) at(name string) (kit.Point, bool) {
	parts := strings.SplitN(name, ":", 4)
	if len(parts) < 3 {
		return kit.Point{}, false
	}
	i, err := strconv.Atoi(parts[1])
	if err != nil || i < 0 || i >= len(s.plan) || !s.plan[i].ok {
		return kit.Point{}, false
	}
	p := &s.plan[i]
	seq, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return kit.Point{}, false
	}
	switch {
	case parts[0] == "cell":
		return kit.Point{X: p.cellX(seq), Y: p.row}, true
	case parts[0] == "cons" && len(parts) == 4:
		row, ok := p.cons[parts[3]]
		if !ok {
			return kit.Point{}, false
		}
		return kit.Point{X: p.cellX(seq), Y: row}, true
	}
	return kit.Point{}, false
}

// Rows the full picture needs: name, rule, the tape (3), the ack floors.
const headRows = 6

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	// A blank column at each side, as the other scenes have.
	c := s.BlankInset()
	if c == nil {
		return ""
	}
	s.iw = c.Width()
	rows := s.H
	for i := range s.plan {
		s.plan[i] = colPlan{}
	}
	if s.snap.Problem != "" {
		lines := text.Wrap(s.snap.Problem, s.iw)
		y := max(min(rows/2, rows-len(lines)), 0)
		for _, l := range lines {
			c.Text(0, y, l, kit.Bad)
			y++
		}
		return s.Inset(c)
	}
	if s.iw >= 54 && rows >= headRows+2 {
		// Three columns, a rule with a blank either side between each two,
		// the story at the foot.
		foot := s.footer(1 + min(max(s.H-10, 0), 1))
		rows -= len(foot)
		s.drawFooter(c, foot, rows, now)
		colW := (s.iw - 6) / 3
		heads, top := s.heads(colW, rows, now)
		// With no stream yet, the three commands, each whole on a row
		// across the columns, where no column holds one.
		ruled, across := rows, s.noStreams() && c.Try(0, top+1, s.iw, rows-(top+1),
			"To compare what each keeps, make one of each:",
			examples["limits"], examples["interest"], examples["workqueue"]) > 0
		if across {
			ruled = top
		}
		for i := range s.snap.Columns {
			x := i * (colW + 3)
			s.drawColumn(c, i, x, colW, top, heads[i], rows, across, now)
			if i < 2 {
				for y := 0; y < ruled; y++ {
					c.Set(x+colW+1, y, '│', kit.Faint)
				}
			}
		}
		s.drawMovers(c, now)
		return s.Inset(c)
	}
	// A few lines each, the story below where rows are left: a column
	// whose ack floors all fit beside its stream gives up its second row
	// where the story needs it to be read whole.
	per := max(min(rows/3, 2), 1)
	cols := make([][]string, len(s.snap.Columns))
	used := 0
	for i := range cols {
		cols[i], _ = s.lines(i, per)
		used += len(cols[i])
	}
	for i := range cols {
		if left := min(rows-used, 2); left > 0 && !cut(s.footer(left)) {
			break
		}
		if one, whole := s.lines(i, 1); whole && len(cols[i]) > 1 {
			used -= len(cols[i]) - 1
			cols[i] = one
		}
	}
	y := 0
	for _, lines := range cols {
		for _, l := range lines {
			if y < rows {
				c.Text(0, y, l, kit.Plain)
			}
			y++
		}
	}
	if left := rows - y; left > 0 {
		foot := s.footer(min(left, 2))
		s.drawFooter(c, foot, rows-len(foot), now)
	}
	return s.Inset(c)
}

// heads are the lines above each column's messages, all as many as the
// tallest (top): the stream and its policy, then the rule, wrapped where
// rows allow, or else in the fewest words that say it.
func (s *Scene) heads(w, rows int, now time.Time) (out [3][]headLine, top int) {
	for _, roomy := range []bool{true, false} {
		top = 0
		for i := range s.snap.Columns {
			out[i] = s.head(&s.snap.Columns[i], w, roomy, now)
			top = max(top, len(out[i]))
		}
		// Under the heads: the tape (3), the ack marks, a consumer.
		if top+5 <= rows {
			break
		}
	}
	return out, top
}

// headLine is a line of a column's head: text, and the policy beside a
// stream's name where it fits (more).
type headLine struct {
	text, more string
	role       kit.Role
}

func (s *Scene) head(col *Column, w int, roomy bool, now time.Time) []headLine {
	var out []headLine
	switch {
	case col.Stream == "" && roomy:
		for _, l := range text.Wrap("no "+col.Policy+" stream", w) {
			out = append(out, headLine{text: l, role: kit.NodeOff})
		}
	case col.Stream == "":
		out = append(out, headLine{text: text.Fit(w, "no "+col.Policy+" stream", col.Policy+": none", col.Policy), role: kit.NodeOff})
	default:
		name := headLine{text: kit.Clip(col.Stream, w), role: s.role("pub:"+col.Stream, kit.Title, now)}
		if runes(col.Stream)+1+runes(col.Policy) <= w {
			name.more = col.Policy
		}
		out = append(out, name)
		if name.more == "" && roomy {
			out = append(out, headLine{text: kit.Clip(col.Policy, w), role: kit.Strong})
		}
	}
	rule := rules[col.Policy]
	switch {
	case runes(rule[0]) <= w:
		out = append(out, headLine{text: rule[0], role: kit.Faint})
	case runes(rule[1]) <= w:
		out = append(out, headLine{text: rule[1], role: kit.Faint})
	case roomy:
		for _, l := range text.Wrap(rule[1], w) {
			out = append(out, headLine{text: l, role: kit.Faint})
		}
	default:
		out = append(out, headLine{text: text.Fit(w, rule[2]), role: kit.Faint})
	}
	return out
}

// drawMovers draws acknowledgements travelling from a message down to the
// consumer that acknowledged it.
func (s *Scene) drawMovers(c *kit.Canvas, now time.Time) {
	s.movers.Draw(c, now, s.at, nil)
}

func (s *Scene) role(key string, role kit.Role, now time.Time) kit.Role {
	if s.flashes.On(key, now) {
		return kit.Flash
	}
	return role
}

// fadeGlyphs are a message leaving, by shape so it reads without colour.
var fadeGlyphs = []string{"", "◍", "○", "◌", "·"}

// noStreams reports whether no column has a stream yet.
func (s *Scene) noStreams() bool {
	for _, col := range s.snap.Columns {
		if col.Stream != "" {
			return false
		}
	}
	return true
}

// flags are the --retention value each policy is made with.
var flags = map[string]string{"limits": "limits", "interest": "interest", "workqueue": "work"}

// drawColumn draws column i; across: the commands that make the streams
// are drawn across the columns, not in them.
func (s *Scene) drawColumn(c *kit.Canvas, i, x, w, top int, head []headLine, rows int, across bool, now time.Time) {
	col := &s.snap.Columns[i]
	for y, l := range head {
		nx := c.Text(x, y, l.text, l.role)
		if l.more != "" {
			c.Text(nx+1, y, l.more, kit.Strong)
		}
	}
	if col.Stream == "" {
		if across {
			return
		}
		// How to make one: the command whole where the column holds
		// it, else in words, wrapped into the column.
		if c.Try(x, top+1, w, rows-(top+1), "make one:", examples[col.Policy]) > 0 {
			return
		}
		y := top + 1
		for _, line := range text.Wrap("a stream made with --retention "+flags[col.Policy]+" shows here", w) {
			if y >= rows {
				break
			}
			c.Text(x, y, line, kit.Faint)
			y++
		}
		return
	}
	nodeRole := kit.Node
	if !s.snap.ServerUp {
		nodeRole = kit.NodeOff
	}
	c.Box(x, top, w, 3, nodeRole)
	p := &s.plan[i]
	*p = colPlan{ok: true, left: x + 1, right: x + w - 1, row: top + 1, last: col.Last, cons: map[string]int{}}
	p.cw = max(len(strconv.FormatUint(col.Last+1, 10)), 1) + 3
	s.drawCells(c, i, col, p, now)

	// Under the tape: each consumer's ack floor, then its numbers.
	// Consumers at the same floor share one mark: ▲a,b.
	floorRow := top + 3
	var floors []uint64
	at := map[uint64][]string{}
	for _, cons := range col.Consumers {
		f := cons.AckFloor
		if f == 0 || f < col.Last-min(col.Last, uint64((p.right-p.left)/p.cw)) {
			continue // nothing acknowledged yet, or off the tape's left end
		}
		if len(at[f]) == 0 {
			floors = append(floors, f)
		}
		at[f] = append(at[f], cons.Name)
	}
	slices.Sort(floors)
	from := x // where the next mark may start
	for k, f := range floors {
		fx := p.cellX(f)
		end := x + w // a mark stops short of the next one
		if k+1 < len(floors) {
			end = p.cellX(floors[k+1]) - 1
		}
		names := strings.Join(at[f], ",")
		role := kit.Good
		for _, n := range at[f] {
			role = s.role("cons:"+col.Stream+":"+n, role, now)
		}
		// ▲ under the cell, the names after it, or before it at the
		// column's right end.
		if fx+1+runes(names) <= end || fx-runes(names) < from {
			from = c.Text(fx, floorRow, kit.Clip("▲"+names, end-fx), role) + 1
		} else {
			c.Text(fx-runes(names), floorRow, names, role)
			from = c.Text(fx, floorRow, "▲", role) + 1
		}
	}
	y := floorRow + 1
	note := text.Wrap(col.Note, w)
	if len(col.Consumers) == 0 {
		say := "no consumers"
		if col.Policy == "interest" {
			say = "no consumers: nothing is kept"
		}
		lines := text.Wrap(say, w)
		if len(lines) > rows-y {
			lines = []string{text.Fit(w, say, "no consumers")}
		}
		for _, l := range lines {
			if y < rows {
				c.Text(x, y, l, kit.Faint)
			}
			y++
		}
	}
	// What the server refused keeps its first words ("refused w2") where
	// the column has no rows for all of it beside the consumers.
	if short, _, ok := strings.Cut(col.Note, ": "); ok && len(note) > rows-y-len(col.Consumers) {
		note = text.Wrap(short, w)
	}
	// Each consumer's ack floor, and what it has still to take beside it,
	// or on a line of its own where the column is narrow and rows allow.
	foot := rows - min(len(note), 2)
	nameW := func(k Consumer) int { return runes(kit.Clip(k.Name, w/3)) }
	need := 0
	for _, k := range col.Consumers {
		need++
		if rest := togo(k); rest != "" && runes(floorText(k, w-nameW(k)))+3+runes(rest) > w-nameW(k) {
			need++
		}
	}
	two := need <= foot-y
	for n, k := range col.Consumers {
		if y >= foot {
			break
		}
		if n == rows-y-1 && len(col.Consumers) > n+1 {
			more := "+" + strconv.Itoa(len(col.Consumers)-n)
			c.Text(x, y, text.Fit(w, more+" more consumers", more+" more"), kit.Faint)
			break
		}
		p.cons[k.Name] = y
		cx := c.Text(x, y, kit.Clip(k.Name, w/3), s.role("cons:"+col.Stream+":"+k.Name, kit.Strong, now))
		// The ack floor: everything up to it is acknowledged (or was
		// never the consumer's to take).
		floor, rest := floorText(k, x+w-cx), togo(k)
		beside := rest != "" && runes(floor)+3+runes(rest) <= x+w-cx
		if beside {
			floor += " · " + rest
		}
		c.Text(cx, y, floor, kit.Plain)
		if rest != "" && !beside && two && y+1 < foot {
			y++
			c.Text(x+2, y, text.Fit(w-2, rest), kit.Plain)
		}
		y++
	}
	// What the server refused, at the column's foot.
	for _, line := range note {
		if y >= rows {
			break
		}
		c.Text(x, y, line, kit.Bad)
		y++
	}
}

// floorText is a consumer's ack floor in at most w cells.
func floorText(k Consumer, w int) string {
	if k.Offline {
		return text.Fit(w, " offline: on stopped nodes", " offline")
	}
	f := "0"
	if k.AckFloor > 0 {
		f = "#" + strconv.FormatUint(k.AckFloor, 10)
	}
	return text.Fit(w, " ack floor "+f, " floor "+f, " "+f)
}

// togo is what a consumer has still to take: pending and unacknowledged.
func togo(k Consumer) string {
	if n := k.Pending + uint64(k.AckPending); n > 0 {
		return strconv.FormatUint(n, 10) + " to go"
	}
	return ""
}

// drawCells draws a column's messages, newest at the right: those every
// consumer acknowledged faint, those some did in the warning colour, the
// rest kept; those leaving fade where they were.
func (s *Scene) drawCells(c *kit.Canvas, i int, col *Column, p *colPlan, now time.Time) {
	drawn := 0
	for seq := col.Last; seq >= 1; seq-- {
		pos := p.right - int(col.Last-seq+1)*p.cw
		if pos < p.left {
			if col.Holds(seq) || seq >= col.First {
				c.Text(p.left, p.row, "…", kit.Faint)
			}
			break
		}
		fadeAt, fading := s.gone[i][seq]
		fading = fading && now.Before(fadeAt.Add(s.t.fade))
		holds := col.Holds(seq)
		if !holds && !fading {
			if seq < col.First {
				continue
			}
			c.Text(pos+p.cw/2, p.row, "·", kit.Faint) // a gap inside
			continue
		}
		text, role := strconv.FormatUint(seq, 10), kit.Kept
		switch {
		case fading:
			f := float64(now.Sub(fadeAt)) / float64(s.t.fade)
			j := max(min(int(f*float64(len(fadeGlyphs))), len(fadeGlyphs)-1), 0)
			text, role = fadeGlyphs[j], kit.Faint
			if j == 0 {
				text, role = strconv.FormatUint(seq, 10), kit.Bad
			}
		case col.AckedByAll(seq):
			role = kit.Done
		case ackedBySome(*col, seq):
			role = kit.Warn
		}
		if holds && s.flashes.On(cellKey(col.Stream, seq), now) {
			role = kit.Flash
		}
		if pos > p.left {
			c.Set(pos, p.row, '│', kit.Faint)
		}
		c.Text(pos+1+(p.cw-1-runes(text))/2, p.row, text, role)
		drawn++
	}
	if col.Msgs == 0 && drawn == 0 {
		last := strconv.FormatUint(col.Last, 10)
		c.TextCenter(p.left, p.right, p.row, text.Fit(p.right-p.left, "empty · last #"+last, "empty, last #"+last, "empty"), kit.Faint)
	}
}

// lines is a column in at most n lines, for small panes: the stream, its
// policy and messages, then its consumers' ack floors, each part whole;
// those that find no room are counted. The stream says less where that
// makes room for every ack floor; whole reports that none was left out.
func (s *Scene) lines(i, n int) (out []string, whole bool) {
	col := &s.snap.Columns[i]
	w := s.iw
	if col.Stream == "" {
		return []string{text.Fit(w, col.Policy+": no stream yet", col.Policy+": none")}, true
	}
	msgs := text.Count(col.Msgs, "msg", "msgs")
	last := "last #" + strconv.FormatUint(col.Last, 10)
	wordings := []string{
		col.Stream + " (" + col.Policy + "): " + msgs + ", " + last,
		col.Stream + " (" + col.Policy + "): " + msgs,
		col.Stream + ": " + msgs}
	first := text.Fit(w, wordings...)
	for _, head := range wordings {
		if text.Width(head) > w {
			continue
		}
		if out, whole = floors(col, head, w, n); whole {
			return out, true
		}
	}
	return floors(col, first, w, n)
}

// floors is a column's stream line, head, followed by its consumers' ack
// floors, in at most n lines of w cells; those that find no room are
// counted ("+2 more"), and whole is false.
func floors(col *Column, head string, w, n int) (out []string, whole bool) {
	out = []string{head}
	for k, cons := range col.Consumers {
		part := cons.Name + " ack floor #" + strconv.FormatUint(cons.AckFloor, 10)
		if cons.Offline {
			part = cons.Name + " offline"
		}
		line := &out[len(out)-1]
		left := len(col.Consumers) - k
		// Room kept on the last line to count those left out.
		count := func(more int) string { return "+" + strconv.Itoa(more) + " more" }
		reserve := 0
		if left > 1 && len(out) == n {
			reserve = 3 + runes(count(left-1))
		}
		switch {
		case runes(*line)+3+runes(part)+reserve <= w:
			*line += " · " + part
		case len(out) < n && 2+runes(part) <= w:
			out = append(out, "  "+part)
		default:
			if runes(*line)+3+runes(count(left)) <= w {
				*line += " · " + count(left)
			}
			return out, false
		}
	}
	return out, true
}

// footer is the story in at most n lines: all of it where it fits, else
// its newest part, else that part's first clause; words are never cut,
// the last that do not fit are left out.
func (s *Scene) footer(n int) []string {
	story := s.snap.Story
	texts := []string{story}
	newest := story
	if i := strings.LastIndex(story, "; "); i >= 0 {
		newest = story[i+2:]
		texts = append(texts, newest)
	}
	// Then what happened without why: "INTEREST acknowledged #1 and
	// kept nothing", not "… kept nothing: no …".
	if what, _, ok := strings.Cut(newest, ": "); ok {
		texts = append(texts, what)
	}
	switch {
	case !s.snap.ServerUp:
		texts = []string{"the server is down"}
	case story == "":
		texts = []string{"publish to each stream, add consumers, acknowledge: see what each policy keeps",
			"publish, add consumers, acknowledge: see what each keeps",
			"publish, consume, acknowledge"}
	}
	return text.WrapIn(s.iw, n, texts...)
}

// cut reports whether lines (text.WrapIn's) end cut short, " …".
func cut(lines []string) bool {
	return len(lines) > 0 && strings.HasSuffix(lines[len(lines)-1], "…")
}

// drawFooter draws the footer's lines from row y: what just happened.
func (s *Scene) drawFooter(c *kit.Canvas, lines []string, y int, now time.Time) {
	role := kit.Faint
	switch {
	case !s.snap.ServerUp:
		role = kit.Bad
	case strings.Contains(s.snap.Story, "refused"):
		role = kit.Bad
	}
	if s.flashes.On("story", now) && role == kit.Faint {
		role = kit.Strong
	}
	for _, l := range lines {
		c.Text(0, y, l, role)
		y++
	}
}
