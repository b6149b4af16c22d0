package streamlog

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

// Rows a lane takes at each level of detail.
const (
	fullRows    = 5
	compactRows = 2
	minFullW    = 44
)

// rect is an area of the canvas.
type rect struct{ x, y, w, h int }

func (r rect) contains(p kit.Point) bool {
	return p.X >= r.x && p.X < r.x+r.w && p.Y >= r.y && p.Y < r.y+r.h
}

// geometry is where one lane's parts are, for drawing and for the movers.
type geometry struct {
	tape, pub rect
	in, out   int // the rows publishes and acknowledgements travel on
	full      bool
}

func (g *geometry) at(name string) (kit.Point, bool) {
	// Messages leave and reach the boxes at their edges, so the whole
	// flight is on the wire.
	switch name {
	case "pub.out":
		return kit.Point{X: g.pub.x - 1, Y: g.in}, true
	case "log.in":
		return kit.Point{X: g.tape.x + g.tape.w, Y: g.in}, true
	}
	if !g.full {
		return kit.Point{}, false // acknowledgements are counted, not drawn, in a compact lane
	}
	switch name {
	case "log.out":
		return kit.Point{X: g.tape.x + g.tape.w, Y: g.out}, true
	case "pub.in":
		return kit.Point{X: g.pub.x - 1, Y: g.out}, true
	}
	return kit.Point{}, false
}

func (g *geometry) inside(p kit.Point) bool { return g.tape.contains(p) || g.pub.contains(p) }

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	// A blank column at each side, as the other scenes have.
	c := s.BlankInset()
	if c == nil {
		return ""
	}
	s.iw = c.Width()
	rows := s.H
	lanes := s.snap.Streams
	if s.H >= 6 {
		// What just happened, on up to three lines where the lanes leave
		// the rows: a sentence cut short while rows stand empty is never
		// read to its end.
		_, used := s.lanesFit(s.H - 1)
		n := max(min(3, s.H-used), 1)
		if len(lanes) == 0 {
			need := compactRows
			if s.iw >= minFullW {
				need = fullRows
			}
			n = max(min(3, s.H-need-1), 1)
		}
		if len(lanes) == 1 && s.iw >= minFullW {
			n = max(min(3, s.H-fullRows-s.titleRows(&lanes[0], now)+1), 1)
		}
		foot := s.footer(n)
		rows -= len(foot)
		s.drawFooter(c, foot, rows, now)
	}
	if len(lanes) == 0 {
		say := s.snap.Problem
		if say == "" {
			say = "waiting for the server"
		}
		if say == noStream {
			if n := kit.TryRows(s.iw, s.try.Lead, s.try.Lines...); n > 0 && n <= rows {
				c.Try(0, (rows-n)/2, s.iw, n, s.try.Lead, s.try.Lines...)
				return s.Inset(c)
			}
			say = s.try.Short
		}
		lines := text.WrapIn(s.iw, rows, say)
		y := max(min(rows/2, rows-len(lines)), 0)
		for _, l := range lines {
			c.Text(0, y, l, kit.Faint)
			y++
		}
		return s.Inset(c)
	}
	n := len(lanes)
	fit, _ := s.lanesFit(rows)
	switch fit {
	case fullSpaced:
		y := 0
		if n == 1 {
			y = (rows - fullRows) / 3
		}
		for i := range lanes {
			// A title too long for its row takes a second one where the
			// lane's spare row is free.
			two := n == 1 && y+fullRows < rows
			if two && s.drawFull(c, &lanes[i], y, 2, now) > 1 {
				y++
			}
			if !two {
				s.drawFull(c, &lanes[i], y, 1, now)
			}
			y += fullRows + 1
		}
	case fullTight:
		for i := range lanes {
			s.drawFull(c, &lanes[i], i*fullRows, 1, now)
		}
	case compact:
		for i := range lanes {
			s.drawCompact(c, &lanes[i], i*compactRows, now)
		}
	case oneLine:
		for i := 0; i < n && i < rows; i++ {
			if i == rows-1 && n > rows {
				more := "+" + strconv.Itoa(n-i) + " more streams"
				c.Text(0, i, text.Fit(s.iw, more+" (watch STREAM shows one)", more, "+"+strconv.Itoa(n-i)), kit.Faint)
				break
			}
			s.drawLine(c, &lanes[i], i)
		}
	}
	return s.Inset(c)
}

// laneFit is how the lanes are drawn in the rows they have.
type laneFit int

const (
	fullSpaced laneFit = iota // full lanes, a row between them
	fullTight                 // full lanes, no row between
	compact                   // one compact lane each
	oneLine                   // a line each, as many as fit
)

// lanesFit is how Draw lays the lanes out in rows, and how many of them
// they take: the footer has the rest.
func (s *Scene) lanesFit(rows int) (laneFit, int) {
	n := len(s.snap.Streams)
	switch {
	case s.iw >= minFullW && n*fullRows+(n-1) <= rows:
		return fullSpaced, n*fullRows + (n - 1)
	case s.iw >= minFullW && n*fullRows <= rows:
		return fullTight, n * fullRows
	case n*compactRows <= rows:
		return compact, n * compactRows
	}
	return oneLine, min(n, rows)
}

// down reports whether the server is drawn down: while it is, and for a
// moment after a restart, which takes milliseconds.
func (s *Scene) down(now time.Time) bool {
	return !s.snap.ServerUp || now.Before(s.downAt.Add(s.t.blink))
}

// summary is a lane's settings: what it captures and keeps, each a part,
// and whether it is the server's default (which gives way first where
// the row is short).
func summary(l *Lane) (parts []string, dflt []bool) {
	add := func(p string, d bool) { parts, dflt = append(parts, p), append(dflt, d) }
	switch {
	case l.Mirror:
		add("mirror of "+l.From[0], false)
	case len(l.From) > 0:
		add("sources "+strings.Join(l.From, ", "), false)
	}
	if len(l.Subjects) > 0 {
		add(strings.Join(l.Subjects, " "), false)
	}
	add(l.Storage, l.Storage == "file")
	if l.Retain != "limits" {
		add(l.Retain, false)
	}
	add("discard "+l.Discard, l.Discard == "old")
	if l.MaxMsgs > 0 {
		add("max msgs "+strconv.FormatInt(l.MaxMsgs, 10), false)
	}
	if l.PerSubj > 0 {
		add("per subject "+strconv.FormatInt(l.PerSubj, 10), false)
	}
	if l.MaxBytes > 0 {
		add("max bytes "+strconv.FormatInt(l.MaxBytes, 10), false)
	}
	if l.MaxAge > 0 {
		add("max age "+l.MaxAge.String(), false)
	}
	if l.Dupes > 0 {
		add("dupe window "+l.Dupes.String(), l.Dupes == 2*time.Minute)
	}
	return parts, dflt
}

// fitParts joins parts with " · " into at most n lines of w cells: all
// of them where they fit, else without the defaults, else the first that
// fit; a part is never cut.
func fitParts(parts []string, dflt []bool, w, n int) []string {
	try := func(keep func(i int) bool) []string {
		var lines []string
		line := ""
		for i, p := range parts {
			if !keep(i) {
				continue
			}
			switch {
			case line == "":
				line = p
			case runes(line)+3+runes(p) <= w:
				line += " · " + p
			default:
				lines = append(lines, line)
				line = p
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
		for _, l := range lines {
			if runes(l) > w {
				return nil
			}
		}
		if len(lines) > n {
			return nil
		}
		return lines
	}
	if lines := try(func(int) bool { return true }); lines != nil {
		return lines
	}
	if lines := try(func(i int) bool { return !dflt[i] }); lines != nil {
		return lines
	}
	// The first parts that fit on one line.
	var own []string
	for i, p := range parts {
		if !dflt[i] {
			own = append(own, p)
		}
	}
	if fit := text.Leading(w, " · ", own...); len(fit) > 0 {
		return []string{strings.Join(fit, " · ")}
	}
	return nil
}

// drawTitle is a lane's first row (or n rows): its name, its settings,
// its fate. It returns the rows it took.
func (s *Scene) drawTitle(c *kit.Canvas, l *Lane, y, n int, now time.Time) int {
	role := kit.Title
	if l.Gone != "" || l.Offline != "" {
		role = kit.NodeOff
	}
	x := c.Text(0, y, l.Name, role)
	x = c.Text(x, y, "  ", kit.Plain)
	role = kit.Faint
	switch {
	case l.Gone != "", l.Offline != "":
		role = kit.Bad
	case s.down(now):
		x = c.Text(x, y, downMark, s.role("server", kit.Bad, now))
	}
	lines := s.titleLines(l, n, now)
	for i, line := range lines {
		c.Text(x, y+i, line, role)
	}
	return max(len(lines), 1)
}

// downMark is what a lane's title says first while the server is down.
const downMark = "server down · "

// titleLines are a lane's settings after its name on at most n lines.
func (s *Scene) titleLines(l *Lane, n int, now time.Time) []string {
	x := runes(l.Name) + 2
	parts, dflt := summary(l)
	switch {
	case l.Gone != "":
		parts, dflt = append([]string{l.Gone}, parts...), append([]bool{false}, dflt...)
	case l.Offline != "":
		parts, dflt = append([]string{l.Offline}, parts...), append([]bool{false}, dflt...)
	case s.down(now):
		x += runes(downMark)
	}
	return fitParts(parts, dflt, s.iw-x, n)
}

// titleRows is how many rows a lane's title takes where it may take two.
func (s *Scene) titleRows(l *Lane, now time.Time) int {
	return max(len(s.titleLines(l, 2, now)), 1)
}

func (s *Scene) role(key string, role kit.Role, now time.Time) kit.Role {
	if s.flashes.On(key, now) {
		return kit.Flash
	}
	return role
}

// digits is how wide a lane's sequence numbers are drawn.
func digits(l *Lane) int { return max(len(strconv.FormatUint(l.Last+1, 10)), 2) }

// fadeGlyphs are a cell leaving the log, by shape so it reads without colour.
var fadeGlyphs = []string{"", "◍", "○", "◌", "·"}

func (s *Scene) drawFull(c *kit.Canvas, l *Lane, y, titleRows int, now time.Time) int {
	a := s.anim(l.Name)
	t := s.drawTitle(c, l, y, titleRows, now)
	y += t - 1
	const pubW = 11
	wire := min(max(s.iw/4, 12), 24) // room for an acknowledgement's label
	g := geometry{full: true, in: y + 2, out: y + 3}
	g.pub = rect{s.iw - pubW, y + 1, pubW, 3}
	g.tape = rect{0, y + 1, g.pub.x - wire, 3}
	down := s.down(now)

	nodeRole := kit.Node
	off := down || l.Gone != "" || l.Offline != ""
	if off {
		nodeRole = kit.NodeOff
	}
	// The wires: publishes travel left into the log's end, their
	// acknowledgements right, back to the publisher. A stream of copies
	// has its origins where the publisher would be, and no
	// acknowledgements: the server copies, no one is answered.
	x0, x1 := g.tape.x+g.tape.w, g.pub.x
	if off {
		c.HLine(x0, x1, g.in, '╌', kit.WireOff)
	} else {
		c.HLine(x0, x1, g.in, '─', kit.Wire)
		c.Set(x0, g.in, '◀', kit.Wire)
		if !l.Copies() {
			// A blank at each end: the wire runs along the boxes' bottom
			// row, and would read as their borders.
			c.HLine(x0+1, x1-1, g.out, '─', kit.Faint)
			c.Set(x1-2, g.out, '▶', kit.Faint)
		}
	}
	c.Box(g.pub.x, g.pub.y, g.pub.w, g.pub.h, kit.Node)
	from := "publisher"
	if l.Copies() {
		from = text.Fit(pubW-2, strings.Join(l.From, "+"), text.Count(len(l.From), "source", "sources"))
	}
	c.TextCenter(g.pub.x, g.pub.x+g.pub.w, g.in, from, kit.Strong)
	c.Box(g.tape.x, g.tape.y, g.tape.w, g.tape.h, nodeRole)
	s.drawTape(c, l, a, g.tape, now)

	a.movers.Draw(c, now, g.at, g.inside)
	s.drawAcks(c, a, &g, now)
	s.drawCounts(c, l, y+4, now)
	return t
}

// drawAcks draws the acknowledgements travelling back to the publisher,
// each with its label trailing behind it on its own wire.
func (s *Scene) drawAcks(c *kit.Canvas, a *anim, g *geometry, now time.Time) {
	x0 := g.tape.x + g.tape.w
	a.acks.Draw(c, now, g.at, g.inside)
	// Oldest first: the one ahead keeps its label when two are close.
	starts := make([]time.Time, 0, len(a.labels))
	for t := range a.labels {
		starts = append(starts, t)
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	free := func(x, n, y int) bool {
		for i := x; i < x+n; i++ {
			if r := c.At(i, y); r != '─' && r != ' ' && r != '▶' {
				return false
			}
		}
		return true
	}
	for _, start := range starts {
		label := a.labels[start]
		m := kit.Mover{Route: []string{"log.out", "pub.in"}, Legs: []time.Duration{s.t.leg}, Start: start}
		p, glyph, _, ok := m.Where(now, g.at)
		if !ok || glyph != '●' || g.inside(p) {
			continue
		}
		role := kit.Good
		switch {
		case strings.HasPrefix(label, "refused"):
			role = kit.Bad
		case strings.HasPrefix(label, "dup"):
			role = kit.Warn
		}
		// Behind it if there is room, else ahead of it.
		n := runes(label)
		if x := p.X - 1 - n; x >= x0 && free(x, n, p.Y) {
			c.Text(x, p.Y, label, role)
		} else if x := p.X + 2; x+n < g.pub.x && free(x, n, p.Y) {
			c.Text(x, p.Y, label, role)
		}
	}
}

// drawTape draws the log's cells inside r: the newest at the right end,
// older ones to the left, gaps where messages were removed, and cells
// fading where they left.
func (s *Scene) drawTape(c *kit.Canvas, l *Lane, a *anim, r rect, now time.Time) {
	row := r.y + r.h/2
	left, right := r.x+1, r.x+r.w-1 // inside the frame
	dg := digits(l)
	cw := dg + 3 // "│ 12 "
	head := a.head.at(now)
	drawn := 0
	oldest := uint64(0)
	for seq := l.Last; seq >= 1; seq-- {
		pos := right - int((head-float64(seq)+1)*float64(cw)+0.5)
		if pos >= right-1 {
			continue // not slid in yet
		}
		if pos <= left {
			break
		}
		fadeAt, fading := a.gone[seq]
		fading = fading && now.Before(fadeAt.Add(s.t.fade))
		holds := l.Holds(seq)
		if !holds && !fading && (seq < l.First || l.Gone != "") {
			continue // not stored, and not leaving now: nothing to draw
		}
		text, role := "·", kit.Faint
		switch {
		case holds:
			text, role = strconv.FormatUint(seq, 10), kit.Kept
			if s.flashes.On(cellKey(l.Name, seq), now) {
				role = kit.Flash
			}
			oldest = seq
			drawn++
		case fading:
			f := float64(now.Sub(fadeAt)) / float64(s.t.fade)
			i := max(min(int(f*float64(len(fadeGlyphs))), len(fadeGlyphs)-1), 0)
			text, role = fadeGlyphs[i], kit.Faint
			if i == 0 {
				text, role = strconv.FormatUint(seq, 10), kit.Bad
			}
			if seq < l.First && i == len(fadeGlyphs)-1 {
				continue
			}
		}
		// A cell sliding in is cut at the frame.
		c.Set(pos, row, '│', kit.Faint)
		x := pos + 1 + (cw-1-runes(text))/2
		for _, r := range text {
			if x < right {
				c.Set(x, row, r, role)
			}
			x++
		}
	}
	if oldest > l.First && l.Msgs > uint64(drawn) {
		c.Text(left, row, "…", kit.Faint)
	}
	if l.Msgs == 0 && !a.fading(now, s.t.fade) {
		next := seqLabel(l.Last + 1)
		says := []string{"empty · the next message gets " + next, "empty · next is " + next, "empty"}
		if l.Mirror {
			// A copy takes its number from the origin, which may have
			// gone past the mirror's last.
			says = []string{"empty · copies keep their numbers from " + l.From[0], "empty · numbered as " + l.From[0], "empty"}
		}
		if l.Unread {
			says = []string{"offline · what it holds waits on its nodes", "offline · not read yet", "offline"}
		}
		if l.Gone != "" {
			says = []string{"gone"}
			if l.Had > 0 {
				says = []string{"gone · it held " + text.Count(l.Had, "message", "messages"), "gone"}
			}
		}
		c.TextCenter(left, right, row, text.Fit(right-left, says...), kit.Faint)
	}
}

// drawCounts is the row under a log: the broker's numbers on the left,
// what publishers heard back on the right.
func (s *Scene) drawCounts(c *kit.Canvas, l *Lane, y int, now time.Time) {
	x := 0
	item := func(label, value string, role kit.Role, key string) {
		if x > 0 {
			x = c.Text(x, y, " · ", kit.Faint)
		}
		x = c.Text(x, y, label+" ", kit.Plain)
		x = c.Text(x, y, value, s.role(key, role, now))
	}
	if l.Gone != "" || l.Unread {
		return
	}
	if l.Msgs > 0 {
		item("first", seqLabel(l.First), kit.Strong, "")
		item("last", seqLabel(l.Last), kit.Strong, "")
	} else {
		item("last", seqLabel(l.Last), kit.Strong, "")
	}
	item("messages", strconv.FormatUint(l.Msgs, 10), kit.Kept, "")
	seen := l.Seen
	var parts []struct {
		label, value string
		role         kit.Role
		key          string
	}
	add := func(label string, v uint64, role kit.Role, key string) {
		parts = append(parts, struct {
			label, value string
			role         kit.Role
			key          string
		}{label, strconv.FormatUint(v, 10), role, key})
	}
	if !l.Copies() {
		add("acks", seen.Acked, kit.Good, "acks:"+l.Name)
	}
	if seen.Dups > 0 {
		add("duplicates", seen.Dups, kit.Warn, "dups:"+l.Name)
	}
	if seen.Refused > 0 {
		add("refused", seen.Refused, kit.Bad, "refused:"+l.Name)
	}
	// Where they do not all fit beside the broker's numbers, the acks go
	// first: duplicates and refusals are what the lesson is about.
	rx := 0
	for ; len(parts) > 0; parts = parts[1:] {
		width := 0
		for i, p := range parts {
			if i > 0 {
				width += 3
			}
			width += runes(p.label) + 1 + runes(p.value)
		}
		if rx = s.iw - width; rx >= x+3 { // under the box, and its margin
			break
		}
	}
	for i, p := range parts {
		if i > 0 {
			rx = c.Text(rx, y, " · ", kit.Faint)
		}
		rx = c.Text(rx, y, p.label+" ", kit.Plain)
		rx = c.Text(rx, y, p.value, s.role(p.key, p.role, now))
	}
}

// drawCompact is a lane in two rows: its name and numbers, then the log's
// newest cells beside the publisher.
func (s *Scene) drawCompact(c *kit.Canvas, l *Lane, y int, now time.Time) {
	a := s.anim(l.Name)
	role := kit.Title
	if l.Gone != "" {
		role = kit.NodeOff
	}
	x := c.Text(0, y, l.Name, role)
	// What publishers heard back that the log does not show (duplicates
	// and refusals), in shorter words before it gives way, then without
	// the count of messages (the range says it).
	heard := func(count bool, dups, refused string) []string {
		out := []string{seqRange(l)}
		if count {
			out = append(out, text.Count(l.Msgs, "msg", "msgs"))
		}
		if l.Seen.Dups > 0 {
			out = append(out, dups+" "+strconv.FormatUint(l.Seen.Dups, 10))
		}
		if l.Seen.Refused > 0 {
			out = append(out, refused+" "+strconv.FormatUint(l.Seen.Refused, 10))
		}
		return out
	}
	tries := [][]string{heard(true, "duplicates", "refused"), heard(true, "dups", "refused"), heard(false, "dups", "refused")}
	if l.Offline != "" {
		tries = [][]string{append([]string{l.Offline}, heard(true, "dups", "refused")...), append([]string{"offline"}, heard(true, "dups", "refused")...), {"offline"}}
		if l.Unread {
			tries = [][]string{{l.Offline}, {"offline"}}
		}
	}
	if l.Gone != "" {
		tries = nil
		for _, g := range gone(l) {
			tries = append(tries, []string{g})
		}
	}
	for i, parts := range tries {
		lines := fitParts(parts, make([]bool, len(parts)), s.iw-x-1, 1)
		if len(lines) > 0 && (lines[0] == strings.Join(parts, " · ") || i == len(tries)-1) {
			c.Text(x+1, y, lines[0], kit.Faint)
			break
		}
	}
	pub := "[pub]"
	if l.Copies() {
		// Copies come from there, not from publishers.
		pub = "[" + strings.Join(l.From, "+") + "]"
		if len(pub) > max(s.iw/4, 6) || !ascii(pub) {
			pub = "[copy]"
		}
	}
	g := geometry{in: y + 1}
	g.pub = rect{s.iw - len(pub), y + 1, len(pub), 1}
	wire := min(max(s.iw/6, 5), 12)
	g.tape = rect{0, y + 1, g.pub.x - wire, 1}
	c.Text(g.pub.x, g.pub.y, pub, kit.Node)
	c.HLine(g.tape.w, g.pub.x, g.in, '─', kit.Wire)
	c.Set(g.tape.w, g.in, '◀', kit.Wire)
	// The tape without a frame: its inside is the row itself.
	s.drawTape(c, l, a, rect{g.tape.x - 1, g.tape.y, g.tape.w + 1, 1}, now)
	a.movers.Draw(c, now, g.at, g.inside)
}

// seqRange is "#6…#10", or "empty after #10".
func seqRange(l *Lane) string {
	if l.Msgs == 0 {
		return "empty after " + seqLabel(l.Last)
	}
	if l.First == l.Last {
		return seqLabel(l.First)
	}
	return seqLabel(l.First) + "…" + seqLabel(l.Last)
}

// drawLine is a lane in one line of text.
func (s *Scene) drawLine(c *kit.Canvas, l *Lane, y int) {
	parts := []string{seqRange(l), text.Count(l.Msgs, "msg", "msgs")}
	switch {
	case l.Unread:
		parts = []string{text.Fit(s.iw-runes(l.Name)-1, l.Offline, "offline")}
	case l.Offline != "":
		parts = append([]string{"offline"}, parts...)
	}
	if l.Gone != "" {
		parts = []string{text.Fit(s.iw-runes(l.Name)-1, gone(l)...)}
	}
	line := l.Name
	if lines := fitParts(parts, make([]bool, len(parts)), s.iw-runes(l.Name)-1, 1); len(lines) > 0 {
		line += " " + lines[0]
	}
	c.Text(0, y, kit.Clip(line, s.iw), kit.Plain)
}

// gone is why a lane's stream is gone, in its wordings, the fullest
// first: "gone in the restart: memory storage", then "gone in the
// restart".
func gone(l *Lane) []string {
	if short, _, ok := strings.Cut(l.Gone, ": "); ok {
		return []string{l.Gone, short}
	}
	return []string{l.Gone}
}

// footer is the bottom lines, at most n: what just happened, or why
// nothing can; all of it where it fits, else its newest part, else its
// first words.
func (s *Scene) footer(n int) []string {
	story := s.snap.Story
	texts := []string{story}
	if i := strings.LastIndex(story, "; "); i >= 0 {
		texts = append(texts, story[i+2:])
	}
	switch {
	case !s.snap.ServerUp:
		texts = []string{"the server is down: the logs on disk wait for it, those in memory are gone", "the server is down"}
	case s.snap.Problem != "" && len(s.snap.Streams) > 0:
		texts = []string{s.snap.Problem}
	case s.snap.Sampled > 0 && story == "":
		texts = []string{"flood: the animation shows a sample; sequences and counts are the broker's", "flood: the animation shows a sample"}
	case story == "":
		texts = numbering(s.snap.Streams)
	}
	return text.WrapIn(s.iw, n, texts...)
}

// numbering says how the logs on screen number their messages, longest
// wording first: the next sequence number, except in a mirror, which
// keeps its origin's (gaps and all); a stream with sources numbers its
// copies its own way.
func numbering(lanes []Lane) []string {
	mirror, sources := false, false
	for i := range lanes {
		mirror = mirror || lanes[i].Mirror
		sources = sources || (len(lanes[i].From) > 0 && !lanes[i].Mirror)
	}
	switch {
	case mirror && sources:
		return []string{"a mirror keeps its origin's sequence numbers; a stream with sources numbers its copies its own way",
			"a mirror keeps its origin's numbers; sources are renumbered", "a mirror keeps its origin's numbers"}
	case mirror:
		return []string{"each message stored gets the next sequence number; a mirror keeps its origin's",
			"a mirror keeps the sequence numbers of its origin", "a mirror keeps its origin's numbers"}
	case sources:
		return []string{"each message stored gets the next sequence number, copies from sources too",
			"copies from sources get the next sequence number too", "each message gets the next sequence number"}
	}
	return []string{"each message stored gets the next sequence number at the log's end", "each message stored gets the next sequence number", "each message gets the next sequence number"}
}

// drawFooter draws the footer's lines from row y.
func (s *Scene) drawFooter(c *kit.Canvas, lines []string, y int, now time.Time) {
	role := kit.Faint
	if !s.snap.ServerUp || (s.snap.Problem != "" && len(s.snap.Streams) > 0) {
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

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
