package kit

import (
	"math"
	"time"
	"unicode/utf8"

	"natslab/scenes"
)

// Point is a cell on a canvas.
type Point struct{ X, Y int }

// Resolver maps a waypoint's name to where it is at the current size, so
// animations are stated in names ("pub", "server", "app") and survive a
// resize mid-flight.
type Resolver func(name string) (Point, bool)

// Mover is a message travelling along a route of waypoints, one leg after
// another, and then either vanishing on arrival or fading where it stopped
// (a message that went nowhere).
type Mover struct {
	Label string
	Route []string        // waypoints, at least two
	Legs  []time.Duration // how long each leg takes: len(Route)-1
	Start time.Time
	Role  Role
	Fade  time.Duration // after the last leg, fade out in place over this long
}

// Arrive is when the mover reaches its last waypoint.
func (m *Mover) Arrive() time.Time {
	t := m.Start
	for _, d := range m.Legs {
		t = t.Add(d)
	}
	return t
}

// End is when the mover is gone.
func (m *Mover) End() time.Time { return m.Arrive().Add(m.Fade) }

// fadeGlyphs are the shapes of a message fading away: the shape changes,
// not only the colour, so it reads without colour too.
var fadeGlyphs = []rune{'●', '◍', '○', '◌', '·'}

// Where says where the mover is at now: the cell, its glyph and its role,
// or ok false when it has not started, is gone, or sits on an unknown
// waypoint.
func (m *Mover) Where(now time.Time, at Resolver) (p Point, glyph rune, role Role, ok bool) {
	if now.Before(m.Start) || !now.Before(m.End()) || len(m.Route) < 2 {
		return Point{}, 0, 0, false
	}
	t := m.Start
	for i, d := range m.Legs {
		if i+1 >= len(m.Route) {
			break
		}
		if now.Before(t.Add(d)) {
			a, okA := at(m.Route[i])
			b, okB := at(m.Route[i+1])
			if !okA || !okB {
				return Point{}, 0, 0, false
			}
			f := float64(now.Sub(t)) / float64(d)
			return Point{X: a.X + int(float64(b.X-a.X)*f+0.5), Y: a.Y + int(float64(b.Y-a.Y)*f+0.5)}, '●', m.Role, true
		}
		t = t.Add(d)
	}
	end, okE := at(m.Route[len(m.Route)-1])
	if !okE {
		return Point{}, 0, 0, false
	}
	f := float64(now.Sub(t)) / float64(m.Fade)
	i := min(int(f*float64(len(fadeGlyphs))), len(fadeGlyphs)-1)
	role = Bad
	if i >= 2 {
		role = Faint
	}
	return end, fadeGlyphs[i], role, true
}

// Movers is the set of messages in flight in one part of a scene.
type Movers struct {
	list []Mover
	Max  int  // at most this many at once (0: 64); beyond it, new ones are skipped
	Wide bool // draw three cells wide, for a projector
}

// Add puts a mover in flight, or skips it (false) when too many already are.
func (ms *Movers) Add(m Mover) bool {
	limit := ms.Max
	if limit == 0 {
		limit = 64
	}
	if len(ms.list) >= limit {
		return false
	}
	ms.list = append(ms.list, m)
	return true
}

// Prune forgets the movers that are gone.
func (ms *Movers) Prune(now time.Time) {
	keep := ms.list[:0]
	for _, m := range ms.list {
		if now.Before(m.End()) {
			keep = append(keep, m)
		}
	}
	clear(ms.list[len(keep):])
	ms.list = keep
}

// Active reports whether any mover is still moving or fading at now.
func (ms *Movers) Active(now time.Time) bool {
	for i := range ms.list {
		if now.Before(ms.list[i].End()) {
			return true
		}
	}
	return false
}

// Next is how long after now the movers next look different: a frame
// interval while one moves, otherwise the wait until one starts or the
// next step of a fading one (its shape changes a few times, not at every
// frame), and 0 when none is left. A scene whose frames follow it draws
// no frame that would repeat the last.
func (ms *Movers) Next(now time.Time) time.Duration {
	var due time.Duration
	for i := range ms.list {
		m := &ms.list[i]
		arrive := m.Arrive()
		var d time.Duration
		switch {
		case now.Before(m.Start):
			d = m.Start.Sub(now)
		case now.Before(arrive):
			return scenes.FrameInterval
		case now.Before(arrive.Add(m.Fade)):
			// The step Where draws now, and when the next one begins.
			n := len(fadeGlyphs)
			step := int(float64(now.Sub(arrive)) / float64(m.Fade) * float64(n))
			next := time.Duration(math.Ceil(float64(step+1) * float64(m.Fade) / float64(n)))
			d = max(arrive.Add(next).Sub(now), time.Millisecond)
		default:
			continue
		}
		due = Soonest(due, d)
	}
	return due
}

// Soonest is the shortest of the waits that are due (above 0), or 0 when
// none is: the next frame of a picture with several things in motion.
func Soonest(waits ...time.Duration) time.Duration {
	var soonest time.Duration
	for _, w := range waits {
		if w > 0 && (soonest == 0 || w < soonest) {
			soonest = w
		}
	}
	return soonest
}

// Len is how many movers are in flight (or waiting to start).
func (ms *Movers) Len() int { return len(ms.list) }

// Clear drops every mover.
func (ms *Movers) Clear() { ms.list = ms.list[:0] }

// wideGlyphs are a presenter's messages: three cells wide, fading by shape.
var wideGlyphs = map[rune]string{'●': "▐█▌", '◍': "▓▓▓", '○': "▒▒▒", '◌': "░░░", '·': " · "}

// Draw puts every visible mover on the canvas, with its label on the row
// above it. Cells that inside reports (the components' boxes) are left
// alone, so a message passes behind a component rather than over it; a
// label only takes blank cells.
func (ms *Movers) Draw(c *Canvas, now time.Time, at Resolver, inside func(Point) bool) {
	free := func(p Point) bool { return inside == nil || !inside(p) }
	// Fading messages first, so one still moving is drawn over them.
	for pass := 0; pass < 2; pass++ {
		for i := range ms.list {
			ms.draw(c, &ms.list[i], pass == 1, now, at, free)
		}
	}
}

func (ms *Movers) draw(c *Canvas, m *Mover, moving bool, now time.Time, at Resolver, free func(Point) bool) {
	p, g, role, ok := m.Where(now, at)
	if !ok || !free(p) || (g == '●') != moving {
		return
	}
	if ms.Wide {
		for j, r := range []rune(wideGlyphs[g]) {
			q := Point{p.X - 1 + j, p.Y}
			if r != ' ' && free(q) {
				c.Set(q.X, q.Y, r, role)
			}
		}
	} else {
		c.Set(p.X, p.Y, g, role)
	}
	if m.Label != "" && g == '●' {
		// A label is drawn whole or not at all: two messages close
		// together keep the first one's label readable.
		n := utf8.RuneCountInString(m.Label)
		x0 := p.X - n/2
		fits := p.Y >= 1 && x0 >= 0 && x0+n <= c.Width()
		for x := x0 - 1; fits && x <= x0+n; x++ { // a blank either side, too
			fits = c.At(x, p.Y-1) == ' ' && free(Point{x, p.Y - 1})
		}
		if fits {
			c.Text(x0, p.Y-1, m.Label, role)
		}
	}
}

// Flashes remember when named things (counters, sequence numbers) last
// changed, to highlight them for a moment.
type Flashes struct {
	Dur time.Duration
	at  map[string]time.Time
}

// Trigger starts the flash of key at now.
func (f *Flashes) Trigger(key string, now time.Time) {
	if f.at == nil {
		f.at = map[string]time.Time{}
	}
	f.at[key] = now
}

// On reports whether key is flashing at now.
func (f *Flashes) On(key string, now time.Time) bool {
	t, ok := f.at[key]
	return ok && !now.Before(t) && now.Before(t.Add(f.Dur))
}

// Changed starts the flash of key at now when changed: a number on
// screen flashes when it moved.
func (f *Flashes) Changed(key string, changed bool, now time.Time) {
	if changed {
		f.Trigger(key, now)
	}
}

// Active reports whether anything is flashing at now, and forgets what is done.
func (f *Flashes) Active(now time.Time) bool {
	active := false
	for k, t := range f.at {
		if now.Before(t.Add(f.Dur)) {
			active = true
		} else {
			delete(f.at, k)
		}
	}
	return active
}

// Next is how long after now the first flash still on ends, or 0 when
// none is: nothing else about a flash changes while it lasts. Like Active,
// it forgets what is done.
func (f *Flashes) Next(now time.Time) time.Duration {
	var due time.Duration
	for k, t := range f.at {
		end := t.Add(f.Dur)
		if !now.Before(end) {
			delete(f.at, k)
			continue
		}
		if now.Before(t) {
			due = Soonest(due, t.Sub(now))
		} else {
			due = Soonest(due, end.Sub(now))
		}
	}
	return due
}

// Clear forgets every flash.
func (f *Flashes) Clear() { clear(f.at) }

// Paced scales a scene's durations to a presenter's speed (a scene's
// Options.Speed: 2 plays everything twice as fast): paced(ms) is ms
// milliseconds at speed 1. A speed of 0 or less is 1.
func Paced(speed float64) func(ms int) time.Duration {
	if speed <= 0 {
		speed = 1
	}
	return func(ms int) time.Duration { return time.Duration(float64(ms) * float64(time.Millisecond) / speed) }
}

// Slot schedules a message on a wire that is free from *free: at start, or
// just behind the one before so that a burst reads as a train, gap apart.
// It reports false, and schedules nothing, when that is more than backlog
// after now: the train is already too long, and the animation samples
// (the numbers on screen do not).
func Slot(free *time.Time, start, now time.Time, gap, backlog time.Duration) (time.Time, bool) {
	if free.After(start) {
		start = *free
	}
	if start.Sub(now) > backlog {
		return time.Time{}, false
	}
	*free = start.Add(gap)
	return start, true
}
