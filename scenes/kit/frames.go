package kit

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// FrameMsg asks a scene to draw its next frame.
type FrameMsg struct{ frames *Frames }

// Frames runs a scene's frame ticks, and only while something moves: Kick
// after starting an animation, Next on each FrameMsg.
type Frames struct {
	interval time.Duration
	ticking  bool
	lastSent time.Time // wall time of the last tick asked for
}

// NewFrames makes a ticker at fps frames a second.
func NewFrames(fps int) *Frames {
	return &Frames{interval: time.Second / time.Duration(max(fps, 1))}
}

// Interval is the time between frames.
func (f *Frames) Interval() time.Duration { return f.interval }

// Kick starts ticking unless a tick is already on its way. A tick that has
// not come back for a second is taken as lost (a host that dropped the
// message), and ticking restarts.
func (f *Frames) Kick() tea.Cmd {
	if f.ticking && time.Since(f.lastSent) < time.Second {
		return nil
	}
	return f.tick()
}

// Next handles msg if it is one of this ticker's frames: ours says so, and
// cmd is the next tick while animating is true.
func (f *Frames) Next(msg tea.Msg, animating bool) (ours bool, cmd tea.Cmd) {
	fm, ok := msg.(FrameMsg)
	if !ok || fm.frames != f {
		return false, nil
	}
	if !animating {
		f.ticking = false
		return true, nil
	}
	return true, f.tick()
}

// Ticking reports whether a tick is on its way.
func (f *Frames) Ticking() bool { return f.ticking }

func (f *Frames) tick() tea.Cmd {
	f.ticking = true
	f.lastSent = time.Now()
	return tea.Tick(f.interval, func(time.Time) tea.Msg { return FrameMsg{frames: f} })
}
