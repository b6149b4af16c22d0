package kit

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"natslab/scenes"
)

// Base is the Bubble Tea side every scene shares, embedded in each Scene:
// the clock the animation runs on, the feed that is the scene's heartbeat,
// the pane's size, the last frame drawn (kept until something changes or
// moves: a View costs real time), and the way to the scene's driver.
//
// It implements Init, SetSize, Controls, Keys, Do and Close; a scene's
// Update and View are one line each, handing Beat and Frame what only the
// scene knows.
type Base struct {
	Clock  scenes.Clock
	Styles *Styles
	Canvas *Canvas
	W, H   int // the pane's size, as SetSize gave it

	parts        Parts
	cached       string
	dirty        bool
	lastAnimated bool // the cached frame was drawn mid-animation
}

// Parts are what a scene is made of besides its picture.
type Parts struct {
	Clock    scenes.Clock
	Feed     *Feed
	Controls []scenes.Control
	Keys     []scenes.KeyBinding // none: the scene offers no keys
	// Do runs a control, named in lower case, on the scene's driver.
	Do func(control string, args []string) (string, error)
	// Close releases the driver's connections, once the feed is closed.
	Close func()
}

// NewBase starts a scene's Bubble Tea side.
func NewBase(p Parts) Base {
	return Base{Clock: p.Clock, Styles: NewStyles(true), Canvas: NewCanvas(0, 0), parts: p, dirty: true}
}

// Feed is the scene's heartbeat.
func (b *Base) Feed() *Feed { return b.parts.Feed }

// Init implements scenes.Scene: it arms the scene's heartbeat.
func (b *Base) Init() tea.Cmd { return b.parts.Feed.Next(0) }

// Controls implements scenes.Scene.
func (b *Base) Controls() []scenes.Control { return slices.Clone(b.parts.Controls) }

// Keys implements scenes.Keyed.
func (b *Base) Keys() []scenes.KeyBinding { return slices.Clone(b.parts.Keys) }

// Do implements scenes.Scene. Controls may wait on the network (a publish
// waits for the server's confirmation): call it off the UI loop.
func (b *Base) Do(control string, args []string) (string, error) {
	return b.parts.Do(strings.ToLower(control), args)
}

// SetSize implements scenes.Scene.
func (b *Base) SetSize(w, h int) {
	if w != b.W || h != b.H {
		b.W, b.H, b.dirty = w, h, true
	}
}

// Touch makes the next View draw afresh, whatever the cache holds.
func (b *Base) Touch() { b.dirty = true }

// UseStyles draws in st from the next View on (tests draw without colour).
func (b *Base) UseStyles(st *Styles) {
	b.Styles = st
	b.dirty = true
}

// Close implements scenes.Scene: the feed ends first, so nothing waits on
// it while the driver's connections close.
func (b *Base) Close() {
	b.parts.Feed.Close()
	if b.parts.Close != nil {
		b.parts.Close()
	}
}

// PacesItsFrames implements scenes.SelfPaced: Beat arms the frames.
func (b *Base) PacesItsFrames() bool { return true }

// Beat is a scene's Update: a message from the scene's own feed (not a
// stale scene's) is applied at the clock's now, the frame is marked for
// drawing, and the heartbeat is armed again: a frame every
// scenes.FrameInterval while animating says something moves, otherwise a
// wait for the next event. Anything else concerns the scene not at all.
func (b *Base) Beat(msg tea.Msg, apply func(m FeedMsg, now time.Time), animating func() bool) tea.Cmd {
	return b.BeatEvery(msg, apply, func(time.Time) time.Duration {
		if animating() {
			return scenes.FrameInterval
		}
		return 0
	})
}

// BeatEvery is Beat for a scene whose frames come at more than one rate:
// every says, at the message's now, how long until the next frame (0: no
// frame, wait for news).
func (b *Base) BeatEvery(msg tea.Msg, apply func(m FeedMsg, now time.Time), every func(now time.Time) time.Duration) tea.Cmd {
	m, ok := msg.(FeedMsg)
	if !ok || !m.For(b.parts.Feed) {
		return nil
	}
	now := b.Clock.Now()
	apply(m, now)
	b.dirty = true
	return b.parts.Feed.Next(every(now))
}

// Frame is a scene's View: the picture is rendered again only when
// something changed or moves (or moved at the last frame, which must not
// stay frozen mid-flight); otherwise the last one is returned as is.
func (b *Base) Frame(animating func() bool, render func(now time.Time) string) string {
	now := b.Clock.Now()
	moving := animating()
	if !b.dirty && !moving && !b.lastAnimated {
		return b.cached
	}
	b.cached = render(now)
	b.dirty, b.lastAnimated = false, moving
	return b.cached
}

// Blank is the canvas cleared at the pane's size, or nil while the pane
// has no room at all (before the first SetSize): there is nothing to draw.
func (b *Base) Blank() *Canvas { return b.blank(b.W) }

// BlankInset is Blank for a scene that draws one column in from the pane's
// left edge, the blank column the other scenes' layouts leave there: the
// canvas is a column narrower, unless the pane is too narrow to spare one
// (20 columns or fewer). Inset renders it with the column put back.
func (b *Base) BlankInset() *Canvas {
	w := b.W
	if w > 20 {
		w--
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
