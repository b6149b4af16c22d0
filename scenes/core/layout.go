package core

import "unicode/utf8"

// rect is an area of the canvas.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// The levels of detail, by the room there is.
const (
	levelLine = iota // one line of text
	levelRows        // the status line and the rows, without the diagram
	levelFull        // publisher and server boxes, the fan-out, the rows
)

// plan is where everything goes at the current size.
type plan struct {
	level    int
	w, h     int // the body: the canvas less the footer
	footer   int // first row of the footer's lines, -1 for none
	header   int // row over the subscriber rows
	wire     int // row the publishes travel on
	pub, srv rect
	trunkX   int   // column of the fan-out's trunk
	rowX     int   // where a row's text starts
	countX   int   // where the counts column starts
	right    int   // where the counts end: the picture's right edge
	rowY     []int // the row of each shown subscriber (s.rows[i])
	empty    int   // row of the "nobody subscribes" line, -1 when there are subscribers
	moreY    int   // row of "+N more", -1 for none
	more     int
	histY    int // first row of the wildcards scene's earlier publishes, -1 for none
	histN    int
	twoLine  bool // each row's verdict goes on the line under it
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// Sizes under which a level is not attempted.
const (
	fullMinW, fullMinH = 36, 5
	rowsMinW, rowsMinH = 24, 3
	wideAt             = 130
)

// layout plans the scene at w×h. need is the narrowest a row can be drawn
// (its essential text), want what shows it whole; the counts take countW
// more.
// footer is how many rows the footer under it takes (0 for none).
func (s *Scene) layout(w, h, need, want, countW, footer int) plan {
	p := plan{level: levelLine, w: w, h: h, footer: -1, empty: -1, moreY: -1, histY: -1}
	if w < rowsMinW || h < rowsMinH {
		return p
	}
	if footer > 0 && h >= 6 {
		p.footer = h - footer
		p.h = h - footer
	}
	p.countX = w - 1 - countW
	p.level, p.rowX = levelRows, 2

	// Horizontally: publisher and server boxes, the trunk fanning out, the
	// rows; long box labels when the rows keep their room, short ones, or
	// no diagram at all.
	if w >= fullMinW {
		for _, long := range []bool{true, false} {
			pubL, srvL := "publisher", "server"
			if !long {
				pubL, srvL = "pub", "srv"
			}
			pubW, srvW := runes(pubL)+4, runes(srvL)+4
			const minWire = 5
			fixed := 1 + pubW + minWire + srvW + 2 + 4 // margin, boxes, wires, trunk and arrow
			room := p.countX - 1 - fixed
			if (long && room < want) || room < need {
				continue
			}
			wire := minWire + min(max(room-want, 0)/3, 8)
			p.pub = rect{1, 0, pubW, 3}
			p.srv = rect{p.pub.x + pubW + wire, 0, srvW, 3}
			p.trunkX = p.srv.x + srvW + 2
			p.rowX = p.trunkX + 4
			p.level = levelFull
			break
		}
	}

	// A wide pane does not stretch the rows: the counts sit a little after
	// what the rows have to say, and past wideAt columns the picture moves
	// in from the left edge (by the pane's width only, so it holds still
	// while the rows change).
	if end := p.rowX + want + 6 + countW; end < w-1 {
		p.countX = end - countW
	}
	if shift := (w - wideAt) / 3; shift > 0 && p.countX+countW+shift < w {
		p.countX += shift
		p.rowX += shift
		if p.level == levelFull {
			p.pub.x += shift
			p.srv.x += shift
			p.trunkX += shift
		}
	}
	p.right = p.countX + countW

	// Vertically: the status line, the header, the rows (two lines each
	// when a row's verdict does not fit beside it and there is room below),
	// the wildcards scene's earlier publishes.
	n := len(s.rows)
	avail := p.h - 2
	if avail < 1 {
		p.level = levelLine
		return p
	}
	per := 1
	if s.kind == Wildcards && p.countX-1-p.rowX < want && 2*n <= avail {
		per = 2
		p.twoLine = true
	}
	lines := max(n*per, 1)
	shown := n
	if lines > avail {
		shown = (avail - 1) / per
		p.more = n - shown
		lines = shown*per + 1
	}
	extra := 0
	if s.kind == Wildcards && len(s.recent) > 1 {
		extra = min(len(s.recent)-1, maxRecent) + 1
	}
	// The picture sits a third of the way down what is left, not crammed
	// under the status line.
	top := 2 + max(avail-lines-extra, 0)/3
	p.header = top - 1
	for i := 0; i < shown; i++ {
		p.rowY = append(p.rowY, top+i*per)
	}
	if n == 0 {
		p.empty = top
	}
	if p.more > 0 {
		p.moreY = top + shown*per
	}
	if extra > 0 {
		if y := top + lines + 1; y < p.h {
			p.histY = y
			p.histN = min(len(s.recent)-1, p.h-y)
		}
	}
	if p.level == levelFull {
		p.wire = max(top+(lines-1)/2, 2)
		if p.wire+1 >= p.h || p.h < fullMinH-1 {
			p.level, p.rowX = levelRows, 2
		} else {
			p.pub.y, p.srv.y = p.wire-1, p.wire-1
		}
	}
	return p
}

// same reports whether q shows all that p does: the same level of
// detail, rows, earlier publishes.
func (q *plan) same(p *plan) bool {
	return q.level == p.level && len(q.rowY) == len(p.rowY) && q.more == p.more &&
		q.twoLine == p.twoLine && (q.histY >= 0) == (p.histY >= 0) && q.histN == p.histN
}

// boxLabel is what a box says at the plan's width.
func (p *plan) boxLabel(pub bool) string {
	long := p.pub.w > 7
	switch {
	case pub && long:
		return "publisher"
	case pub:
		return "pub"
	case long:
		return "server"
	}
	return "srv"
}

// inside reports whether a cell belongs to a box (messages pass behind).
func (p *plan) inside(x, y int) bool { return p.pub.contains(x, y) || p.srv.contains(x, y) }
