package replicas

import (
	"fmt"
	"slices"
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

// layout places the picture under a caption of top rows.
func (s *Scene) layout(rows, top int) geometry {
	g := geometry{pubY: top, busY: top + 3, tickY: top + 4, boxY: top + 5, boxH: rows + 2}
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
	// The picture takes its rows; the caption as many of the rest as it
	// needs, less one for a note; the notes what is left.
	picture := s.layout(rows, 0)
	top := s.drawCaption(c, 1, s.W-2, s.H-picture.boxY-picture.boxH-1)
	g := s.layout(rows, top)

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

	drawNotes(c, 1, g.boxY+g.boxH, s.W-2, s.H, s.notes(now))
}

// sep separates the parts of a caption or a note: rows break between
// parts before they break between words.
const sep = " · "

// partLines lays s out on at most n rows of w cells: its parts (sep)
// whole where they fit, a part wider than a row in whole words, and the
// last row cut short (kit.Clip) only when n rows do not hold it all.
func partLines(s string, w, n int) []string {
	if n <= 0 || w <= 0 {
		return nil
	}
	parts := strings.Split(s, sep)
	var lines []string
	for len(parts) > 0 {
		if len(lines) == n-1 {
			return append(lines, kit.Clip(strings.Join(parts, sep), w))
		}
		if fit := text.Leading(w, sep, parts...); len(fit) > 0 {
			lines = append(lines, strings.Join(fit, sep))
			parts = parts[len(fit):]
			continue
		}
		words := text.Wrap(parts[0], w)
		if room := n - 1 - len(lines); len(words) > room {
			lines = append(lines, words[:room]...)
			parts[0] = strings.Join(words[room:], " ")
			continue
		}
		lines = append(lines, words...)
		parts = parts[1:]
	}
	return lines
}

// rowsOf is how many rows of w cells a note takes, all said.
func rowsOf(text string, w int) int { return len(partLines(text, w, 1<<10)) }

// fitNotes is notes in at most rows rows of w cells: where they do not
// all fit, the least needed (the lowest rank) says it in a shorter
// wording, or goes, until the rest fit whole. A note that finds no room
// even alone keeps a single row.
func fitNotes(notes []note, w, rows int) []note {
	notes = slices.Clone(notes)
	need := func() int {
		n := 0
		for _, nt := range notes {
			n += rowsOf(nt.text, w)
		}
		return n
	}
	for len(notes) > 1 && need() > rows {
		least := 0
		for i, nt := range notes {
			if nt.rank < notes[least].rank {
				least = i
			}
		}
		nt := &notes[least]
		if len(nt.shorter) > 0 {
			nt.text, nt.shorter = nt.shorter[0], nt.shorter[1:]
			continue
		}
		notes = slices.Delete(notes, least, least+1)
	}
	return notes
}

// drawNotes draws the notes that fit (fitNotes) from row y to the row
// before end, at x, w cells wide.
func drawNotes(c *kit.Canvas, x, y, w, end int, notes []note) {
	for _, nt := range fitNotes(notes, w, end-y) {
		for _, l := range partLines(nt.text, w, max(end-y, 1)) {
			c.Text(x, y, l, nt.role)
			y++
		}
	}
}

// drawCaption draws the caption from row 0, at x, w cells wide: on the
// rows it needs, up to room (at least one). It returns the rows it took.
func (s *Scene) drawCaption(c *kit.Canvas, x, w, room int) int {
	// The fullest wording that reads whole in the rows there are.
	wordings := s.caption()
	caption := wordings[len(wordings)-1]
	for _, c := range wordings {
		if rowsOf(c, w) <= max(room, 1) {
			caption = c
			break
		}
	}
	lines := partLines(caption, w, max(room, 1))
	for i, l := range lines {
		c.Text(x, i, l, kit.Strong)
	}
	return max(len(lines), 1)
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
	text    string
	role    kit.Role
	rank    int      // where not all notes fit, the lowest goes first
	shorter []string // wordings that say less, tried before it goes
}

// The notes' ranks: what the learner needs most stays longest.
const (
	rankLegend = iota
	rankCounts
	rankStory
	rankUnavailable
)

// notes are the lines under the boxes: the scene's publishes, what just
// happened, and the streams nothing can reach.
func (s *Scene) notes(now time.Time) []note {
	var out []note
	sn := s.snap
	if sn.Published > 0 {
		out = append(out, note{text: fmt.Sprintf("published %d · acknowledged %d · failed %d", sn.Published, sn.Acked, sn.Failed), role: kit.Plain, rank: rankCounts})
	}
	for _, st := range sn.Unavailable() {
		var where []string
		for _, n := range sn.Nodes {
			if _, ok := n.Copies[st]; ok {
				where = append(where, n.Name)
			}
		}
		out = append(out, note{text: fmt.Sprintf("%s is unavailable: its only copy is on %s, which is down", st, strings.Join(where, ", ")), role: kit.Bad, rank: rankUnavailable})
	}
	if sn.Story != "" {
		role := kit.Plain
		if s.flashes.On("story", now) {
			role = kit.Flash
		}
		out = append(out, note{text: sn.Story, role: role, rank: rankStory})
	}
	if len(sn.Streams) > 0 {
		out = append(out, note{text: "number: the last sequence in that node's copy · ◆ the leader · … catching up", role: kit.Faint, rank: rankLegend,
			shorter: []string{"◆ the leader · … catching up"}})
	}
	return out
}

// caption is the first line: the stream on screen, or how to make one,
// in wordings from the fullest.
func (s *Scene) caption() []string {
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
		return []string{
			nodes + " · no stream yet: press p (creates " + defaultStream + " with 3 replicas) or stream add " + defaultStream + " --subjects '" + defaultSubject + "' --replicas 3 --defaults",
			nodes + " · no stream yet: press p (creates " + defaultStream + " with 3 replicas)",
			nodes + " · no stream yet: press p",
		}
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
		return []string{fmt.Sprintf("%s · %s · no leader: %s", nodes, st, s.noLeader(st, up))}
	}
	return []string{fmt.Sprintf("%s · %s · %s · leader %s · %s", nodes, st, text.Count(r, "replica", "replicas"), leader, text.Count(msgs, "message", "messages"))}
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
	// A blank column at each side, as the full picture has, where the
	// pane can spare them: text run up to the pane's border reads as
	// part of it.
	x0, w := 0, s.W
	if s.W > 20 {
		x0, w = 1, s.W-2
	}
	// With no stream a node's row says only whether it is up: the nodes
	// share one row, and the caption (how to make a stream) the rest.
	together := len(s.snap.Streams) == 0 && text.Width(s.nodesRow()) <= w
	nodeRows := len(s.snap.Nodes)
	if together {
		nodeRows = 1
	}
	y := 0
	if s.H >= 5 {
		y = s.drawCaption(c, x0, w, s.H-nodeRows)
	}
	if together {
		x := x0
		for i, nv := range s.snap.Nodes {
			if i > 0 {
				x = c.Text(x, y, sep, kit.Faint)
			}
			status, role := "up", kit.Good
			if !nv.Up {
				status, role = "down", kit.Bad
			}
			x = c.Text(x, y, nv.Name+" ", kit.Strong)
			x = c.Text(x, y, status, role)
		}
		y++
	}
	for _, nv := range s.snap.Nodes {
		if together {
			break
		}
		if y >= s.H {
			return
		}
		status, role := "up  ", kit.Good
		if !nv.Up {
			status, role = "down", kit.Bad
		}
		x := c.Text(x0, y, nv.Name+" ", kit.Strong)
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
	drawNotes(c, x0, y, w, s.H, s.notes(now))
}

// nodesRow is every node and whether it is up, on one row: "n1 up · n2
// down · n3 up".
func (s *Scene) nodesRow() string {
	parts := make([]string, len(s.snap.Nodes))
	for i, nv := range s.snap.Nodes {
		parts[i] = nv.Name + " up"
		if !nv.Up {
			parts[i] = nv.Name + " down"
		}
	}
	return strings.Join(parts, sep)
}
