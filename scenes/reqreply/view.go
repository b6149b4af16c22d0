package reqreply

import (
	"strings"
	"time"
	"unicode/utf8"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// box is one component: its place on the canvas.
type box struct{ x, y, w, h int }

func (b box) contains(x, y int) bool { return x >= b.x && x < b.x+b.w && y >= b.y && y < b.y+b.h }
func (b box) mid() int               { return b.x + b.w/2 }

// plan is where things go at the current size.
type plan struct {
	full          bool
	req, srv, rsp box
	up, dn        int    // the rows requests and replies travel on
	rspName       string // the compact picture's responders node
}

func (p *plan) inside(q kit.Point) bool {
	return p.req.contains(q.X, q.Y) || p.srv.contains(q.X, q.Y) || p.rsp.contains(q.X, q.Y)
}

// at resolves the waypoints. Messages travel the wires between the boxes:
// "req" is the requester's right edge, "srv.in" and "srv.out" the server's
// left and right edges, "resp" the responders' left edge; ".up" is the
// requests' row, ".dn" the replies'.
func (p *plan) at(name string) (kit.Point, bool) {
	where, row, ok := strings.Cut(name, ".")
	if !ok {
		return kit.Point{}, false
	}
	if i := strings.LastIndexByte(row, '.'); i >= 0 {
		where, row = where+"."+row[:i], row[i+1:]
	}
	y := p.up
	if row == "dn" {
		y = p.dn
	}
	switch where {
	case "req":
		return kit.Point{X: p.req.x + p.req.w, Y: y}, true
	case "srv.in":
		return kit.Point{X: p.srv.x - 1, Y: y}, true
	case "srv.out":
		return kit.Point{X: p.srv.x + p.srv.w, Y: y}, true
	case "resp":
		return kit.Point{X: p.rsp.x - 1, Y: y}, true
	}
	return kit.Point{}, false
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// The sizes the full picture needs.
const (
	fullRows = 9
	boxRows  = 5
)

func (s *Scene) layout() (plan, bool) {
	name := s.snap.LastRequester
	if name == "" {
		name = "requester"
	}
	reqW := min(max(runes(name)+4, 13), 22)
	srvW := 10
	rspW := 18
	for i, l := range responderLabels(s.snap.Responders, 1<<10) {
		rspW = max(rspW, runes(l)+runes(itoa(s.snap.Responders[i].Msgs))+6)
	}
	rspW = min(max(rspW, runes(groups(s.snap.Responders))+4), 34)
	if s.H >= fullRows {
		minWire := 6
		room := s.W - 2 - reqW - srvW - 2*minWire
		if room < rspW {
			rspW = max(room, 16)
		}
		if reqW+srvW+rspW+2*minWire <= s.W-2 {
			extra := s.W - 2 - reqW - srvW - rspW - 2*minWire
			wire := minWire + min(extra/2, 22)
			total := reqW + srvW + rspW + 2*wire
			x := (s.W - total) / 2
			y := 1 + (s.H-fullRows)/3
			p := plan{full: true, up: y + 1, dn: y + 3}
			p.req = box{x, y, reqW, boxRows}
			p.srv = box{x + reqW + wire, y, srvW, boxRows}
			p.rsp = box{p.srv.x + srvW + wire, y, rspW, boxRows}
			return p, true
		}
	}
	// The responders' node says how many there are, as the full
	// picture's box does, where the row has room for it.
	names := []string{"[nobody]"}
	if n := len(s.snap.Responders); n > 0 {
		names = []string{"[" + text.Count(n, "responder", "responders") + "]", "[responders]"}
	}
	for _, name := range names {
		if s.H < 3 {
			break
		}
		parts := []int{runes("[requester]"), runes("[server]"), runes(name)}
		sum := parts[0] + parts[1] + parts[2]
		// A blank column at each side: "[requester]" run up to the
		// pane's border reads as part of it.
		if sum+2*4 <= s.W-2 {
			wire := min(4+(s.W-2-sum-8)/2, 14)
			x := (s.W - sum - 2*wire) / 2
			p := plan{up: 0, dn: 1, rspName: name}
			p.req = box{x, 0, parts[0], 1}
			p.srv = box{x + parts[0] + wire, 0, parts[1], 1}
			p.rsp = box{p.srv.x + parts[1] + wire, 0, parts[2], 1}
			return p, true
		}
	}
	return plan{}, false
}

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	p, ok := s.layout()
	if !ok {
		s.drawLine(c, 0)
		return c.Render(s.Styles)
	}
	if p.full {
		s.drawFull(c, &p, now)
	} else {
		s.drawCompact(c, &p, now)
	}
	s.movers.Draw(c, now, p.at, p.inside)
	return c.Render(s.Styles)
}

func (s *Scene) role(key string, role kit.Role, now time.Time) kit.Role {
	if s.flashes.On(key, now) {
		return kit.Flash
	}
	return role
}

// drawWire draws a live wire from x0 to x1 (exclusive) pointing right or
// left, with a word on it when there is room.
func drawWire(c *kit.Canvas, x0, x1, y int, right bool, word string, role kit.Role) {
	if x1-x0 < 2 {
		return
	}
	c.HLine(x0, x1, y, '─', role)
	if right {
		c.Set(x1-1, y, '▶', role)
	} else {
		c.Set(x0, y, '◀', role)
	}
	if n := runes(word); word != "" && n+4 <= x1-x0 {
		c.Text(x0+(x1-x0-n)/2, y, word, kit.Faint)
	}
}

// drawBroken draws the wire to nobody: cut, with a cross.
func drawBroken(c *kit.Canvas, x0, x1, y int) {
	if x1-x0 < 3 {
		return
	}
	g := (x0 + x1) / 2
	c.HLine(x0, g, y, '─', kit.Wire)
	c.Set(g, y, '╳', kit.Bad)
	c.HLine(g+1, x1, y, '╌', kit.WireOff)
}

func (s *Scene) drawFull(c *kit.Canvas, p *plan, now time.Time) {
	n := s.snap
	up := n.ServerUp
	s.drawCounts(c, 0, now)

	nodeRole := kit.Node
	if !up {
		nodeRole = kit.NodeOff
	}
	has := len(n.Responders) > 0
	// Wires first, boxes over their ends.
	inbox := "_INBOX.…"
	if up {
		drawWire(c, p.req.x+p.req.w, p.srv.x, p.up, true, n.Subject, kit.Wire)
		drawWire(c, p.req.x+p.req.w, p.srv.x, p.dn, false, inbox, kit.Wire)
		if has {
			drawWire(c, p.srv.x+p.srv.w, p.rsp.x, p.up, true, n.Subject, kit.Wire)
			drawWire(c, p.srv.x+p.srv.w, p.rsp.x, p.dn, false, inbox, kit.Wire)
		} else {
			drawBroken(c, p.srv.x+p.srv.w, p.rsp.x, p.up)
		}
	} else {
		c.HLine(p.req.x+p.req.w, p.srv.x, p.up, '╌', kit.WireOff)
		c.HLine(p.srv.x+p.srv.w, p.rsp.x, p.up, '╌', kit.WireOff)
	}

	// The requester.
	c.Box(p.req.x, p.req.y, p.req.w, p.req.h, kit.Node)
	c.Text(p.req.x+1, p.req.y, " requester ", kit.Strong)
	who := n.LastRequester
	if who == "" {
		who = "anyone"
	}
	c.TextCenter(p.req.x, p.req.x+p.req.w, p.req.y+2, kit.Clip(who, p.req.w-2), kit.Plain)

	// The server.
	c.Box(p.srv.x, p.srv.y, p.srv.w, p.srv.h, s.role("server", nodeRole, now))
	label := "server"
	if !up {
		label = "down"
	}
	c.TextCenter(p.srv.x, p.srv.x+p.srv.w, p.srv.y+2, label, s.role("server", nodeRole, now))

	if s.flashes.On("bounce", now) && p.srv.y > 1 {
		// Over the server, while the bounce travels back.
		note := "no responders"
		c.Text(p.srv.mid()-runes(note)/2, p.srv.y-1, note, kit.Bad)
	}

	// The responders.
	rspRole := nodeRole
	title := " responders "
	if has {
		title = " " + text.Count(len(n.Responders), "responder", "responders") + " "
	} else {
		rspRole = kit.NodeOff
	}
	c.Box(p.rsp.x, p.rsp.y, p.rsp.w, p.rsp.h, rspRole)
	c.Text(p.rsp.x+1, p.rsp.y, kit.Clip(title, p.rsp.w-2), s.role("responders", kit.Strong, now))
	inner := p.rsp.w - 4
	if !has {
		c.TextCenter(p.rsp.x, p.rsp.x+p.rsp.w, p.rsp.y+2, "nobody", kit.Bad)
		c.TextCenter(p.rsp.x, p.rsp.x+p.rsp.w, p.rsp.y+3, kit.Clip("on "+n.Subject, p.rsp.w-2), kit.Faint)
	}
	// How the responders share the requests, on the box's bottom edge.
	// In the words that fit whole: "NATS-RPLY…" would read as another
	// group.
	if gs := groupsIn(n.Responders); gs[0] != "" {
		say := " " + gs[len(gs)-1] + " "
		for _, g := range gs {
			if text.Width(g)+2 <= p.rsp.w-2 {
				say = " " + g + " "
				break
			}
		}
		c.Text(p.rsp.x+1, p.rsp.y+p.rsp.h-1, kit.Clip(say, p.rsp.w-2), kit.Faint)
	}
	shown := n.Responders
	if len(shown) > 3 {
		shown = shown[:2]
	}
	room := inner - 1
	for _, r := range shown {
		room = min(room, inner-runes(itoa(r.Msgs))-1)
	}
	labels := responderLabels(shown, room)
	for i, r := range n.Responders {
		y := p.rsp.y + 1 + i
		if i == 2 && len(n.Responders) > 3 {
			c.Text(p.rsp.x+2, y, kit.Clip("+"+itoa(len(n.Responders)-2)+" more", inner), kit.Faint)
			break
		}
		count := itoa(r.Msgs)
		c.Text(p.rsp.x+2, y, labels[i], kit.Plain)
		c.TextRight(p.rsp.x+p.rsp.w-2, y, count, s.role("resp:"+itoa(r.Cid), kit.Good, now))
	}

	// Under the boxes: the reply subject of the latest request, on the
	// rows the story leaves.
	y := p.req.y + p.req.h
	top := s.drawStory(c, min(y+1, s.H-1), s.H-1, now)
	if y < top {
		say := []string{"each request carries a reply subject: the requester's private inbox",
			"replies go to the requester's private inbox"}
		if n.LastInbox != "" {
			say = []string{"reply subject " + n.LastInbox}
		}
		for i, l := range text.WrapIn(s.W-p.req.x-1, top-y, say...) {
			c.Text(p.req.x, y+i, l, kit.Faint)
		}
	}
}

// responderLabels are the responders' names as drawn in room cells,
// each told apart from the others: two connections of one name ("natslab
// reply time" twice, or names cut to the same "natslab …") show their
// client ids, the server's own for each ("conn 7 · natslab reply time",
// or "conn 7" alone where the name has no room beside it), and two
// subscriptions of one connection their subjects too.
func responderLabels(rs []Responder, room int) []string {
	out := make([]string, len(rs))
	seen := map[string]int{}
	conns := map[uint64]int{}
	for i, r := range rs {
		out[i] = kit.Clip(r.Name, room)
		seen[out[i]]++
		conns[r.Cid]++
	}
	for i, r := range rs {
		if seen[out[i]] == 1 {
			continue
		}
		id := "conn " + itoa(r.Cid)
		if conns[r.Cid] > 1 {
			id += " " + r.Subject
		}
		if out[i] = text.Fit(room, id+" · "+r.Name, id); out[i] == "" {
			out[i] = kit.Clip(id, room)
		}
	}
	return out
}

// drawCounts is the row of numbers: requests, replies, the last round
// trip; those the row has no room for are left out whole.
func (s *Scene) drawCounts(c *kit.Canvas, y int, now time.Time) {
	n := s.snap
	x := 1
	item := func(label, value, key string, role kit.Role) {
		w := utf8.RuneCountInString(label + " " + value)
		if x > 1 {
			w += 3
		}
		if x+w > s.W-1 {
			return
		}
		if x > 1 {
			x = c.Text(x, y, " · ", kit.Faint)
		}
		x = c.Text(x, y, label+" ", kit.Plain)
		x = c.Text(x, y, value, s.role(key, role, now))
	}
	item("requests", itoa(n.Requests), "requests", kit.Msg)
	item("replies", itoa(n.Replies), "replies", kit.Good)
	if n.LastRTT > 0 {
		item("last round trip", fmtRTT(n.LastRTT), "rtt", kit.Strong)
	}
	if n.Bounced > 0 {
		item("bounced", itoa(n.Bounced), "bounced", kit.Bad)
	}
	if n.Unanswered > 0 {
		item("no reply", itoa(n.Unanswered), "unanswered", kit.Warn)
	}
}

// drawStory is the bottom lines, from top to bottom at most: what just
// happened, or what would, in whole words, as many rows as it needs. It
// returns the first row it took.
func (s *Scene) drawStory(c *kit.Canvas, top, bottom int, now time.Time) int {
	n := s.snap
	say, role := n.Story, kit.Faint
	switch {
	case !n.ServerUp:
		say, role = "the server is down: requests reach no one until it is back", kit.Bad
	case say == "" && len(n.Responders) == 0:
		say = "nobody subscribes to " + n.Subject + ": a request there bounces at once (no responders)"
	case say == "":
		say = "a request goes to one responder (one per queue group); its reply comes back to the inbox"
	}
	if s.flashes.On("story", now) {
		role = kit.Strong
	}
	lines := text.WrapIn(s.W-2, bottom-top+1, say)
	y := bottom + 1 - len(lines)
	for i, l := range lines {
		c.Text(1, y+i, l, role)
	}
	return y
}

func (s *Scene) drawCompact(c *kit.Canvas, p *plan, now time.Time) {
	n := s.snap
	has := len(n.Responders) > 0
	c.Text(p.req.x, p.req.y, "[requester]", kit.Node)
	c.Text(p.srv.x, p.srv.y, "[server]", s.role("server", kit.Node, now))
	role := kit.Node
	if !has {
		role = kit.NodeOff
	}
	c.Text(p.rsp.x, p.rsp.y, p.rspName, s.role("responders", role, now))
	drawWire(c, p.req.x+p.req.w, p.srv.x, p.up, true, "", kit.Wire)
	drawWire(c, p.req.x+p.req.w, p.srv.x, p.dn, false, "", kit.Wire)
	if has {
		drawWire(c, p.srv.x+p.srv.w, p.rsp.x, p.up, true, "", kit.Wire)
		drawWire(c, p.srv.x+p.srv.w, p.rsp.x, p.dn, false, "", kit.Wire)
	} else {
		drawBroken(c, p.srv.x+p.srv.w, p.rsp.x, p.up)
	}
	s.drawCounts(c, 2, now)
	if s.H >= 4 {
		s.drawStory(c, 3, s.H-1, now)
	}
}

// drawLine is the scene in one line, for the smallest panes.
func (s *Scene) drawLine(c *kit.Canvas, y int) {
	n := s.snap
	text := n.Subject + ": " + text.Count(len(n.Responders), "responder", "responders") +
		" · requests " + itoa(n.Requests) + " · replies " + itoa(n.Replies)
	if n.LastRTT > 0 {
		text += " · rtt " + fmtRTT(n.LastRTT)
	}
	c.Text(0, y, kit.Clip(text, s.W), kit.Plain)
}
