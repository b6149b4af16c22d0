package lab

import (
	"charm.land/bubbles/v2/key"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker/command"
	"natslab/scenes"
)

// testScene is a scene of the test's own (the real ones are tested in
// their packages): it records what the lab does with it.
type testScene struct {
	mu        sync.Mutex
	w, h      int
	did       []string
	updates   int
	frames    int
	animating bool
	closed    bool
	paced     bool // says it brings its own frames
}

// selfPacedScene is the fake scene saying it brings its own frames.
type selfPacedScene struct{ *testScene }

func (selfPacedScene) PacesItsFrames() bool { return true }

type sceneEventMsg struct{}

func (s *testScene) Name() string  { return "fake" }
func (s *testScene) Title() string { return "a fake scene" }
func (s *testScene) Init() tea.Cmd { return func() tea.Msg { return sceneEventMsg{} } }
func (s *testScene) Update(msg tea.Msg) tea.Cmd {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates++
	if _, ok := msg.(frameMsg); ok {
		s.frames++
	}
	return nil
}
func (s *testScene) View() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("fake %dx%d did %s", s.w, s.h, strings.Join(s.did, ","))
}
func (s *testScene) SetSize(w, h int) { s.w, s.h = w, h }
func (s *testScene) Controls() []scenes.Control {
	return []scenes.Control{
		{Name: "offline", Usage: "offline", Summary: "take the app offline"},
		{Name: "publish", Usage: "publish [N]", Summary: "publish N messages"},
	}
}
func (s *testScene) Keys() []scenes.KeyBinding {
	return []scenes.KeyBinding{
		{Binding: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "offline")), Control: "offline"},
		{Binding: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "publish 2")), Control: "publish", Args: []string{"2"}},
	}
}
func (s *testScene) ShortHelp() []key.Binding {
	var out []key.Binding
	for _, k := range s.Keys() {
		out = append(out, k.Binding)
	}
	return out
}
func (s *testScene) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }
func (s *testScene) Do(control string, args []string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if control == "publish" && len(args) > 1 {
		return "", fmt.Errorf("publish takes one number")
	}
	s.did = append(s.did, strings.Join(append([]string{control}, args...), " "))
	return "did " + control, nil
}
func (s *testScene) Animating() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.animating
}
func (s *testScene) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (s *testScene) state() (did []string, updates, frames int, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.did...), s.updates, s.frames, s.closed
}

// withFakeScene gives the harness's lab a registry holding only the fake.
func withFakeScene(h *harness) *testScene {
	sc := &testScene{}
	f := scenes.Factory{Name: "fake", Summary: "a scene for tests", New: func(scenes.Env) (scenes.Scene, error) {
		if sc.paced {
			return selfPacedScene{sc}, nil
		}
		return sc, nil
	}}
	h.m.sceneList = func() []scenes.Factory { return []scenes.Factory{f} }
	h.m.sceneLookup = func(n string) (scenes.Factory, bool) { return f, n == "fake" }
	return sc
}

func TestSceneVerbOpensAndControls(t *testing.T) {
	h := newHarness(t, 120, 40)
	sc := withFakeScene(h)
	h.run("scene")
	if !strings.Contains(h.text(), "fake         a scene for tests") {
		t.Errorf("scene list:\n%s", h.text())
	}
	h.run("scene fake")
	if !strings.Contains(h.screen(), "scene: a fake scene") || !strings.Contains(h.screen(), "fake 68x16") {
		t.Fatalf("scene not shown:\n%s", h.screen())
	}
	// offline became a verb; publish did not, because it is a nats command.
	h.run("offline")
	h.run("publish greet hi")
	h.run("scene publish 3")
	did, _, _, _ := sc.state()
	if strings.Join(did, "|") != "offline|publish 3" {
		t.Errorf("controls done: %q", did)
	}
	if !strings.Contains(h.text(), `Published 2 bytes to "greet"`) {
		t.Errorf("publish no longer publishes:\n%s", h.text())
	}
	if !strings.Contains(h.text(), "scene publish [N]") || !strings.Contains(h.text(), "F4") {
		t.Errorf("controls not explained:\n%s", h.text())
	}
	// The scene's own message comes from its Init command, run off the
	// loop; wait for it rather than assume it came first.
	h.pump("the scene's own messages to reach it", func() bool { _, u, _, _ := sc.state(); return u > 0 })
	h.run("scene publish 1 2")
	if !strings.Contains(h.text(), command.NoteMarker+"publish takes one number") {
		t.Errorf("control error not shown:\n%s", h.text())
	}
	h.run("scene nope")
	if !strings.Contains(h.text(), command.NoteMarker+`there is no scene "nope": scenes are fake`) {
		t.Errorf("unknown scene:\n%s", h.text())
	}
	// Keys go to the prompt, not the scene, until f4.
	h.typeText("o")
	if h.m.cmd.in.Value() != "o" {
		t.Fatalf("o was taken from the prompt")
	}
	h.key("ctrl+c")
	h.key("f4")
	if !strings.Contains(h.screen(), "scene keys: o offline · p publish 2") {
		t.Errorf("scene keys not shown:\n%s", h.screen())
	}
	h.typeText("p")
	h.pump("the key's control", func() bool { d, _, _, _ := sc.state(); return len(d) == 3 && len(h.m.cmd.jobs) == 0 })
	if !strings.Contains(h.text(), promptText+"scene publish 2") {
		t.Errorf("the key's line not echoed:\n%s", h.text())
	}
	// Any other printable key goes back to the prompt, and is typed there.
	h.typeText("x")
	if h.m.sceneFocus || h.m.cmd.in.Value() != "x" {
		t.Errorf("typing did not return to the prompt: focus %v, input %q", h.m.sceneFocus, h.m.cmd.in.Value())
	}
	h.key("ctrl+c")
	// Tab offers scenes and controls.
	h.typeText("scene ")
	h.key("tab")
	h.pump("completion", func() bool { return h.m.cmd.hint != "" })
	if !strings.Contains(h.m.cmd.hint, "fake") || !strings.Contains(h.m.cmd.hint, "offline") {
		t.Errorf("scene completion: %q", h.m.cmd.hint)
	}
	h.key("ctrl+c")
	h.run("scene off")
	if _, _, _, closed := sc.state(); !closed {
		t.Errorf("scene off did not close the scene")
	}
	h.run("offline")
	if !strings.Contains(h.text(), command.NoteMarker+"offline is a control of the fake scene, which is not open") {
		t.Errorf("a stale control:\n%s", h.text())
	}
}

func TestSceneFramesOnlyWhileAnimating(t *testing.T) {
	h := newHarness(t, 120, 40)
	sc := withFakeScene(h)
	h.run("scene fake")
	sc.mu.Lock()
	sc.animating = true
	sc.mu.Unlock()
	h.send(sceneEventMsg{}) // something happened: the scene animates
	h.pump("frames", func() bool { _, _, f, _ := sc.state(); return f >= 3 })
	sc.mu.Lock()
	sc.animating = false
	sc.mu.Unlock()
	// The frame scheduled while it moved still comes; none may follow it.
	h.pump("the last frame", func() bool { return !h.m.frameScheduled })
	_, _, f1, _ := sc.state()
	h.send(sceneEventMsg{}) // news while still: drawn, and no frame asked for
	if h.m.frameScheduled {
		t.Errorf("a frame was scheduled for a scene that does not animate")
	}
	h.deliver()
	if _, _, f2, _ := sc.state(); f2 != f1 {
		t.Errorf("frames went on after the animation stopped: %d → %d", f1, f2)
	}
}

// A scene that brings its own frames (every kit scene) gets none from the
// lab: a second clock would wake the program and draw the scene twice as
// often.
func TestSelfPacedSceneGetsNoFramesFromTheLab(t *testing.T) {
	h := newHarness(t, 120, 40)
	sc := withFakeScene(h)
	sc.paced = true
	h.run("scene fake")
	sc.mu.Lock()
	sc.animating = true
	sc.mu.Unlock()
	h.send(sceneEventMsg{})
	h.deliver()
	if _, updates, frames, _ := sc.state(); updates == 0 || frames != 0 {
		t.Errorf("updates %d, lab frames %d: want the event and no frames", updates, frames)
	}
	if h.m.frameScheduled {
		t.Errorf("the lab scheduled a frame for a scene that paces itself")
	}
}

// At 80x24 the key help fits its pane: the scene's keys (what F4 gives
// the scene) are shown, not cut off below the lab's own keys; the blank
// lines go first.
func TestHelpShowsTheScenesKeysAt80x24(t *testing.T) {
	h := newHarness(t, 80, 24)
	withFakeScene(h)
	h.run("scene fake")
	h.typeText("?")
	s := h.waitScreen("esc closes")
	for _, want := range []string{"Scene keys, after f4 (or a click on the scene): o offline · p publish 2", "f4        scene keys", "Type help for the commands"} {
		if !strings.Contains(s, want) {
			t.Errorf("the help at 80x24 lacks %q:\n%s", want, s)
		}
	}
}

// The scene's keys in the key help wrap as a paragraph of its own: the
// lines after the first indented under the lead, a key and its words never
// split, no line starting with a separator (scene contrast's seven keys at
// 100 and 80 columns).
func TestHelpWrapsTheScenesKeysUnderTheirLead(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {80, 24}} {
		h := newHarness(t, sz[0], sz[1])
		h.run("scene contrast")
		h.typeText("?")
		s := h.waitScreen("esc closes")
		var keys []string
		for _, l := range strings.Split(s, "\n") {
			end := strings.TrimSpace(l) == "" || strings.HasPrefix(l, " Type help") || strings.HasPrefix(l, "❯")
			if strings.HasPrefix(l, " Scene keys, after f4") || (len(keys) > 0 && !end) {
				keys = append(keys, strings.TrimRight(l, " "))
			} else if len(keys) > 0 {
				break
			}
		}
		if len(keys) < 2 {
			t.Fatalf("%dx%d: want the scene's keys on more than one line:\n%s", sz[0], sz[1], s)
		}
		for _, l := range keys[1:] {
			body := strings.TrimLeft(l, " ")
			if !strings.HasPrefix(l, "   ") || strings.HasPrefix(l, "    ") || strings.HasPrefix(body, "·") {
				t.Errorf("%dx%d: %q should start under the lead, indented by two, with a key", sz[0], sz[1], l)
			}
		}
		if all := strings.Join(keys, " "); !strings.Contains(all, "o offline/online") || !strings.Contains(all, "P publish 10") {
			t.Errorf("%dx%d: a key was split:\n%s", sz[0], sz[1], strings.Join(keys, "\n"))
		}
	}
}

// A line run while the key help is open shows its output: Enter closes
// the help, instead of the answer going on unseen behind it.
func TestALineRunWithTheHelpOpenShowsItsOutput(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("?")
	h.waitScreen("esc closes")
	h.run(`pub greet "seen?"`)
	s := h.waitScreen(`Published 5 bytes to "greet"`)
	if strings.Contains(s, "esc closes") || h.m.showHelp {
		t.Errorf("the help still hides the output:\n%s", s)
	}
}

// Where the three columns of keys fit (100 columns), they are used: the
// help is then short enough for the scene's keys and the tips below it.
func TestHelpUsesThreeColumnsWhereTheyFit(t *testing.T) {
	h := newHarness(t, 100, 30)
	withFakeScene(h)
	h.run("scene fake")
	h.typeText("?")
	s := h.waitScreen("esc closes")
	if !regexp.MustCompile(`run the line .* lesson pane`).MatchString(s) {
		t.Errorf("the help at 100x30 is not in three columns:\n%s", s)
	}
	for _, want := range []string{"o offline · p publish 2", "Type help for the commands"} {
		if !strings.Contains(s, want) {
			t.Errorf("the help at 100x30 lacks %q:\n%s", want, s)
		}
	}
	if _, help, _ := strings.Cut(s, "esc closes"); strings.Contains(help, "…") {
		t.Errorf("the help at 100x30 is cut:\n%s", s)
	}
}

// The scenes check that nothing they print is cut at the sizes the scene
// pane has at 80x24, beside the lesson and alone (scenes.SmallestPanes),
// and at 100x30, beside the lesson (scenes.LessonPanes) and alone
// (scenes.TypingPanes): these must be the sizes the lab gives.
func TestScenePanesAreWhatScenesFit(t *testing.T) {
	for i, showLesson := range []bool{true, false} {
		l := computeLayout(80, 24, onScreen{lesson: showLesson, scene: true})
		got := scenes.PaneSize{W: l.top.w - 2, H: l.top.h - 2, Title: titleRoom(l.top.w)}
		if want := scenes.SmallestPanes[i]; got != want {
			t.Errorf("80x24, lesson shown %v: the scene draws in %+v, but the scenes fit %+v", showLesson, got, want)
		}
	}
	for showLesson, want := range map[bool][]scenes.PaneSize{true: scenes.LessonPanes, false: scenes.TypingPanes} {
		l := computeLayout(100, 30, onScreen{lesson: showLesson, scene: true})
		got := scenes.PaneSize{W: l.top.w - 2, H: l.top.h - 2, Title: titleRoom(l.top.w)}
		if len(want) != 1 || got != want[0] {
			t.Errorf("100x30, lesson shown %v: the scene draws in %+v, but the scenes fit %+v", showLesson, got, want)
		}
	}
}

// The scenes check too that nothing is cut at the sizes the scene pane
// has at the other common terminal sizes (scenes.SweepPanes): these must
// be the sizes the lab gives there, beside a lesson, beside the welcome
// and alone, and each of them one it gives.
func TestSweepPanesAreWhatTheLabGives(t *testing.T) {
	p := newLessonPane(DefaultStyles())
	given := map[scenes.PaneSize]bool{}
	for _, sz := range scenes.SweepTerminals {
		for _, on := range []onScreen{
			{lesson: true, scene: true, text: p.TextLines},
			{lesson: true, scene: true, welcome: true, text: p.TextLines},
			{scene: true},
		} {
			l := computeLayout(sz[0], sz[1], on)
			got := scenes.PaneSize{W: l.top.w - 2, H: l.top.h - 2, Title: titleRoom(l.top.w)}
			if !slices.Contains(scenes.SweepPanes, got) {
				t.Errorf("%dx%d %+v: the scene draws in %+v, a size not in scenes.SweepPanes", sz[0], sz[1], on, got)
			}
			given[got] = true
		}
	}
	for _, sz := range scenes.SweepPanes {
		if !given[sz] {
			t.Errorf("scenes.SweepPanes has %+v, which the lab gives at none of scenes.SweepTerminals", sz)
		}
	}
}

// A scene's controls fit the command pane's width, each summary wrapped in
// its own column: a longer line would fold back to the pane's first
// column, under the controls (scene contrast's mode, at 80 columns).
func TestSceneControlsFitThePane(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.run("scene contrast")
	text := h.text()
	_, controls, ok := strings.Cut(text, "Controls:\n")
	if !ok {
		t.Fatalf("no controls listed:\n%s", text)
	}
	for _, line := range strings.Split(controls, "\n") {
		if strings.HasPrefix(line, "F4") {
			break
		}
		if ansi.StringWidth(line) > h.m.cmd.w || !strings.HasPrefix(line, "  ") {
			t.Errorf("%q is wider than the pane (%d) or starts under the controls", line, h.m.cmd.w)
		}
	}
}

// On an empty broker, a scene beside the welcome (120x36) says what to
// type to bring it to life, the command whole on a line of its own; the
// security scenes send to their lesson, whose server the scene then
// draws.
func TestAnEmptyScenesLessonBringsItToLife(t *testing.T) {
	for _, tc := range []struct{ scene, lesson, drawn string }{
		{"permissions", "lesson permissions", "MAY PUBLISH"},
		{"accounts", "lesson accounts", "─ AUDIT ─"},
	} {
		h := newHarness(t, 120, 36)
		h.run("scene " + tc.scene)
		h.waitScreen(tc.lesson)
		top := h.m.lay.top
		var alone bool
		for _, l := range strings.Split(h.screen(), "\n")[top.y+1 : top.y+top.h-1] {
			alone = alone || strings.TrimSpace(ansi.Cut(l, top.x+1, top.x+top.w-1)) == tc.lesson
		}
		if !alone {
			t.Errorf("scene %s on an empty broker: %q is not on a line of its own:\n%s", tc.scene, tc.lesson, h.screen())
		}
		h.run(tc.lesson)
		h.waitScreen(tc.drawn)
		h.close()
	}
}

// A scene waiting for a stream offers the one the lesson beside it makes,
// not an example of its own: restart's log scene DISK (not ORDERS), the
// capstone's cursor scene SHOP (not EVENTS), and so again once lesson
// reset has built the scene anew.
func TestTheSceneOffersTheLessonsStream(t *testing.T) {
	h := newHarness(t, 100, 30)
	scene := func() string {
		r := h.m.lay.top
		lines := strings.Split(h.screen(), "\n")
		var out []string
		for y := r.y; y < r.y+r.h && y < len(lines); y++ {
			out = append(out, ansi.Cut(lines[y], r.x, r.x+r.w))
		}
		return strings.Join(out, "\n")
	}
	for _, c := range []struct{ lesson, want, example string }{
		{"restart", `no stream yet: stream add DISK --subjects "disk.>"`, "ORDERS"},
		{"capstone", `no stream yet: stream add SHOP --subjects "shop.>"`, "EVENTS"},
	} {
		h.run("lesson " + c.lesson)
		h.pump("the scene offering "+c.want, func() bool { return strings.Contains(scene(), c.want) })
		if s := scene(); strings.Contains(s, c.example) {
			t.Errorf("lesson %s: the scene offers its own example, %s:\n%s", c.lesson, c.example, s)
		}
	}
	before := h.m.activeScene()
	h.typeText("lesson reset")
	h.key("enter")
	h.pump("lesson reset's question", func() bool { return len(h.m.cmd.confirms) == 1 })
	h.typeText("y")
	h.pump("the reset", func() bool { return strings.Contains(h.text(), "Lesson capstone is back at its starting state.") })
	h.pump("the scene built anew offering SHOP", func() bool {
		return h.m.activeScene() != before && strings.Contains(scene(), "stream add SHOP")
	})
	if s := scene(); strings.Contains(s, "EVENTS") {
		t.Errorf("after lesson reset the scene offers its own example:\n%s", s)
	}
}
