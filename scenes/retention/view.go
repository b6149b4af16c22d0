package retention

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	// One blank column on the left, as the other scenes have.
	c := s.BlankInset()
	if c == nil {
		return ""
	}
	s.iw = c.Width()
	rows := s.H
	footer := s.H >= 8
	if footer {
		rows--
		s.drawFooter(c, s.H-1, now)
	}
	for i := range s.plan {
		s.plan[i] = colPlan{}
	}
	if s.snap.Problem != "" {
		c.Text(0, min(rows/2, s.H-1), kit.Clip(s.snap.Problem, s.iw), kit.Bad)
		return s.Inset(c)
	}
	if s.iw >= 54 && rows >= headRows+1 {
		// Three columns, a rule with a blank either side between each two.
		colW := (s.iw - 6) / 3
		for i := range s.snap.Columns {
			x := i * (colW + 3)
			s.drawColumn(c, i, x, colW, rows, now)
			if i < 2 {
				for y := 0; y < rows; y++ {
					c.Set(x+colW+1, y, '│', kit.Faint)
				}
			}
		}
		s.drawMovers(c, now)
		return s.Inset(c)
	}
	for i := range s.snap.Columns {
		if i < rows {
			s.drawLine(c, i, i)
		}
	}
	return s.Inset(c)
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

func (s *Scene) drawColumn(c *kit.Canvas, i, x, w, rows int, now time.Time) {
	col := &s.snap.Columns[i]
	name := col.Stream
	role := s.role("pub:"+col.Stream, kit.Title, now)
	if name == "" {
		name, role = "no "+col.Policy+" stream", kit.NodeOff
	}
	nx := c.Text(x, 0, kit.Clip(name, w), role)
	if col.Stream != "" && nx+1+runes(col.Policy) <= x+w {
		c.Text(nx+1, 0, col.Policy, kit.Strong)
	}
	rule := rules[col.Policy][0]
	if runes(rule) > w {
		rule = rules[col.Policy][1]
	}
	c.Text(x, 1, kit.Clip(rule, w), kit.Faint)
	if col.Stream == "" {
		// How to make one, wrapped into the column.
		y := 3
		for _, line := range wrap("make one: "+examples[col.Policy], w) {
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
	c.Box(x, 2, w, 3, nodeRole)
	p := &s.plan[i]
	*p = colPlan{ok: true, left: x + 1, right: x + w - 1, row: 3, last: col.Last, cons: map[string]int{}}
	p.cw = max(len(strconv.FormatUint(col.Last+1, 10)), 1) + 3
	s.drawCells(c, i, col, p, now)

	// Under the tape: each consumer's ack floor, then its numbers.
	// Consumers at the same floor share one mark: ▲a,b.
	floorRow := 5
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
	if len(col.Consumers) == 0 && y < rows {
		text := "no consumers"
		if col.Policy == "interest" {
			text = "no consumers: nothing is kept"
		}
		c.Text(x, y, kit.Clip(text, w), kit.Faint)
	}
	note := wrap(col.Note, w)
	for k, cons := range col.Consumers {
		if y >= rows-min(len(note), 2) {
			break
		}
		if k == rows-y-1 && len(col.Consumers) > k+1 {
			c.Text(x, y, kit.Clip("+"+strconv.Itoa(len(col.Consumers)-k)+" more consumers", w), kit.Faint)
			break
		}
		p.cons[cons.Name] = y
		cx := c.Text(x, y, kit.Clip(cons.Name, w/3), s.role("cons:"+col.Stream+":"+cons.Name, kit.Strong, now))
		// The ack floor: everything up to it is acknowledged (or was
		// never the consumer's to take).
		text := " ack floor "
		if cons.AckFloor == 0 {
			text += "0"
		} else {
			text += "#" + strconv.FormatUint(cons.AckFloor, 10)
		}
		if n := cons.Pending + uint64(cons.AckPending); n > 0 {
			text += " · " + strconv.FormatUint(n, 10) + " to go"
		}
		c.Text(cx, y, kit.Clip(text, x+w-cx), kit.Plain)
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
		text := "empty · last #" + strconv.FormatUint(col.Last, 10)
		c.TextCenter(p.left, p.right, p.row, kit.Clip(text, p.right-p.left), kit.Faint)
	}
}

// wrap breaks text into lines of at most w runes, at spaces.
func wrap(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case runes(line)+1+runes(word) <= w:
			line += " " + word
		default:
			lines = append(lines, kit.Clip(line, w))
			line = word
		}
	}
	if line != "" {
		lines = append(lines, kit.Clip(line, w))
	}
	return lines
}

// drawLine is a column in one line, for small panes.
func (s *Scene) drawLine(c *kit.Canvas, i, y int) {
	col := &s.snap.Columns[i]
	if col.Stream == "" {
		c.Text(0, y, kit.Clip(col.Policy+": no stream yet", s.iw), kit.Faint)
		return
	}
	text := col.Stream + " (" + col.Policy + "): " + strconv.FormatUint(col.Msgs, 10) + " msgs, last #" + strconv.FormatUint(col.Last, 10)
	for _, k := range col.Consumers {
		text += " · " + k.Name + " ack floor #" + strconv.FormatUint(k.AckFloor, 10)
	}
	c.Text(0, y, kit.Clip(text, s.iw), kit.Plain)
}

// drawFooter is the bottom line: what just happened.
func (s *Scene) drawFooter(c *kit.Canvas, y int, now time.Time) {
	text, role := s.snap.Story, kit.Faint
	switch {
	case !s.snap.ServerUp:
		text, role = "the server is down", kit.Bad
	case strings.Contains(text, "refused"):
		role = kit.Bad
	case text == "":
		text = "publish to each stream, add consumers, acknowledge: see what each policy keeps"
	}
	if s.flashes.On("story", now) && role == kit.Faint {
		role = kit.Strong
	}
	c.Text(0, y, kit.Clip(text, s.iw), role)
}
