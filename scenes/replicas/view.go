package replicas

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// The picture, top to bottom: a caption about the stream on screen, the
// publishers, a bus that carries each message to the leader and from it to
// the followers, then one box per node listing its copy of every stream
// (◆ marks the leader's copy), then the counts and what just happened.
// Below minFullWidth × fullHeight it falls back to lines of text.

const (
	minFullWidth = 54
	pubW         = 14 // "╭────────────╮"
)

// geometry is where things are at the current size.
type geometry struct {
	busY, tickY, boxY, boxH int
	boxes                   []box
	pubX, pubY              int // the publishers' box
}

type box struct {
	name    string
	x, w    int
	centerX int
}

func (g *geometry) inside(p kit.Point) bool {
	if p.Y >= g.pubY && p.Y < g.pubY+3 && p.X >= g.pubX && p.X < g.pubX+pubW {
		return true
	}
	for _, b := range g.boxes {
		if p.Y >= g.boxY && p.Y < g.boxY+g.boxH && p.X >= b.x && p.X < b.x+b.w {
			return true
		}
	}
	return false
}

func (g *geometry) at(name string) (kit.Point, bool) {
	switch name {
	case "pub":
		return kit.Point{X: g.pubX + pubW/2, Y: g.pubY + 2}, true
	case "hub": // where the publishers' line meets the bus
		return kit.Point{X: g.pubX + pubW/2, Y: g.busY}, true
	}
	kind, node, ok := strings.Cut(name, ".")
	if !ok {
		return kit.Point{}, false
	}
	for _, b := range g.boxes {
		if b.name != node {
			continue
		}
		switch kind {
		case "bus":
			return kit.Point{X: b.centerX, Y: g.busY}, true
		case "tick":
			return kit.Point{X: b.centerX, Y: g.tickY}, true
		}
	}
	return kit.Point{}, false
}

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	rows := max(len(s.snap.Streams), 1)
	if s.W >= minFullWidth && s.H >= 9+rows {
		s.drawFull(c, rows, now)
	} else {
		s.drawLines(c, now)
	}
	return c.Render(s.Styles)
}

func (s *Scene) layout(rows int) geometry {
	g := geometry{pubY: 1, busY: 4, tickY: 5, boxY: 6, boxH: rows + 2}
	const gap = 2
	n := len(s.snap.Nodes)
	if n == 0 {
		return g
	}
	bw := (s.W - 2 - gap*(n-1)) / n
	bw = min(bw, 34)
	total := bw*n + gap*(n-1)
	x := (s.W - total) / 2
	for _, nv := range s.snap.Nodes {
		g.boxes = append(g.boxes, box{name: nv.Name, x: x, w: bw, centerX: x + bw/2})
		x += bw + gap
	}
	// The publishers sit over the middle node, their line straight down.
	g.pubX = g.boxes[n/2].centerX - pubW/2
	return g
}

func (s *Scene) drawFull(c *kit.Canvas, rows int, now time.Time) {
	g := s.layout(rows)
	c.Text(1, 0, kit.Clip(s.caption(), s.W-2), kit.Strong)

	// The publishers and the bus under them.
	c.Box(g.pubX, g.pubY, pubW, 3, kit.Node)
	c.TextCenter(g.pubX, g.pubX+pubW, g.pubY+1, "publishers", kit.Strong)
	first, last := g.boxes[0].centerX, g.boxes[len(g.boxes)-1].centerX
	c.HLine(first, last+1, g.busY, '─', kit.Wire)
	c.Set(first, g.busY, '┌', kit.Wire)
	c.Set(last, g.busY, '┐', kit.Wire)
	c.Set(g.pubX+pubW/2, g.pubY+2, '┬', kit.Node)
	c.Set(g.pubX+pubW/2, g.busY, '┴', kit.Wire)
	for i, b := range g.boxes {
		nv := s.snap.Nodes[i]
		if b.centerX != first && b.centerX != last && b.centerX != g.pubX+pubW/2 {
			c.Set(b.centerX, g.busY, '┬', kit.Wire)
		} else if b.centerX == g.pubX+pubW/2 {
			c.Set(b.centerX, g.busY, '┼', kit.Wire)
		}
		if nv.Up {
			c.Set(b.centerX, g.tickY, '▼', kit.Wire)
		} else {
			c.Set(b.centerX, g.tickY, '╳', kit.WireOff)
		}
		s.drawNode(c, g, b, nv, now)
	}
	s.movers.Draw(c, now, g.at, g.inside)

	y := g.boxY + g.boxH
	for _, line := range s.notes(now) {
		if y >= s.H {
			break
		}
		c.Text(1, y, kit.Clip(line.text, s.W-2), line.role)
		y++
	}
}

// drawNode draws one node's box: its name, a row per stream, its status.
func (s *Scene) drawNode(c *kit.Canvas, g geometry, b box, nv NodeView, now time.Time) {
	role := kit.Node
	if !nv.Up {
		role = kit.NodeOff
	}
	c.Box(b.x, g.boxY, b.w, g.boxH, role)
	head := kit.Strong
	if s.flashes.On("node."+nv.Name, now) {
		head = kit.Flash
	}
	if !nv.Up {
		head = kit.NodeOff
	}
	c.Text(b.x+2, g.boxY, " "+nv.Name+" ", head)
	status, srole := " up ", kit.Good
	if !nv.Up {
		status, srole = " down ", kit.Bad
	}
	c.TextRight(b.x+b.w-2, g.boxY+g.boxH-1, status, srole)
	inner := b.w - 4
	if inner < 6 {
		return
	}
	if len(s.snap.Streams) == 0 {
		c.Text(b.x+2, g.boxY+1, kit.Clip("no streams", inner), kit.Faint)
		return
	}
	for i, st := range s.snap.Streams {
		y := g.boxY + 1 + i
		right, rrole := "—", kit.Faint
		cp, ok := nv.Copies[st]
		if ok {
			right, rrole = strconv.FormatUint(cp.Seq, 10), kit.Plain
			switch {
			case cp.Stale:
				rrole = kit.Faint
			case cp.Leader:
				right, rrole = "◆ "+right, kit.Good
			case cp.Behind:
				right, rrole = "… "+right, kit.Warn
			}
			if s.flashes.On(seqKey(nv.Name, st), now) || s.flashes.On("leader."+nv.Name+"."+st, now) {
				rrole = kit.Flash
			}
		}
		name := kit.Clip(st, max(inner-utf8.RuneCountInString(right)-1, 1))
		nrole := kit.Plain
		if !nv.Up || !ok {
			nrole = kit.Faint
		}
		c.Text(b.x+2, y, name, nrole)
		c.TextRight(b.x+2+inner, y, right, rrole)
	}
}

type note struct {
	text string
	role kit.Role
}

// notes are the lines under the boxes: the scene's publishes, what just
// happened, and the streams nothing can reach.
func (s *Scene) notes(now time.Time) []note {
	var out []note
	sn := s.snap
	if sn.Published > 0 {
		out = append(out, note{fmt.Sprintf("published %d · acknowledged %d · failed %d", sn.Published, sn.Acked, sn.Failed), kit.Plain})
	}
	for _, st := range sn.Unavailable() {
		var where []string
		for _, n := range sn.Nodes {
			if _, ok := n.Copies[st]; ok {
				where = append(where, n.Name)
			}
		}
		out = append(out, note{fmt.Sprintf("%s is unavailable: its only copy is on %s, which is down", st, strings.Join(where, ", ")), kit.Bad})
	}
	if sn.Story != "" {
		role := kit.Plain
		if s.flashes.On("story", now) {
			role = kit.Flash
		}
		out = append(out, note{sn.Story, role})
	}
	if len(sn.Streams) > 0 {
		out = append(out, note{"number: the last sequence in that node's copy · ◆ the leader · … catching up", kit.Faint})
	}
	return out
}

// caption is the first line: the stream on screen, or how to make one.
func (s *Scene) caption() string {
	sn := s.snap
	up := 0
	for _, n := range sn.Nodes {
		if n.Up {
			up++
		}
	}
	nodes := fmt.Sprintf("%d of %d nodes up", up, len(sn.Nodes))
	st := sn.Focus
	if st == "" {
		return nodes + " · no stream yet: press p (creates " + defaultStream + " with 3 replicas) or stream add " + defaultStream + " --subjects '" + defaultSubject + "' --replicas 3 --defaults"
	}
	r, msgs := 0, uint64(0)
	for _, n := range sn.Nodes {
		if c, ok := n.Copies[st]; ok {
			r = max(r, c.R)
			if c.Leader {
				msgs = c.Msgs
			}
		}
	}
	leader := sn.Leader(st)
	if leader == "" {
		return fmt.Sprintf("%s · %s · no leader: %s", nodes, st, s.noLeader(st, up))
	}
	return fmt.Sprintf("%s · %s · %s · leader %s · %s", nodes, st, text.Count(r, "replica", "replicas"), leader, text.Count(msgs, "message", "messages"))
}

// noLeader says why a stream has no leader.
func (s *Scene) noLeader(st string, up int) string {
	for _, u := range s.snap.Unavailable() {
		if u == st {
			return "every copy is on a stopped node"
		}
	}
	if up*2 <= len(s.snap.Nodes) {
		return "no majority of nodes to elect one"
	}
	return "election going on"
}

// drawLines is the small-size picture: one line per node.
func (s *Scene) drawLines(c *kit.Canvas, now time.Time) {
	y := 0
	if s.H >= 5 {
		c.Text(0, y, kit.Clip(s.caption(), s.W), kit.Strong)
		y++
	}
	for _, nv := range s.snap.Nodes {
		if y >= s.H {
			return
		}
		status, role := "up  ", kit.Good
		if !nv.Up {
			status, role = "down", kit.Bad
		}
		x := c.Text(0, y, nv.Name+" ", kit.Strong)
		x = c.Text(x, y, status, role)
		for _, st := range s.snap.Streams {
			cp, ok := nv.Copies[st]
			if !ok {
				continue
			}
			mark := ""
			if cp.Leader {
				mark = "◆"
			}
			x = c.Text(x, y, " "+st+" "+mark+strconv.FormatUint(cp.Seq, 10), kit.Plain)
		}
		y++
	}
	for _, n := range s.notes(now) {
		if y >= s.H {
			return
		}
		c.Text(0, y, kit.Clip(n.text, s.W), n.role)
		y++
	}
}
