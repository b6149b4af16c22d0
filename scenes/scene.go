// Package scenes holds the lab's animated scenes. A scene is a small Bubble
// Tea model drawn from the broker's real state: it watches the deployment
// with its own NATS connections and animates what happens there, whoever
// caused it (the command pane, the scene's own controls, a real nats CLI).
//
// scenes never imports lab, tests included: the lab hosts a Scene through
// this interface, and judges lessons with a scene open in its own tests.
//
// Adding a scene. A package under scenes/ needs two files and a test:
//
//   - driver.go, the NATS side: a type implementing kit.Driver[Snapshot].
//     It watches the deployment with connections of its own (watch.Life),
//     looking at the broker when told (a poller: watch.Poll, with
//     watch.Busy for quick looks after news) or keeping its state on one
//     goroutine (watch.Loop, its Turns), sends each thing it sees as a
//     kit.Event on the feed it is given — before the change can be read in
//     its Snapshot, which never waits on the network — and lists its
//     Controls, each a kit.Control with what runs it;
//   - view.go, the picture: a Scene type embedding kit.Scene[Snapshot], its
//     kit.Spec (name, one-line summary, keys), New (kit.Open starts the
//     feed and the driver), an init calling kit.Register, and the
//     kit.Picture methods: Title, Apply (what a feed message's events and
//     the driver's state do on screen), Next (how soon the next frame is
//     due; 0 at rest) and Draw (on the kit.Canvas, at any size the pane
//     has, down to 1x1);
//   - golden_test.go: kittest.Open on a brokertest server with a manual
//     clock (kittest.Lab when the learner's commands are typed beside it),
//     each stage of the story done for real and Settled, then Golden at
//     the sizes the lab shows it.
//
// Then lab/scenes.go imports the package, and `scene NAME` opens it.
package scenes

import (
	"sort"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"natslab/broker"
)

// FramesPerSecond is how often the lab draws and how often a scene that is
// moving asks for a frame: more would be drawn by nobody. Every frame costs
// a full redraw in Bubble Tea's renderer, so the rate is the price of
// animating; at 10, glyphs that move a cell or two a frame still read as
// motion. (.ci/bench measures what animating costs.)
const FramesPerSecond = 10

// FrameInterval is the time between two frames.
const FrameInterval = time.Second / FramesPerSecond

// PaneSize is a size the lab's scene pane gives a scene to draw in, and
// the room its border has for the scene's title.
type PaneSize struct{ W, H, Title int }

// SmallestPanes are the sizes the lab's scene pane gives a scene at the
// lab's smallest full layout, 80x24: beside the lesson, and alone. The lab
// reads well from 80x24 up, so nothing a scene prints may be cut mid-word
// at these sizes: a layout drops or shortens whole parts instead, and the
// title has a wording that fits (ShortTitled). (The lab's tests check its
// layout gives these sizes.)
var SmallestPanes = []PaneSize{{W: 44, H: 7, Title: 34}, {W: 78, H: 7, Title: 68}}

// LessonPanes are the sizes the scene pane has beside the lesson pane (a
// lesson or the welcome) in a 100x30 terminal, the next common size.
// Scenes whose lessons play there check they cut nothing at these sizes
// too. (The lab's tests check its layout gives these sizes.)
var LessonPanes = []PaneSize{{W: 56, H: 16, Title: 46}}

// TypingPanes are the sizes the scene pane has alone in a 100x30
// terminal, the lesson pane hidden (F2): the full width over a command
// pane that takes most of the height. Wider than SmallestPanes' but
// taller too, so a scene that lays itself out by its width meets a
// layout there it has nowhere else. (The lab's tests check its layout
// gives these sizes.)
var TypingPanes = []PaneSize{{W: 98, H: 9, Title: 88}}

// SweepTerminals are the other terminal sizes the lab is read at, from a
// laptop's half screen to a large monitor: 110x33, 120x36, 140x30 (the
// wide layout's smallest) and 200x60.
var SweepTerminals = [][2]int{{110, 33}, {120, 36}, {140, 30}, {200, 60}}

// SweepPanes are the sizes the scene pane has at SweepTerminals: beside a
// lesson, beside the sandbox's welcome and alone (F2). Scenes check they
// cut nothing there either. (The lab's tests check its layout gives
// these sizes, and no other, at those terminals.)
var SweepPanes = []PaneSize{
	{W: 62, H: 17, Title: 52}, {W: 62, H: 16, Title: 52}, {W: 108, H: 10, Title: 98},
	{W: 68, H: 19, Title: 58}, {W: 68, H: 16, Title: 58}, {W: 118, H: 11, Title: 108},
	{W: 94, H: 10, Title: 84}, {W: 138, H: 10, Title: 128},
	{W: 134, H: 22, Title: 124}, {W: 198, H: 22, Title: 188},
}

// Scene is one animated picture in the lab's scene pane. Besides a model
// it is a help.KeyMap: its keys (Keyed) with their help, for the pane's
// help line; so it is the lab's pane component (model, keymap, SetSize)
// without scenes knowing of the lab.
//
// Threading: Init, Update, View and SetSize run on the Bubble Tea loop.
// Do may be called from any goroutine (the command pane runs verbs on its
// own goroutines); it changes the scene's real state (subscriptions,
// consumers) and the model learns of the change through its event channel.
type Scene interface {
	// Name is the scene's short name ("contrast"), used by `scene NAME`.
	Name() string
	// Title is a one-line caption for the pane's border.
	Title() string
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	// View draws the scene at the size last given to SetSize. It returns a
	// string: only the lab's root model returns a tea.View.
	View() string
	SetSize(width, height int)
	// Controls are the verbs the scene understands (offline, online, mode,
	// publish, reset …), for the command pane and its help.
	Controls() []Control
	// Do runs one control with its arguments and says what happened in one
	// line, or returns an error that says what to type instead.
	Do(control string, args []string) (string, error)
	// Animating reports whether frames are still needed; nothing ticks while
	// nothing moves.
	Animating() bool
	// Close releases the scene's NATS connections.
	Close()
	help.KeyMap
}

// Control describes one scene verb.
type Control struct {
	Name    string // "offline"
	Usage   string // "publish [N]"
	Summary string
}

// KeyBinding maps a key, pressed while the scene has the keys, to one of
// the scene's controls; the lab runs it as if typed and shows its help.
type KeyBinding struct {
	key.Binding          // the key and its help: key.WithKeys("o"), key.WithHelp("o", "offline/online")
	Control     string   // a Control's Name
	Args        []string // its arguments
}

// ShortTitled is implemented by scenes whose title has shorter wordings,
// for a narrow pane's border: a title cut mid-word reads worse than one
// that says less.
type ShortTitled interface {
	// TitleWithin is the fullest wording of the title at most n cells
	// wide, or "" when none is.
	TitleWithin(n int) string
}

// SelfPaced is implemented by scenes that deliver their own frames (the
// kit's scenes: their feed brings a frame every FrameInterval while they
// animate). Their host adds no frame ticks of its own: a second clock at
// the same rate would only wake the program, and draw the scene, twice as
// often.
type SelfPaced interface {
	PacesItsFrames() bool
}

// Keyed is implemented by scenes that offer keys. It is separate from Scene
// so a scene without keys (or a test's own scene) need not say so.
type Keyed interface {
	Keys() []KeyBinding
}

// Clock is the one clock every animation runs on, replaceable in tests.
type Clock interface {
	Now() time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now implements Clock.
func (RealClock) Now() time.Time { return time.Now() }

// Env is what a scene is built with.
type Env struct {
	Deployment broker.Deployment
	Clock      Clock // nil: the wall clock
	// Try, beside a lesson, is what the lesson has the learner type to
	// make the stream it works on and fill it, in order. A scene waiting
	// for a stream offers these, not an example of its own: the stream
	// the lesson makes is the one the scene will show. Empty elsewhere.
	Try []string
}

// ClockOrWall is the clock a scene built with e runs on.
func (e Env) ClockOrWall() Clock {
	if e.Clock == nil {
		return RealClock{}
	}
	return e.Clock
}

// Factory builds a scene.
type Factory struct {
	Name    string
	Summary string
	New     func(env Env) (Scene, error)
}

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register adds a scene; called from each scene's init.
func Register(f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[f.Name] = f
}

// Lookup finds a scene by name.
func Lookup(name string) (Factory, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	f, ok := registry[name]
	return f, ok
}

// List returns every scene, by name.
func List() []Factory {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Factory, 0, len(registry))
	for _, f := range registry {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Built hands a scene package's New to a Factory: an error gives a nil
// Scene, not a nil *Scene inside a non-nil interface.
func Built[S Scene](s S, err error) (Scene, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
