package kit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"natslab/broker/text"
	"natslab/scenes"
)

// A scene package writes two parts, and Scene joins them into a
// scenes.Scene:
//
//   - its picture: a type that embeds Scene and implements Picture (what
//     the driver's news does on screen, how soon the next frame is due,
//     how it draws, its caption);
//   - its driver: the NATS side, a Driver (the state it reads from the
//     broker, as a snapshot that never waits on the network; its controls;
//     its close).
//
// Scene does the rest: the name, the feed that is the heartbeat, frames
// only while something moves, the last frame kept while nothing does, the
// keys and their help, and the controls, run one at a time.

// Picture is the part of a scene that shows: the picture type embeds a
// Scene and is handed to Open.
type Picture interface {
	// Titles are the pane's caption for the state last applied, in
	// wordings from the fullest to the shortest: the pane shows the
	// fullest its border holds.
	Titles() []string
	// Apply takes one message of the scene's feed at now: the events in
	// it (none when the driver only poked, or for a frame) and the
	// driver's state, which the picture reads when it needs to.
	Apply(m FeedMsg, now time.Time)
	// Next is how long after now the next frame is due: 0 while nothing
	// moves (the scene then waits for news).
	Next(now time.Time) time.Duration
	// Draw draws the picture at now, at the pane's size (Base.W, Base.H).
	Draw(now time.Time) string
}

// Driver is the part of a scene that watches the broker and acts on it.
// It sends what it sees on the feed Open gives it, each event before the
// change it reports can be read in a Snapshot (see Feed).
type Driver[S any] interface {
	// Snapshot is the state as the broker reported it last; it never
	// waits on the network.
	Snapshot() S
	// Controls are the scene's verbs and what runs each.
	Controls() []Control
	// Close releases the driver's connections and goroutines.
	Close()
}

// Control is one of a scene's verbs and what runs it. Run may wait on the
// network (a publish waits for the server's confirmation); it says what
// happened in one line, or returns an error that says what to type.
type Control struct {
	scenes.Control
	Run func(args []string) (string, error)
}

// Every is the frame interval while animating says something moves, and 0
// (wait for news) when nothing does: Picture.Next for a scene whose frames
// come at one rate.
func Every(animating bool) time.Duration {
	if animating {
		return scenes.FrameInterval
	}
	return 0
}

// Spec is what the lab knows of a scene before opening it, and its keys.
type Spec struct {
	Name    string // as `scene NAME` opens it
	Summary string // one line, for the list of scenes
	Keys    []scenes.KeyBinding
	Queue   int // events the feed holds before it drops (and counts) them; 0 for 256
}

// Register makes the scene a scenes.Factory: open builds it (with its
// default options).
func Register[P scenes.Scene](spec Spec, open func(env scenes.Env) (P, error)) {
	scenes.Register(scenes.Factory{Name: spec.Name, Summary: spec.Summary, New: func(env scenes.Env) (scenes.Scene, error) {
		return scenes.Built(open(env))
	}})
}

// Scene is the scenes.Scene every scene's picture embeds; S is its
// driver's snapshot.
type Scene[S any] struct {
	Base
	spec     Spec
	feed     *Feed
	pic      Picture
	driver   Driver[S]
	controls []Control
	ctl      sync.Mutex // one control at a time
}

// Open starts a scene on env: its feed, its driver (start, given the
// feed), and the picture p, which embeds sc. It returns the driver for the
// picture to keep.
func Open[S any, D Driver[S]](sc *Scene[S], p Picture, env scenes.Env, spec Spec, start func(feed *Feed) (D, error)) (D, error) {
	feed := NewFeed(cmp.Or(spec.Queue, 256), 2*scenes.FramesPerSecond)
	d, err := start(feed)
	if err != nil {
		return d, err
	}
	*sc = Scene[S]{Base: newBase(env.ClockOrWall()), spec: spec, feed: feed, pic: p, driver: d, controls: d.Controls()}
	for _, k := range spec.Keys {
		if !slices.ContainsFunc(sc.controls, func(c Control) bool { return c.Name == k.Control }) {
			d.Close()
			return d, fmt.Errorf("the %s scene's key %s runs %s, which is none of its controls", spec.Name, k.Help().Key, k.Control)
		}
	}
	return d, nil
}

// Name implements scenes.Scene.
func (s *Scene[S]) Name() string { return s.spec.Name }

// Title implements scenes.Scene: the fullest wording.
func (s *Scene[S]) Title() string { return s.pic.Titles()[0] }

// TitleWithin implements scenes.ShortTitled.
func (s *Scene[S]) TitleWithin(n int) string { return text.Fit(n, s.pic.Titles()...) }

// Snapshot is the driver's state now, as the broker reported it last.
func (s *Scene[S]) Snapshot() S { return s.driver.Snapshot() }

// Feed is the scene's heartbeat.
func (s *Scene[S]) Feed() *Feed { return s.feed }

// Init implements scenes.Scene: it arms the heartbeat.
func (s *Scene[S]) Init() tea.Cmd { return s.feed.Next(0) }

// Update implements scenes.Scene: a message from the scene's own feed (not
// a stale scene's) is applied at the clock's now, the frame is marked for
// drawing, and the heartbeat is armed again: a frame when the picture says
// one is due, otherwise a wait for news. Anything else concerns the scene
// not at all.
func (s *Scene[S]) Update(msg tea.Msg) tea.Cmd {
	m, ok := msg.(FeedMsg)
	if !ok || !m.For(s.feed) {
		return nil
	}
	now := s.Clock.Now()
	s.pic.Apply(m, now)
	s.dirty = true
	return s.feed.Next(s.pic.Next(now))
}

// Animating implements scenes.Scene.
func (s *Scene[S]) Animating() bool { return s.pic.Next(s.Clock.Now()) > 0 }

// View implements scenes.Scene: the last frame, unless something changed
// or moves.
func (s *Scene[S]) View() string { return s.frame(s.Animating(), s.pic.Draw) }

// PacesItsFrames implements scenes.SelfPaced: Update arms the frames.
func (s *Scene[S]) PacesItsFrames() bool { return true }

// Controls implements scenes.Scene.
func (s *Scene[S]) Controls() []scenes.Control {
	out := make([]scenes.Control, len(s.controls))
	for i, c := range s.controls {
		out[i] = c.Control
	}
	return out
}

// Do implements scenes.Scene: the control named (in any case) runs, after
// any other still running. Call it off the UI loop.
func (s *Scene[S]) Do(control string, args []string) (string, error) {
	name := strings.ToLower(control)
	i := slices.IndexFunc(s.controls, func(c Control) bool { return c.Name == name })
	if i < 0 {
		return "", UnknownControl(s.spec.Name, control, s.Controls())
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	return s.controls[i].Run(args)
}

// Keys implements scenes.Keyed.
func (s *Scene[S]) Keys() []scenes.KeyBinding { return slices.Clone(s.spec.Keys) }

// ShortHelp implements help.KeyMap: the scene's keys.
func (s *Scene[S]) ShortHelp() []key.Binding {
	out := make([]key.Binding, len(s.spec.Keys))
	for i, k := range s.spec.Keys {
		out[i] = k.Binding
	}
	return out
}

// FullHelp implements help.KeyMap: the scene's keys, in one column.
func (s *Scene[S]) FullHelp() [][]key.Binding {
	if len(s.spec.Keys) == 0 {
		return nil
	}
	return [][]key.Binding{s.ShortHelp()}
}

// Close implements scenes.Scene: the feed ends first, so nothing waits on
// it while the driver's connections close.
func (s *Scene[S]) Close() {
	s.feed.Close()
	s.driver.Close()
}

// Key binds k to a control and its arguments; help is a few words for the
// help line ("offline/online").
func Key(k, help, control string, args ...string) scenes.KeyBinding {
	return scenes.KeyBinding{Binding: key.NewBinding(key.WithKeys(k), key.WithHelp(k, help)), Control: control, Args: args}
}
