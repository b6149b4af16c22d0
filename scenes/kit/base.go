package kit

import (
	"strings"
	"time"

	"natslab/scenes"
)

// Base is what a scene draws with: the clock the animation runs on, the
// palette, the canvas, the pane's size, and the last frame drawn (kept
// until something changes or moves: a View costs real time). Scene
// embeds it; a picture reaches it through its Scene.
type Base struct {
	Clock  scenes.Clock
	Styles *Styles
	Canvas *Canvas
	W, H   int // the pane's size, as SetSize gave it

	cached       string
	dirty        bool
	lastAnimated bool // the cached frame was drawn mid-animation
}

func newBase(clock scenes.Clock) Base {
	return Base{Clock: clock, Styles: NewStyles(true), Canvas: NewCanvas(0, 0), dirty: true}
}

// SetSize implements scenes.Scene.
func (b *Base) SetSize(w, h int) {
	if w != b.W || h != b.H {
		b.W, b.H, b.dirty = w, h, true
	}
}

// Touch makes the next View draw afresh, whatever the cache holds.
func (b *Base) Touch() { b.dirty = true }

// UseStyles draws in st from the next View on: the host's palette (the
// terminal's look), or plain styles in tests.
func (b *Base) UseStyles(st *Styles) {
	b.Styles = st
	b.dirty = true
}

// frame draws with draw only when something changed or moves (or moved
// at the last frame, which must not stay frozen mid-flight); otherwise the
// last frame is returned as is.
func (b *Base) frame(moving bool, draw func(now time.Time) string) string {
	if !b.dirty && !moving && !b.lastAnimated {
		return b.cached
	}
	b.cached = draw(b.Clock.Now())
	b.dirty, b.lastAnimated = false, moving
	return b.cached
}

// Spilled is how much text the last frame drawn cut mid-word at the
// pane's edges (Canvas.Spilled): none, in a layout that fits.
func (b *Base) Spilled() int { return b.Canvas.Spilled() }

// Blank is the canvas cleared at the pane's size, or nil while the pane
// has no room at all (before the first SetSize): there is nothing to draw.
func (b *Base) Blank() *Canvas { return b.blank(b.W) }

// BlankInset is Blank for a scene that draws one column in from each of
// the pane's edges, the blank columns the other scenes' layouts leave
// there (text run up to the pane's border reads as part of it): the
// canvas is two columns narrower, unless the pane is too narrow to spare
// them (20 columns or fewer). Inset renders it with the left column put
// back; the right one is the blank the canvas does not reach.
func (b *Base) BlankInset() *Canvas {
	w := b.W
	if w > 20 {
		w -= 2
	}
	return b.blank(w)
}

// Inset renders a canvas from BlankInset, a blank column in front of each
// line that has anything on it.
func (b *Base) Inset(c *Canvas) string {
	frame := c.Render(b.Styles)
	if c.Width() >= b.W {
		return frame
	}
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}

func (b *Base) blank(w int) *Canvas {
	if b.W <= 0 || b.H <= 0 {
		return nil
	}
	b.Canvas.Reset(w, b.H)
	return b.Canvas
}

// Line draws the whole scene as one line of text, for panes too small for
// its picture.
func (b *Base) Line(text string, role Role) string {
	c := b.Canvas
	c.Text(0, 0, Clip(text, b.W), role)
	return c.Render(b.Styles)
}
