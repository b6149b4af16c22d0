package contrast

import "unicode/utf8"

// rect is an area of the canvas.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// node is one component on a lane: its waypoint name, what it says, and
// the box it is drawn in.
type node struct {
	name  string
	label string
	r     rect
}

// The levels of detail a lane is drawn at, by the room it has.
const (
	levelLine    = iota // one line of text
	levelCompact        // components in brackets on one row, counts on the next
	levelFull           // boxes, labels above messages, counts under the app
)

// plan is where a lane's parts go at its current size.
type plan struct {
	level int
	title int // row of the lane's title
	wire  int // row the messages travel on
	below int // first row under the boxes
	boxH  int
	nodes []node
}

func (p *plan) node(name string) *node {
	for i := range p.nodes {
		if p.nodes[i].name == name {
			return &p.nodes[i]
		}
	}
	return nil
}

// inside reports whether a cell belongs to a component.
func (p *plan) inside(x, y int) bool {
	for i := range p.nodes {
		if p.nodes[i].r.contains(x, y) {
			return true
		}
	}
	return false
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// sizes of a lane, in rows, at each level.
func (s *Scene) fullHeight() int {
	if s.opts.Presenter {
		return 13
	}
	return 7
}

const compactHeight = 3

// layout plans a lane in r: the fullest level that fits, centred.
func (s *Scene) layout(r rect, js bool, stream string) plan {
	type part struct{ name, long, short string }
	parts := []part{{"pub", "publisher", "pub"}, {"srv", "server", "srv"}}
	if js {
		parts = append(parts, part{"stream", stream, stream})
	}
	parts = append(parts, part{"app", "app", "app"})
	n := len(parts)
	pres := s.opts.Presenter

	if r.h >= s.fullHeight() {
		pad, minWire, maxWire, streamMin, streamPref, boxH := 4, 8, 26, 12, 34, 3
		if pres {
			pad, minWire, maxWire, streamMin, streamPref, boxH = 6, 10, 30, 16, 44, 5
		}
		for _, long := range []bool{true, false} {
			widths := make([]int, n)
			sum := 0
			for i, p := range parts {
				l := p.short
				if long {
					l = p.long
				}
				widths[i] = runes(l) + pad
				if p.name == "stream" {
					widths[i] = max(widths[i]+2, streamMin)
				}
				sum += widths[i]
			}
			room := r.w - 2
			if sum+(n-1)*minWire > room {
				continue
			}
			extra := room - sum - (n-1)*minWire
			if js {
				i := n - 2
				grow := min(extra, max(streamPref-widths[i], 0))
				widths[i] += grow
				sum += grow
				extra -= grow
			}
			wire := min(minWire+extra/(n-1), maxWire)
			total := sum + (n-1)*wire
			x := r.x + (r.w-total)/2
			need := s.fullHeight()
			top := r.y + (r.h-need)/3
			if pres {
				top = r.y + (r.h-need)/2 // a room looks at the middle of the screen
			}
			p := plan{level: levelFull, title: top, boxH: boxH}
			boxY := top + 1
			if pres {
				boxY++
			}
			p.wire = boxY + boxH/2
			p.below = boxY + boxH
			if pres {
				p.below++
			}
			for i, pt := range parts {
				l := pt.short
				if long {
					l = pt.long
				}
				p.nodes = append(p.nodes, node{name: pt.name, label: l, r: rect{x, boxY, widths[i], boxH}})
				x += widths[i] + wire
			}
			return p
		}
	}
	if r.h >= compactHeight {
		sum := 0
		for _, pt := range parts {
			sum += runes(pt.short) + 2
		}
		// A blank column at each side, as the boxes have: "[pub]" run
		// up to the pane's border reads as part of it.
		if room := r.w - 2; sum+(n-1)*5 <= room {
			wire := min(5+(room-sum-(n-1)*5)/(n-1), 16)
			total := sum + (n-1)*wire
			x := r.x + (r.w-total)/2
			p := plan{level: levelCompact, title: r.y, boxH: 1}
			p.wire = r.y + 1
			if r.h >= 4 {
				p.wire = r.y + 2 // a row for the labels of messages in flight
			}
			p.below = p.wire + 1
			for _, pt := range parts {
				w := runes(pt.short) + 2
				p.nodes = append(p.nodes, node{name: pt.name, label: pt.short, r: rect{x, p.wire, w, 1}})
				x += w + wire
			}
			return p
		}
	}
	return plan{level: levelLine, title: r.y}
}
