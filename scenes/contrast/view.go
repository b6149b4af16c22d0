package contrast

import (
	"cmp"
	"strconv"
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
	area := rect{0, 0, s.W, s.H}
	if footer, role := s.footer(now); footer != "" && s.H >= 4 {
		// The footer takes the rows the lanes can spare, at least one;
		// what does not fit in them ends at a word.
		lanes := compactHeight
		if s.snap.Mode == Split {
			lanes *= 2
		}
		lines := text.WrapIn(s.W-2, max(s.H-lanes, 1), footer, cmp.Or(fewerWords[footer], footer))
		area.h -= len(lines)
		for i, l := range lines {
			c.Text(1, area.h+i, l, role)
		}
	}
	switch s.snap.Mode {
	case Core:
		s.drawLane(c, area, false, false, now)
	case JetStream:
		s.drawLane(c, area, true, false, now)
	default:
		full := s.fullHeight()
		if area.h >= 2*full+1 || area.w < 2*56+1 || area.h < compactHeight {
			// One above the other, the components in the same columns:
			// the difference between the two is the stream in between.
			top := rect{area.x, area.y, area.w, area.h / 2}
			s.drawLane(c, top, false, true, now)
			s.drawLane(c, rect{area.x, area.y + top.h, area.w, area.h - top.h}, true, false, now)
		} else {
			left := rect{area.x, area.y, (area.w - 1) / 2, area.h}
			s.drawLane(c, left, false, false, now)
			for y := area.y; y < area.y+area.h; y++ {
				c.Set(left.w, y, '│', kit.Faint)
			}
			s.drawLane(c, rect{left.w + 1, area.y, area.w - left.w - 1, area.h}, true, false, now)
		}
	}
	return c.Render(s.Styles)
}

// footer is the line under the scene: why the JetStream side cannot work,
// or that a flood is being sampled.
func (s *Scene) footer(now time.Time) (string, kit.Role) {
	if s.snap.Problem != "" && s.snap.Mode.showsJS() {
		return s.snap.Problem, kit.Bad
	}
	if !s.snap.ServerUp {
		return serverDown, kit.Bad
	}
	if !s.sampledAt.IsZero() && now.Before(s.sampledAt.Add(sampledFor)) {
		return flooded, kit.Faint
	}
	return "", kit.Plain
}

const (
	serverDown = "the server is down: the apps reconnect when it is back"
	flooded    = "flood: the animation shows a sample, the counts are exact"
)

// fewerWords are the footers in fewer words, for a pane with no rows for
// all of them: a shorter line read whole says more than a long one cut
// short.
var fewerWords = map[string]string{
	problemWaiting:      "no stream on events.>: stream add EVENTS",
	problemGone:         "no stream on events.>: scene reset adds it",
	problemJetStreamOff: "JetStream off: nats-server -js turns it on",
	problemNoAnswer:     "no answer from the server: trying again",
	serverDown:          "the server is down: the apps wait for it",
	flooded:             "flood: a sample is drawn, counts are exact",
}

// wire states.
const (
	wireLive = iota
	wireBroken
	wireDown
)

// drawLane draws one side in r. aligned lays the Core side out as the
// JetStream side would be, less the stream, so the two line up in a split.
func (s *Scene) drawLane(c *kit.Canvas, r rect, js, aligned bool, now time.Time) {
	if r.w <= 0 || r.h <= 0 {
		return
	}
	ln := &s.core
	if js {
		ln = &s.js
	}
	stream := s.snap.JS.Stream
	if stream == "" {
		stream = StreamName
	}
	p := s.layout(r, js || aligned, stream)
	if aligned {
		nodes := p.nodes[:0:0]
		for _, n := range p.nodes {
			if n.name != "stream" {
				nodes = append(nodes, n)
			}
		}
		p.nodes = nodes
	}
	if p.level == levelLine {
		s.drawLine(c, r, js)
		return
	}
	room := r.x + r.w - 1 - p.nodes[0].r.x // a blank column before the border
	title := text.Fit(room, "Core NATS · at most once", "Core NATS")
	if js {
		title = text.Fit(room, "JetStream · at least once · stream "+stream, "JetStream · stream "+stream, "JetStream · "+stream, "JetStream")
	}
	c.Text(p.nodes[0].r.x, p.title, title, kit.Title)

	up := s.snap.ServerUp
	online, ready := s.snap.Core.Online, true
	if js {
		online, ready = s.snap.JS.Online, s.snap.JS.Ready
	}
	// Wires first, then the boxes over their ends, then the messages.
	for i := 0; i+1 < len(p.nodes); i++ {
		a, b := p.nodes[i], p.nodes[i+1]
		state := wireLive
		switch {
		case !up:
			state = wireDown
		case b.name == "stream" && !ready:
			state = wireDown
		case b.name == "app" && !ready:
			state = wireDown
		case b.name == "app" && !online:
			state = wireBroken
		}
		drawWire(c, a.r.x+a.r.w, b.r.x, p.wire, state)
	}
	for _, n := range p.nodes {
		role := kit.Node
		switch {
		case !up && n.name != "pub":
			role = kit.NodeOff
		case n.name == "app" && (!online || !ready):
			role = kit.NodeOff
		case n.name == "stream" && !ready:
			role = kit.NodeOff
		}
		if p.level == levelCompact {
			c.Text(n.r.x, n.r.y, "["+n.label+"]", role)
			continue
		}
		c.Box(n.r.x, n.r.y, n.r.w, n.r.h, role)
		if n.name == "stream" {
			s.drawStream(c, n, role, now)
			continue
		}
		label := n.label
		if n.name == "srv" && !up {
			label = "down"
		}
		c.TextCenter(n.r.x, n.r.x+n.r.w, p.wire, kit.Clip(label, n.r.w-2), role)
	}
	at := func(name string) (kit.Point, bool) {
		if name == "gap" {
			srv, app := p.node("srv"), p.node("app")
			if srv == nil || app == nil {
				return kit.Point{}, false
			}
			return kit.Point{X: gapX(srv.r.x+srv.r.w, app.r.x) - 1, Y: p.wire}, true
		}
		n := p.node(name)
		if n == nil {
			return kit.Point{}, false
		}
		return kit.Point{X: n.r.x + n.r.w/2, Y: p.wire}, true
	}
	ln.movers.Wide = s.opts.Presenter && p.level == levelFull
	ln.movers.Draw(c, now, at, func(q kit.Point) bool { return p.inside(q.X, q.Y) })

	if p.level == levelCompact {
		s.drawCompactCounts(c, r, p, js, now)
		return
	}
	s.drawCounts(c, r, p, js, now)
}

// gapX is where a broken wire breaks.
func gapX(x0, x1 int) int { return (x0 + x1) / 2 }

func drawWire(c *kit.Canvas, x0, x1, y, state int) {
	if x1 <= x0 {
		return
	}
	switch state {
	case wireDown:
		c.HLine(x0, x1, y, '╌', kit.WireOff)
	case wireBroken:
		g := gapX(x0, x1)
		c.HLine(x0, g, y, '─', kit.Wire)
		c.Set(g, y, '╳', kit.Bad)
		c.HLine(g+1, x1, y, '╌', kit.WireOff)
	default:
		c.HLine(x0, x1-1, y, '─', kit.Wire)
		c.Set(x1-1, y, '▶', kit.Wire)
	}
}

// drawStream draws the stream's box: its name, the newest sequence numbers
// it holds (those the consumer has not had yet stand out), and how many
// messages it keeps.
func (s *Scene) drawStream(c *kit.Canvas, n node, role kit.Role, now time.Time) {
	js := s.snap.JS
	r := n.r
	c.Text(r.x+2, r.y, " "+kit.Clip(n.label, r.w-6)+" ", kit.Strong)
	mid := r.y + r.h/2
	if !js.Ready {
		c.TextCenter(r.x, r.x+r.w, mid, "–", role)
		return
	}
	count := "empty"
	if js.Msgs > 0 {
		count = text.Count(js.Msgs, "msg", "msgs")
	}
	c.TextRight(r.x+r.w-2, r.y+r.h-1, " "+count+" ", kit.Faint)
	if js.Msgs == 0 || js.LastSeq == 0 {
		return
	}
	inner := r.w - 4
	type tok struct {
		seq  uint64
		text string
	}
	var toks []tok
	used := 0
	first := max(js.FirstSeq, 1)
	for seq := js.LastSeq; seq >= first; seq-- {
		t := strconv.FormatUint(seq, 10)
		need := runes(t)
		if len(toks) > 0 {
			need++
		}
		more := 0
		if seq > first {
			more = 2 // room for "…" before it
		}
		if used+need+more > inner && len(toks) > 0 {
			break
		}
		toks = append(toks, tok{seq, t})
		used += need
		if seq == 0 {
			break
		}
	}
	x := r.x + 2 + inner - used
	if last := toks[len(toks)-1].seq; last > first {
		c.Text(x-2, mid, "…", kit.Faint)
	}
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		role := kit.Done
		if t.seq > js.Delivered {
			role = kit.Kept
		}
		if s.flashes.On(seqKey(t.seq), now) {
			role = kit.Flash
		}
		x = c.Text(x, mid, t.text, role) + 1
	}
}

func seqKey(seq uint64) string   { return "seq:" + strconv.FormatUint(seq, 10) }
func seqLabel(seq uint64) string { return "#" + strconv.FormatUint(seq, 10) }

// count is one labelled number by a component.
type count struct {
	label string
	value uint64
	role  kit.Role
	key   string // flash key
}

func (s *Scene) counts(js bool) (status string, statusRole kit.Role, cs []count) {
	if js {
		j := s.snap.JS
		status, statusRole = "● online", kit.Good
		switch {
		case !j.Ready:
			status, statusRole = waitingStatus, kit.Bad
		case !j.Online:
			status, statusRole = "○ offline", kit.Bad
		}
		cs = []count{{"received", j.Received, kit.Good, "js.received"}, {"pending", j.Pending, kit.Warn, "js.pending"}}
		if j.AckPending > 0 {
			cs = append(cs, count{"ack pending", j.AckPending, kit.Warn, "js.ackpending"})
		}
		if j.NotStored > 0 {
			cs = append(cs, count{"not stored", j.NotStored, kit.Bad, "js.notstored"})
		}
		return
	}
	status, statusRole = "● online", kit.Good
	if !s.snap.Core.Online {
		status, statusRole = "○ offline", kit.Bad
	}
	cs = []count{{"received", s.snap.Core.Received, kit.Good, "core.received"}, {"lost", s.snap.Core.Lost, kit.Bad, "core.lost"}}
	if s.snap.Core.Dropped > 0 {
		cs = append(cs, count{"dropped (too slow)", s.snap.Core.Dropped, kit.Bad, "core.dropped"})
	}
	return status, statusRole, cs
}

func (s *Scene) numberRole(cn count, now time.Time) kit.Role {
	if s.flashes.On(cn.key, now) {
		return kit.Flash
	}
	return cn.role
}

// drawCounts puts the counts under the components: how many were
// published under the publisher, the app's status and counts under the app.
func (s *Scene) drawCounts(c *kit.Canvas, r rect, p plan, js bool, now time.Time) {
	status, statusRole, cs := s.counts(js)
	pub, app := p.node("pub"), p.node("app")
	published := count{"published", s.snap.Published, kit.Msg, "published"}
	right := r.x + r.w
	if s.opts.Presenter {
		s.drawBig(c, pub.r.x, p.below+1, []count{published}, right, now)
		c.Text(fitX(app.r.x, runes(status), right), p.below, status, statusRole)
		s.drawBig(c, app.r.x, p.below+1, cs, right, now)
		return
	}
	// The app's status and counts form one block, moved left as a whole
	// when the app sits at the lane's right edge.
	width := runes(status)
	for _, cn := range cs {
		width = max(width, runes(cn.label)+runes(countText(cn.value)))
	}
	x := fitX(app.r.x, width, right)
	y := p.below
	s.drawCount(c, fitX(pub.r.x, runes(published.label)+runes(countText(published.value)), right), y, published, now)
	c.Text(x, y, status, statusRole)
	for i, cn := range cs {
		if y+1+i >= r.y+r.h {
			break
		}
		s.drawCount(c, x, y+1+i, cn, now)
	}
}

func countText(v uint64) string { return " " + strconv.FormatUint(v, 10) + " " }

// fitX moves text of width w left so it ends inside the lane.
func fitX(x, w, right int) int { return max(min(x, right-w-1), 0) }

func (s *Scene) drawCount(c *kit.Canvas, x, y int, cn count, now time.Time) {
	x = c.Text(x, y, cn.label, kit.Plain)
	c.Text(x, y, countText(cn.value), s.numberRole(cn, now))
}

// drawBig draws counts side by side, each a label over a number in big
// digits, for a room to read.
func (s *Scene) drawBig(c *kit.Canvas, x, y int, cs []count, right int, now time.Time) {
	widths := make([]int, len(cs))
	total := 0
	for i, cn := range cs {
		widths[i] = max(runes(cn.label), kit.BigWidth(strconv.FormatUint(cn.value, 10)))
		total += widths[i]
	}
	total += 3 * (len(cs) - 1)
	x = fitX(x, total, right)
	for i, cn := range cs {
		c.Text(x, y, cn.label, kit.Strong)
		c.Big(x, y+1, strconv.FormatUint(cn.value, 10), s.numberRole(cn, now))
		x += widths[i] + 3
	}
}

// waitingStatus is the JetStream app's status while no stream captures
// its subjects; shortStatus is how a narrow row says it.
const waitingStatus = "○ waiting for a stream"

func shortStatus(status string) string {
	if status == waitingStatus {
		return "○ no stream"
	}
	return status
}

// drawCompactCounts puts the app's status and counts on one row.
func (s *Scene) drawCompactCounts(c *kit.Canvas, r rect, p plan, js bool, now time.Time) {
	if p.below >= r.y+r.h {
		return
	}
	s.drawCountsRow(c, p.nodes[0].r.x, p.below, r.x+r.w-1, "", js, now)
}

// drawCountsRow writes a lane's name (if any), the app's status and its
// counts on row y from x, as many as end before right: counts that do not
// fit are left out whole, the last first, after the status has said it
// in fewer words.
func (s *Scene) drawCountsRow(c *kit.Canvas, x, y, right int, name string, js bool, now time.Time) {
	status, statusRole, cs := s.counts(js)
	width := func(status string, cs []count) int {
		w := runes(name) + runes(status)
		for _, cn := range cs {
			w += runes(" · "+cn.label+" ") + runes(strconv.FormatUint(cn.value, 10))
		}
		return w
	}
	room := right - x
	if width(status, cs) > room {
		status = shortStatus(status)
	}
	for len(cs) > 0 && width(status, cs) > room {
		cs = cs[:len(cs)-1]
	}
	if width(status, nil) > room {
		return
	}
	x = c.Text(x, y, name, kit.Strong)
	x = c.Text(x, y, status, statusRole)
	for _, cn := range cs {
		x = c.Text(x, y, " · "+cn.label+" ", kit.Plain)
		x = c.Text(x, y, strconv.FormatUint(cn.value, 10), s.numberRole(cn, now))
	}
}

// drawLine is a lane in one line of text, for the smallest panes.
func (s *Scene) drawLine(c *kit.Canvas, r rect, js bool) {
	name := "Core: "
	if js {
		name = "JetStream: "
	}
	x, right := r.x, r.x+r.w
	if r.w > 20 {
		x, right = x+1, right-1 // clear of the pane's borders
	}
	s.drawCountsRow(c, x, r.y, right, name, js, time.Time{})
}
