package core

import (
	"strconv"
	"strings"
	"time"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	footer, footerRole := s.footer(now)
	// The counts column is as wide as its numbers: its header may reach
	// left over the rows' own header when that leaves room.
	countW := 3
	for _, r := range s.rows {
		countW = max(countW, runes(strconv.FormatUint(r.sub.Msgs, 10)))
	}
	cols := s.columns(now)
	need, want := s.rowWidths(cols, countW)
	// The footer on as many rows as its words need (up to three), where
	// the picture above keeps all it shows with one.
	var lines []string
	p := s.layout(s.W, s.H, need, want, countW, min(len(footer), 1))
	if footer != "" {
		lines = text.WrapIn(s.W-2, 1, footer)
		for n := min(len(text.Wrap(footer, s.W-2)), 3); n > 1; n-- {
			if q := s.layout(s.W, s.H, need, want, countW, n); q.same(&p) {
				p, lines = q, text.WrapIn(s.W-2, n, footer)
				break
			}
		}
	}
	if p.level == levelLine {
		return s.Line(s.line(), kit.Plain)
	}
	if p.footer >= 0 {
		for i, l := range lines {
			c.Text(1, p.footer+i, l, footerRole)
		}
	}
	s.drawStatus(c, &p, now)
	if p.level == levelFull {
		s.drawDiagram(c, &p)
	}
	s.drawHeader(c, &p, cols)
	for i, y := range p.rowY {
		s.drawRow(c, &p, s.rows[i], y, cols, now)
	}
	if p.moreY >= 0 {
		c.Text(p.rowX, p.moreY, kit.Clip("+"+text.Count(p.more, "more subscription", "more subscriptions"), p.countX-p.rowX-1), kit.Faint)
	}
	if p.empty >= 0 {
		text, role := s.emptyText(), kit.Faint
		if !s.snap.Listed {
			role = kit.Warn
		} else if p.rowX+runes(text) >= p.w {
			text = "no subscriber"
		}
		x := c.Text(p.rowX, p.empty, kit.Clip(text, p.w-p.rowX-1), role)
		if more := ": what is published there is dropped"; s.snap.Listed && x+runes(more) < p.w {
			c.Text(x, p.empty, more, role)
		}
	}
	if p.histY >= 0 {
		s.drawHistory(c, &p, now)
	}
	if p.level == levelFull {
		at := s.resolver(&p)
		s.movers.Draw(c, now, at, func(q kit.Point) bool { return p.inside(q.X, q.Y) })
	}
	return c.Render(s.Styles)
}

// footer is the line under the scene: what keeps it from showing
// everything, if anything does.
func (s *Scene) footer(now time.Time) (string, kit.Role) {
	switch {
	case s.snap.Problem != "":
		return s.snap.Problem, kit.Bad
	case !s.snap.ServerUp:
		return "the server is down: the scene reconnects when it is back", kit.Bad
	case !s.sampledAt.IsZero() && now.Sub(s.sampledAt) < 2*time.Second:
		return "flood: the animation shows a sample, the counts are exact", kit.Faint
	}
	return "", kit.Plain
}

func (s *Scene) emptyText() string {
	if !s.snap.Listed {
		return "who subscribes is asked of the lab's own server: run natslab without --server to see the subscribers"
	}
	return "nobody subscribes to " + s.snap.Watch
}

// drawStatus is the top line: what the scene watches and its counts, as
// many as fit, the most telling first.
func (s *Scene) drawStatus(c *kit.Canvas, p *plan, now time.Time) {
	n := s.snap
	x := c.Text(1, 0, kit.Clip(n.Watch, p.w-2), kit.Strong)
	type part struct {
		label, value string
		role         kit.Role
		key          string
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	// Counts tick as their messages land on screen (landing).
	var delivered uint64
	for _, sub := range n.Subs {
		delivered += s.landing.shown(sub.Key, sub.Msgs, now)
	}
	parts := []part{{"published ", u(n.Published), kit.Msg, "published"}, {"delivered ", u(delivered), kit.Good, "delivered"}}
	if s.kind == Queues && len(s.rows) > 0 {
		// How many copies of each message the server hands out: one per
		// queue group, one per plain subscription.
		copies := len(groupSizes(s.rows))
		for _, r := range s.rows {
			if r.sub.Queue == "" {
				copies++
			}
		}
		role := kit.Plain
		if copies > 1 {
			role = kit.Warn
		}
		parts = append(parts, part{"each message: ", text.Count(copies, "copy", "copies"), role, ""})
	}
	if n.Listed {
		unheard := part{"no one listening ", u(s.landing.shown(unheardKey, n.Unheard, now)), kit.Bad, "unheard"}
		if s.kind == Hello {
			// The hello episode ends on it: it goes before delivered.
			parts = append(parts[:1], unheard, parts[1])
		} else {
			parts = append(parts, unheard)
		}
	}
	for _, pt := range parts {
		if x+3+runes(pt.label)+runes(pt.value) >= p.w {
			return
		}
		x = c.Text(x, 0, " · "+pt.label, kit.Plain)
		role := pt.role
		if pt.key != "" && s.flashes.On(pt.key, now) {
			role = kit.Flash
		}
		x = c.Text(x, 0, pt.value, role)
	}
}

// line is the whole scene in one line, for the smallest panes.
func (s *Scene) line() string {
	n := s.snap
	parts := []string{s.kind.info().name + ": " + n.Watch}
	if n.Listed {
		parts = append(parts, text.Count(len(n.Subs), "subscriber", "subscribers"))
	}
	parts = append(parts, "published "+strconv.FormatUint(n.Published, 10), "delivered "+strconv.FormatUint(n.Delivered(), 10))
	if n.Listed {
		parts = append(parts, "no one listening "+strconv.FormatUint(n.Unheard, 10))
	}
	return strings.Join(parts, " · ")
}

// drawDiagram draws the publisher, the server, the wires between and the
// trunk fanning out to each row.
func (s *Scene) drawDiagram(c *kit.Canvas, p *plan) {
	up := s.snap.ServerUp
	y := p.wire
	wireRole := kit.Wire
	if !up {
		wireRole = kit.WireOff
	}
	c.HLine(p.pub.x+p.pub.w, p.srv.x-1, y, '─', wireRole)
	c.Set(p.srv.x-1, y, '▶', wireRole)
	c.Box(p.pub.x, p.pub.y, p.pub.w, p.pub.h, kit.Node)
	c.TextCenter(p.pub.x, p.pub.x+p.pub.w, y, p.boxLabel(true), kit.Node)
	srvRole, srvLabel := kit.Node, p.boxLabel(false)
	if !up {
		srvRole, srvLabel = kit.NodeOff, "down"
	}
	c.Box(p.srv.x, p.srv.y, p.srv.w, p.srv.h, srvRole)
	c.TextCenter(p.srv.x, p.srv.x+p.srv.w, y, srvLabel, srvRole)
	if len(p.rowY) == 0 {
		// Nobody to hand a message to: the wire out of the server goes
		// nowhere.
		c.HLine(p.srv.x+p.srv.w, p.trunkX+1, y, '╌', kit.WireOff)
		return
	}
	c.HLine(p.srv.x+p.srv.w, p.trunkX, y, '─', wireRole)
	ys := append([]int(nil), p.rowY...)
	if p.moreY >= 0 {
		ys = append(ys, p.moreY)
	}
	top, bottom := min(ys[0], y), max(ys[len(ys)-1], y)
	isRow := map[int]bool{}
	for _, ry := range ys {
		isRow[ry] = true
	}
	for j := top; j <= bottom; j++ {
		c.Set(p.trunkX, j, junction(j > top, j < bottom, j == y, isRow[j]), wireRole)
	}
	for _, ry := range p.rowY {
		c.Set(p.trunkX+1, ry, '─', wireRole)
		c.Set(p.trunkX+2, ry, '▶', wireRole)
	}
	if p.moreY >= 0 {
		c.Set(p.trunkX+1, p.moreY, '╌', kit.Faint)
	}
}

// junction is the box-drawing character joining the directions given.
func junction(up, down, left, right bool) rune {
	switch {
	case up && down && left && right:
		return '┼'
	case up && down && left:
		return '┤'
	case up && down && right:
		return '├'
	case up && down:
		return '│'
	case down && left && right:
		return '┬'
	case down && right:
		return '┌'
	case down && left:
		return '┐'
	case up && left && right:
		return '┴'
	case up && right:
		return '└'
	case up && left:
		return '┘'
	}
	return '─'
}

// resolver places the waypoints messages travel between.
func (s *Scene) resolver(p *plan) kit.Resolver {
	rowAt := func(key string) (int, bool) {
		for i, y := range p.rowY {
			if s.rows[i].sub.Key == key {
				return y, true
			}
		}
		return 0, false
	}
	return func(name string) (kit.Point, bool) {
		switch name {
		case "pub":
			return kit.Point{X: p.pub.x + p.pub.w/2, Y: p.wire}, true
		case "srv":
			return kit.Point{X: p.srv.x + p.srv.w/2, Y: p.wire}, true
		case "void", "trunk":
			return kit.Point{X: p.trunkX, Y: p.wire}, true
		}
		if k, ok := strings.CutPrefix(name, "fork:"); ok {
			y, ok := rowAt(k)
			return kit.Point{X: p.trunkX, Y: y}, ok
		}
		if k, ok := strings.CutPrefix(name, "row:"); ok {
			y, ok := rowAt(k)
			return kit.Point{X: p.trunkX + 2, Y: y}, ok
		}
		return kit.Point{}, false
	}
}

// drawHeader labels the columns over the rows.
func (s *Scene) drawHeader(c *kit.Canvas, p *plan, cols columns) {
	if len(s.rows) == 0 {
		return
	}
	var end int // where the rows' header ends
	switch s.kind {
	case Wildcards:
		end = s.drawSubject(c, p, cols)
	case Queues:
		c.Text(p.rowX, p.header, "group", kit.Faint)
		end = c.Text(p.rowX+s.groupWidth(), p.header, "member", kit.Faint)
	default:
		end = p.rowX
		if p.rowX+runes("subscription received") < p.right {
			end = c.Text(p.rowX, p.header, "subscription", kit.Faint)
		}
	}
	for _, label := range []string{"received", "got"} {
		if p.right-runes(label) > end {
			c.TextRight(p.right, p.header, label, kit.Faint)
			return
		}
	}
}

// drawRow draws one subscription: what it is, and its count.
func (s *Scene) drawRow(c *kit.Canvas, p *plan, r row, y int, cols columns, now time.Time) {
	role := kit.Good
	if s.flashes.On("row:"+r.sub.Key, now) {
		role = kit.Flash
	}
	c.TextRight(p.right, y, strconv.FormatUint(s.landing.shown(r.sub.Key, r.sub.Msgs, now), 10), role)
	end := p.countX - 1 // text stops before the counts
	switch s.kind {
	case Wildcards:
		s.drawMatch(c, p, r, y, cols, end, now)
	case Queues:
		s.drawMember(c, p, r, y, end)
	default:
		// The connections' names in one column: the name where it fits,
		// else as many of its words as fit, or its connection's number.
		// Where connections share a name, the number tells them apart:
		// "conn 8 · …" twice would not; where even it has no room beside
		// the subject, and the subject is the one watched (the caption
		// says it), the number takes the subject's place.
		conn := "conn " + strconv.FormatUint(r.sub.Cid, 10)
		if s.label(r.sub) != r.sub.Label() && r.sub.Subject == s.snap.Watch && r.sub.Queue == "" &&
			end-(p.rowX+s.subjectWidth()+2)-1 < runes(conn) {
			c.Text(p.rowX, y, text.Fit(end-p.rowX, conn), kit.Faint)
			return
		}
		x := c.Text(p.rowX, y, kit.Clip(r.sub.Subject, end-p.rowX), kit.Strong)
		if r.sub.Queue != "" {
			x = c.Text(x, y, kit.Clip(" in queue "+r.sub.Queue, end-x), kit.Plain)
		}
		x = max(x+2, p.rowX+s.subjectWidth()+2)
		room := end - x - 1
		label := text.Fit(room, s.label(r.sub))
		if label == "" && s.label(r.sub) == r.sub.Label() {
			label = text.Words(r.sub.Label(), room)
		}
		if label == "" {
			label = text.Fit(room, conn)
		}
		c.Text(x, y, label, kit.Faint)
	}
}

// label names a subscription's connection; when several on screen share a
// name (two `sub tasks --queue workers`), their connection ids tell them
// apart.
func (s *Scene) label(sub Sub) string {
	l := sub.Label()
	if sub.Name == "" {
		return l
	}
	for _, r := range s.rows {
		if r.sub.Name == sub.Name && r.sub.Cid != sub.Cid {
			return "conn " + strconv.FormatUint(sub.Cid, 10) + " · " + l
		}
	}
	return l
}

// groupWidth is the width of the queue-groups scene's group column.
func (s *Scene) groupWidth() int {
	w := runes("no group")
	for _, r := range s.rows {
		w = max(w, runes(r.sub.Queue))
	}
	return min(w, 16) + 3
}

// drawMember draws a row of the queue-groups scene: a bracket joining the
// members of a group, the group's name on its first row, the member.
func (s *Scene) drawMember(c *kit.Canvas, p *plan, r row, y, end int) {
	gw := s.groupWidth()
	bracket := map[groupPos]rune{groupAlone: '╶', groupFirst: '┌', groupMiddle: '│', groupLast: '└'}
	if b, ok := bracket[r.pos]; ok {
		c.Set(p.rowX, y, b, kit.Strong)
	}
	switch r.pos {
	case noGroup:
		c.Text(p.rowX+2, y, "no group", kit.Faint)
	case groupAlone, groupFirst:
		c.Text(p.rowX+2, y, kit.Clip(r.sub.Queue, gw-3), kit.Strong)
	}
	// Where the member's name has no room beside its connection, the
	// connection alone tells the members apart: "conn 7 · …" says less.
	labels := []string{s.label(r.sub)}
	if l := r.sub.Label(); labels[0] != l {
		labels = append(labels, strings.TrimSuffix(labels[0], " · "+l))
	}
	if r.sub.Subject != s.snap.Watch {
		for i, l := range labels {
			labels[i] = r.sub.Subject + "  " + l
		}
	}
	room := end - p.rowX - gw
	label := text.Fit(room, labels...)
	if label == "" {
		label = kit.Clip(labels[len(labels)-1], room)
	}
	c.Text(p.rowX+gw, y, label, kit.Plain)
}

// put writes s from x, y, stopping before column end; it returns the
// column after what it wrote.
func put(c *kit.Canvas, x, y int, s string, role kit.Role, end int) int {
	for _, r := range s {
		if x >= end {
			break
		}
		c.Set(x, y, r, role)
		x++
	}
	return x
}
