// Package scenes holds the lab's animated scenes. A scene is a small Bubble
// Tea model drawn from the broker's real state: it watches the deployment
// with its own NATS connections and animates what happens there, whoever
// caused it (the command pane, the scene's own controls, a real nats CLI).
//
// scenes never imports lab: the lab hosts a Scene through this interface.
package scenes

import (
	"sort"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"natslab/broker"
)

// FramesPerSecond is how often the lab draws and how often a scene that is
// moving asks for a frame: more would be drawn by nobody. Every frame costs
// a full redraw in Bubble Tea's renderer (at 160x50 about 0.8 ms, a third
// of it the renderer's scroll detection), so the rate is the price of
// animating: at 10, glyphs that move a cell or two a frame still read as
// motion. The contrast scene at 20 msg/s in JetStream mode, where the
// broker also stores each message and the app's durable consumer fetches,
// acks and writes its state, measured 5.0% of a core at 12 fps and 4.4%
// at 10 (with no second clock from the host: see SelfPaced).
const FramesPerSecond = 10

// FrameInterval is the time between two frames.
const FrameInterval = time.Second / FramesPerSecond

// Scene is one animated picture in the lab's scene pane.
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
}

// Control describes one scene verb.
type Control struct {
	Name    string // "offline"
	Usage   string // "publish [N]"
	Summary string
}

// KeyBinding maps a key, pressed while the command prompt is empty, to one
// of the scene's controls; the lab runs it as if typed and lists it in help.
type KeyBinding struct {
	Key     string   // as tea.KeyPressMsg.String() spells it: "o", "p", "shift+p"
	Control string   // a Control's Name
	Args    []string // its arguments
	Help    string   // a few words for the help line: "offline/online"
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
