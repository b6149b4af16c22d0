package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/lab/episode"
	"natslab/scenes"
)

// The seed tutorial's commands (shared/seeds/000), with the lesson's first
// step before them: first-stream starts with JetStream off.
var firstStreamSolution = []string{
	"nats-server -js",
	`stream add EVENTS --subjects "events.>" --defaults`,
	`pub events.page_loaded '{"page":"/home"}' --jetstream`,
	`pub events.input_changed '{"field":"email"}' --jetstream`,
	`pub events.page_loaded '{"page":"/pricing"}' --jetstream`,
	"stream info EVENTS",
	`sub "events.>" --all --terminate-at-end`,
}

// waitScreen pumps messages until the screen shows every one of want.
func (h *harness) waitScreen(want ...string) string {
	h.t.Helper()
	h.pump(strings.Join(want, " and "), func() bool {
		s := h.screen()
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
	return h.screen()
}

// lessonScreen is the lesson pane and the status bar, cut from the screen:
// what the lesson goldens hold (the scene beside it is tested in its own
// package, the command pane elsewhere).
func (h *harness) lessonScreen() string {
	r := h.m.lay.lesson
	lines := strings.Split(h.screen(), "\n")
	var out []string
	for y := r.y; y < r.y+r.h && y < len(lines); y++ {
		out = append(out, ansi.Cut(lines[y], r.x, r.x+r.w))
	}
	return strings.Join(append(out, lines[len(lines)-1]), "\n")
}

// all is the pane's whole content, scrolled out of view or not, as text.
func (p *lessonPane) all() string {
	p.render()
	return ansi.Strip(strings.Join(append(append([]string(nil), p.pinned...), p.lines...), "\n"))
}

// A lesson typed into the pane: it opens with its checklist, each step
// ticks right after the command that satisfies it, the status bar counts,
// and the lesson says it is complete and what comes next.
func TestLessonFlowInThePane(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("lesson first-stream")
	s := h.waitScreen("lesson 6 · first-stream", "[▸] Turn JetStream on", "❯ nats-server -js", "not yet: JetStream is off", "lesson first-stream 0/4", "Persist messages with JetStream")
	if strings.Contains(s, "lesson: Welcome") {
		t.Errorf("the welcome text is still shown:\n%s", s)
	}
	h.run(firstStreamSolution[0])
	h.waitScreen("Step 2 of 4 · 1 done", "[▸] Create the EVENTS stream on events.>", "lesson first-stream 1/4")
	h.run(firstStreamSolution[1])
	h.waitScreen("Step 3 of 4 · 2 done", "[▸] Store three events", "holds 0 messages", "lesson first-stream 2/4")
	for _, line := range firstStreamSolution[2:6] {
		h.run(line)
	}
	h.waitScreen("Step 4 of 4 · 3 done", "[▸] Replay every stored event", "lesson first-stream 3/4")
	h.run(firstStreamSolution[6])
	s = h.waitScreen("Steps · 4/4 done", "✓ Lesson complete: all 4 steps done.", "Type next for lesson 7 · stream-log", "lesson first-stream ✓ 4/4")
	if strings.Contains(s, "not yet:") || strings.Contains(s, "[▸]") {
		t.Errorf("a complete lesson has no step to do:\n%s", s)
	}
	h.pump("the note in the command pane", func() bool {
		return strings.Contains(h.text(), "✓ Lesson 6 · first-stream is complete: all 4 steps done. Type next for lesson 7")
	})
	if n := strings.Count(h.text(), "is complete"); n != 1 {
		t.Errorf("the lesson said it was complete %d times:\n%s", n, h.text())
	}

	// The progress is on disk: natslab lessons reads it without a server.
	prog, err := episode.OpenProgress(h.store)
	if err != nil {
		t.Fatal(err)
	}
	if p := prog.Get("first-stream"); !p.Done || p.StepsDone != 4 {
		t.Errorf("progress on disk: %+v", p)
	}

	// next moves on; lessons lists the status; leave is the sandbox again.
	h.run("next")
	h.waitScreen("lesson 7 · stream-log", "lesson stream-log 0/3")
	h.run("lessons")
	if !strings.Contains(h.text(), "first-stream      done") || !strings.Contains(h.text(), "▸  7  stream-log") {
		t.Errorf("lessons:\n%s", h.text())
	}
	h.run("lesson leave")
	s = h.waitScreen("lesson: Welcome", "Welcome to natslab")
	if strings.Contains(s, "lesson stream-log") || strings.Contains(s, "Steps ·") {
		t.Errorf("the sandbox still shows the lesson:\n%s", s)
	}
}

// hint shows the step's hint in the lesson pane too, until the step is
// done; the "not yet" follows the broker without a step ticking; lesson
// reset starts the checklist over.
func TestLessonHintWhyAndReset(t *testing.T) {
	h := newHarness(t, 200, 60)
	h.run("lesson first-stream")
	h.run("nats-server -js")
	h.run(`stream add EVENTS --subjects "evts.>" --defaults`)
	h.waitScreen("not yet: stream EVENTS captures evts.>, not events.>")
	if strings.Contains(h.screen(), "hint 1/3:") {
		t.Fatalf("the hint shows before it was asked for:\n%s", h.screen())
	}
	h.run("hint")
	h.waitScreen("hint 1/3: A stream needs a name and the subjects it")
	h.run("stream rm EVENTS -f")
	h.waitScreen("not yet: there is no stream EVENTS", "hint 1/3: A stream needs a name")
	h.run(`stream add EVENTS --subjects "events.>" --defaults`)
	s := h.waitScreen("Step 3 of 4 · 2 done", "lesson first-stream 2/4")
	if strings.Contains(s, "hint:") || strings.Contains(s, "hint 1/3:") {
		t.Errorf("the hint stays with its step:\n%s", s)
	}
	h.typeText("lesson reset")
	h.key("enter")
	h.pump("lesson reset's question", func() bool { return len(h.m.cmd.confirms) == 1 })
	if !strings.Contains(h.text(), "Start lesson first-stream over?") {
		t.Fatalf("lesson reset should ask first:\n%s", h.text())
	}
	h.typeText("y")
	h.waitScreen("[▸] Turn JetStream on", "not yet: JetStream is off", "lesson first-stream 0/4")
}

// removeConsumers removes stream's consumers, through the pane. The
// replay's own consumer outlives it by its inactive threshold (5s), as the
// real CLI's does: the status bar counts it until then, and a golden must
// not depend on how long the machine took to get there.
func removeConsumers(t *testing.T, h *harness, stream string) {
	t.Helper()
	jsz, err := h.srv.Monitor().Jsz(&server.JSzOptions{Accounts: true, Streams: true, Consumer: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, acc := range jsz.AccountDetails {
		for _, st := range acc.Streams {
			for _, ci := range st.Consumer {
				if st.Name == stream {
					h.run(fmt.Sprintf("consumer rm %s %s --force", stream, ci.Name))
				}
			}
		}
	}
}

// A step ticks however the state came about: here a client outside the
// pane (any nats client on the lab's URL) creates the stream and stores
// the messages, and the tutor's watch notices without any command typed.
func TestLessonTicksFromOutsideThePane(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("lesson first-stream")
	h.run("nats-server -js")
	h.waitScreen("Step 2 of 4 · 1 done")
	nc, err := h.srv.Connect("outside")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}); err != nil {
		t.Fatal(err)
	}
	h.waitScreen("Step 3 of 4 · 2 done", "lesson first-stream 2/4")
	for i, subj := range []string{"events.a", "events.b", "events.a"} {
		if _, err := js.Publish(ctx, subj, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	h.waitScreen("Step 4 of 4 · 3 done", "lesson first-stream 3/4")
}

// namedScene is a test scene that answers to a name of its choosing.
type namedScene struct {
	testScene
	name string
}

func (s *namedScene) Name() string  { return s.name }
func (s *namedScene) Title() string { return "the " + s.name + " scene" }

// withScenes gives the lab a registry of test scenes with these names, and
// records every one it builds.
func withScenes(h *harness, names ...string) func() []*namedScene {
	var mu sync.Mutex
	var built []*namedScene
	fs := map[string]scenes.Factory{}
	var list []scenes.Factory
	for _, n := range names {
		f := scenes.Factory{Name: n, Summary: "test scene " + n, New: func(scenes.Env) (scenes.Scene, error) {
			sc := &namedScene{name: n}
			mu.Lock()
			built = append(built, sc)
			mu.Unlock()
			return sc, nil
		}}
		fs[n] = f
		list = append(list, f)
	}
	h.m.sceneList = func() []scenes.Factory { return list }
	h.m.sceneLookup = func(n string) (scenes.Factory, bool) { f, ok := fs[n]; return f, ok }
	return func() []*namedScene {
		mu.Lock()
		defer mu.Unlock()
		return append([]*namedScene(nil), built...)
	}
}

// A lesson brings its scene; a lesson whose scene this build lacks shows
// the scene pane's introduction, without an error; leaving brings back the
// scene the sandbox had.
func TestLessonSwitchesTheScene(t *testing.T) {
	h := newHarness(t, 120, 40)
	built := withScenes(h, "contrast", "mine")
	h.run("scene mine")
	h.waitScreen("scene: the mine scene")

	h.run("lesson first-stream") // scene: contrast
	h.waitScreen("scene: the contrast scene", "lesson 6 · first-stream")
	if b := built(); len(b) != 2 || !b[0].closed {
		t.Errorf("the sandbox's scene is closed when the lesson's opens: %d built", len(b))
	}

	h.run("lesson stream-log") // scene: log, not in this registry
	s := h.waitScreen("lesson 7 · stream-log", "publisher ──▶ ( NATS ) ──▶ subscriber")
	if strings.Contains(s, "scene: the") || strings.Contains(h.text(), "cannot open scene") {
		t.Errorf("a lesson whose scene is missing shows the introduction, quietly:\n%s\n%s", s, h.text())
	}

	h.run("lesson leave")
	h.waitScreen("scene: the mine scene", "lesson: Welcome")
	if b := built(); len(b) != 3 || b[2].name != "mine" {
		t.Errorf("leaving builds the sandbox's scene anew: %d built", len(b))
	}

	// From a sandbox without a scene, leaving comes back to none.
	h.run("scene off")
	h.run("lesson first-stream")
	h.waitScreen("scene: the contrast scene")
	h.run("lesson leave")
	s = h.waitScreen("lesson: Welcome", "publisher ──▶ ( NATS ) ──▶ subscriber")
	if strings.Contains(s, "scene: the") {
		t.Errorf("no scene in the sandbox before, none after:\n%s", s)
	}
}

// A lesson's steps may ask for scenes of their own (lesson 19: the
// stream's consumers, then the bucket, then the price service). A step's
// scene opens at the learner's first command in that step: until then the
// scene of the step just done shows how it ended.
func TestLessonStepsBringTheirScenes(t *testing.T) {
	h := newHarness(t, 120, 40)
	built := withScenes(h, "cursor", "kv-watch", "request-reply")
	h.run("lesson capstone")
	h.waitScreen("scene: the cursor scene", "lesson 19 · capstone")
	for _, line := range []string{
		`stream add SHOP --subjects "shop.>" --defaults`,
		`pub shop.order.new "order {{Count}}" --count 3 --jetstream`,
		`consumer add SHOP billing --pull --filter "shop.order.>" --defaults`,
		`consumer next SHOP billing --count 3`,
	} {
		h.run(line)
	}
	if s := h.waitScreen("Step 3 of 5 · 2 done"); !strings.Contains(s, "scene: the cursor scene") {
		t.Errorf("the cursor scene goes before the learner moves on:\n%s", s)
	}
	h.run("kv add stock")
	h.waitScreen("scene: the kv-watch scene", "Step 3 of 5 · 2 done")
	h.run("kv put stock widget 7")
	h.waitScreen("Step 4 of 5 · 3 done")
	h.typeText(`reply shop.price.widget "9.99" &`)
	h.key("enter")
	h.waitScreen("scene: the request-reply scene")
	b := built()
	var names []string
	for _, sc := range b {
		names = append(names, sc.name)
	}
	if strings.Join(names, " ") != "cursor kv-watch request-reply" {
		t.Fatalf("scenes built: %v", names)
	}
	if did := b[2].did; len(did) != 1 || did[0] != "watch shop.price.widget" {
		t.Errorf("the request-reply scene ran %q, want its step's control, watch shop.price.widget", did)
	}
	if !b[0].closed || !b[1].closed {
		t.Errorf("each scene is closed when the next opens")
	}
}

// A damaged progress file is said once in the pane, and the lab carries on
// with lessons (the file is moved aside by package episode).
func TestDamagedProgressIsSaidOnce(t *testing.T) {
	srv, store := newTestServer(t)
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, episode.ProgressFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, srv, store, 120, 40)
	if n := strings.Count(h.text(), "is damaged"); n != 1 {
		t.Fatalf("the damaged file is said %d times:\n%s", n, h.text())
	}
	h.run("lesson hello")
	h.waitScreen("lesson 1 · hello", "[▸] Subscribe to greet")
}

// The lesson opened by natslab --lesson ID (OpenLesson, before the screen
// starts): the greeting describes the lesson's server (JetStream off, as
// first-stream starts), and the pane and the status bar show the lesson.
func TestOpenLessonAtStart(t *testing.T) {
	srv, store := newTestServer(t)
	m := newTestModel(t, srv, store)
	OpenLesson("first-stream")(m)
	h := startHarness(t, m, srv, store, 80, 24)
	h.waitScreen("lesson 6 · first-stream", "lesson first-stream 0/4")
	text := h.text()
	for _, want := range []string{"without JetStream (nats-server -js turns it on)", "Lesson 6 · first-stream: Persist messages with JetStream.", "hint helps"} {
		if !strings.Contains(text, want) {
			t.Errorf("the greeting lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Guided lessons:") {
		t.Errorf("inside a lesson, the sandbox's pointer to the lessons is noise:\n%s", text)
	}
}

// Below 80x24 there is no lesson pane: the greeting still says where the
// steps are (lesson lists them), not only the pane it cannot show.
func TestOpenLessonAtStartCompact(t *testing.T) {
	srv, store := newTestServer(t)
	m := newTestModel(t, srv, store)
	OpenLesson("first-stream")(m)
	h := startHarness(t, m, srv, store, 70, 20)
	h.waitScreen("lesson first-stream 0/4")
	if text := h.text(); !strings.Contains(text, "lesson lists them") {
		t.Errorf("at 70x20 the greeting sends the learner to a pane that is not there:\n%s", text)
	}
}

// Goldens of the lesson pane (and the status bar) at the sizes the lab must
// read well at: a step with its commands, what the broker still lacks and
// the hint; and a complete lesson. Update with: go test ./lab -run
// TestLessonGolden -update
func TestLessonGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("step-%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, sz[0], sz[1])
			// A test scene in the real one's place (its connections would
			// come and go): the lesson pane has the width it has beside
			// the lesson's scene.
			withScenes(h, "contrast")
			h.run("lesson first-stream")
			h.run("nats-server -js")
			h.run(`stream add EVENTS --subjects "evts.>" --defaults`)
			h.run("hint")
			h.waitScreen("lesson first-stream 1/4")
			h.pump("the hint and the reason", func() bool {
				hinted, why := false, false
				for _, st := range h.m.lesson.steps {
					hinted = hinted || len(st.Hints) > 0
					why = why || st.Why != ""
				}
				return hinted && why
			})
			h.settle()
			golden.RequireEqual(t, []byte(h.lessonScreen()))
		})
		t.Run(fmt.Sprintf("complete-%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, sz[0], sz[1])
			withScenes(h, "contrast")
			h.run("lesson first-stream")
			for _, line := range firstStreamSolution {
				h.run(line)
			}
			h.waitScreen("first-stream ✓ 4/4")
			h.pump("the word that the lesson is complete", func() bool {
				return strings.Contains(h.m.lesson.all(), "Lesson complete")
			})
			removeConsumers(t, h, "EVENTS")
			h.settle()
			golden.RequireEqual(t, []byte(h.lessonScreen()))
		})
	}
}

// Progress survives the lab: after a restart on the same store, the lab
// says which lesson was open, and the lesson resumes with its steps done.
func TestLessonProgressSurvivesARestart(t *testing.T) {
	srv, store := newTestServer(t)
	h := newHarnessOn(t, srv, store, 120, 40)
	h.run("lesson first-stream")
	h.run("nats-server -js")
	h.waitScreen("lesson first-stream 1/4")
	h.close()

	h2 := newHarnessOn(t, srv, store, 120, 40)
	if !strings.Contains(h2.text(), "You were in lesson first-stream last time: lesson first-stream goes back to it.") {
		t.Errorf("no word of the lesson left open:\n%s", h2.text())
	}
	h2.run("lesson first-stream")
	h2.waitScreen("Step 2 of 4 · 1 done", "lesson first-stream 1/4")
	h2.close()

	// Opened at that lesson (natslab --lesson first-stream, or a workshop
	// attendee's return), the lab does not ask for it to be typed again.
	m := newTestModel(t, srv, store)
	OpenLesson("first-stream")(m)
	h3 := startHarness(t, m, srv, store, 120, 40)
	h3.waitScreen("Step 2 of 4 · 1 done", "Lesson 6 · first-stream: Persist messages with JetStream.")
	if s := h3.text(); strings.Contains(s, "You were in lesson first-stream last time") {
		t.Errorf("opened at the lesson left open, the lab still says to type it:\n%s", s)
	}
}

// A text package prose has no rendering of (a lesson edited without go
// generate) still shows, wrapped to the pane.
func TestLessonPaneShowsAnUnrenderedTextPlainly(t *testing.T) {
	p := newLessonPane(DefaultStyles())
	p.SetLesson("lesson: draft", "A draft that nobody rendered yet, long enough to wrap in a narrow pane.\n\nSecond paragraph.")
	p.SetSize(30, 12)
	got := ansi.Strip(strings.Join(p.Lines(), "\n"))
	for _, want := range []string{"A draft that nobody", "Second paragraph."} {
		if !strings.Contains(got, want) {
			t.Errorf("pane lacks %q:\n%s", want, got)
		}
	}
	for _, l := range p.Lines() {
		if w := ansi.StringWidth(l); w != 30 {
			t.Errorf("line is %d wide, want 30: %q", w, ansi.Strip(l))
		}
	}
}

// At 120x40 a lesson reads in pages: the step to do next stays pinned,
// folded to itself, with ten lines or more of the text beside it; a page
// key moves the text by a page; and the text stays where the reader left
// it when a step ticks (no jump back to the top).
func TestLessonReadsInPagesAndNeverJumps(t *testing.T) {
	h := newHarness(t, 120, 40)
	withScenes(h)
	h.run("lesson first-stream")
	h.waitScreen("[▸] Turn JetStream on")
	textLines := func() []string {
		var out []string
		pane := strings.Split(h.lessonScreen(), "\n")
		seen := false
		for _, l := range pane[1 : len(pane)-2] { // inside the borders, without the status bar
			l = strings.TrimSpace(strings.Trim(l, "│"))
			if strings.HasPrefix(l, "┄") {
				seen = true
				continue
			}
			if seen {
				out = append(out, l)
			}
		}
		return out
	}
	first := textLines()
	if len(first) < 10 || first[0] != "Persist messages with JetStream" {
		t.Fatalf("want at least 10 lines of the text below the pinned step, got %d:\n%s", len(first), h.lessonScreen())
	}
	if strings.Contains(h.lessonScreen(), "Create the EVENTS stream") {
		t.Errorf("the step list is folded to the step to do next:\n%s", h.lessonScreen())
	}
	h.key("f6")
	paged := textLines()
	if paged[0] == first[0] || paged[0] != first[len(first)-1] {
		t.Fatalf("f6 pages on, keeping the last line for context: was %q … %q, now starts %q", first[0], first[len(first)-1], paged[0])
	}
	h.run("nats-server -js")
	h.waitScreen("[▸] Create the EVENTS stream on events.>", "lesson first-stream 1/4")
	if got := textLines(); got[0] != paged[0] {
		t.Fatalf("a step ticked and the text moved from %q to %q:\n%s", paged[0], got[0], h.lessonScreen())
	}
	h.key("f5")
	h.key("f5")
	if got := textLines(); got[0] != first[0] {
		t.Errorf("f5 pages back to the top, %q; got %q", first[0], got[0])
	}
}

// Episode 5's scene shows what its text says: with the scene's app taken
// offline beside the learner's subscriber, the three events published
// meanwhile are counted lost, and only the one after both came back is
// received.
func TestOfflineClientSceneCountsTheLoss(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("lesson offline-client")
	h.waitScreen("scene: Core NATS", "● online")
	subscribe := func() {
		h.typeText(`sub "events.>" &`)
		h.key("enter")
		// In place: subscribed, as a script's next line waits for.
		h.pump("the subscriber", func() bool {
			jobs := h.m.sess.Jobs()
			if len(jobs) != 1 {
				return false
			}
			select {
			case <-jobs[0].Ready():
				return true
			default:
				return false
			}
		})
	}
	subscribe()
	h.waitScreen("lesson offline-client 1/3")
	h.run("stop 1")
	h.run("offline")
	// The tutor samples who listens after each command: let it see nobody
	// before the publish, as a learner's typing would.
	h.waitScreen("not yet: 0 messages reached the server", "○ offline")
	h.run(`pub events.page_loaded "while you were away" --count 3`)
	h.waitScreen("lost 3", "received 0", "lesson offline-client 2/3")
	subscribe()
	for _, line := range []string{"online", `pub events.page_loaded "back online"`} {
		h.run(line)
	}
	h.waitScreen("lost 3", "received 1", "lesson offline-client ✓ 3/3")
}

// The line above the step says where the learner is; the pointer to
// lesson beside it is dropped whole where the pane is too narrow for it
// (a 100- or 80-column lab), never clipped to "lesson lists t…".
func TestLessonStepHeadNeverClipsItsPointer(t *testing.T) {
	steps := []Step{{Text: "Subscribe to greet", Done: true}, {Text: "Publish a greeting", Current: true, Try: []string{"pub greet hi"}}, {Text: "Publish with nobody listening"}}
	for _, tc := range []struct {
		width   int
		pointer bool
	}{{40, false}, {34, false}, {60, true}} {
		p := newLessonPane(DefaultStyles())
		p.SetLesson("lesson 1 · hello", "Hello.")
		p.SetSteps(steps, "")
		p.SetSize(tc.width, 12)
		got := ansi.Strip(strings.Join(p.Lines(), "\n"))
		if !strings.Contains(got, "Step 2 of 3 · 1 done") {
			t.Errorf("at %d columns the pane does not say where the learner is:\n%s", tc.width, got)
		}
		if strings.Contains(got, "lesson lists them all") != tc.pointer {
			t.Errorf("at %d columns, pointer to lesson shown = %v, want %v:\n%s", tc.width, !tc.pointer, tc.pointer, got)
		}
		if strings.Contains(got, "…") {
			t.Errorf("at %d columns a line is clipped:\n%s", tc.width, got)
		}
	}
}

// What a step lacks starts after "not yet:" and goes on in narrower
// lines' stead in wider ones: a --flag that does not fit the first width
// is neither cut in two nor spelt with a blank inside it. At 80x24 lesson
// republish's first step said "--republish-destinatio n".
func TestNotYetKeepsLongFlagsWhole(t *testing.T) {
	why := "stream SHOP republishes nothing (stream edit with --republish-source and --republish-destination sets it)"
	first := "--republish-destination is missing"
	for _, s := range []string{why, first} {
		p := newLessonPane(DefaultStyles())
		p.SetLesson("lesson 28 · republish", "Republish.")
		p.SetSteps([]Step{{Text: "Make SHOP republish to ui.>", Current: true, Why: s}}, "")
		p.SetSize(37, 30)
		got := ansi.Strip(strings.Join(p.Lines(), "\n"))
		if !strings.Contains(got, "--republish-destination") {
			t.Errorf("--republish-destination is not whole on a line:\n%s", got)
		}
	}
}

// A word longer than the lesson pane's line is broken after a dot where
// one falls in the line, so a subject keeps its tokens whole; a word
// without dots is broken at the width; no line is wider than the width.
func TestWordWrapBreaksLongSubjectsBetweenTokens(t *testing.T) {
	got := wordWrap("not yet: $JS.EVENT.ADVISORY.CONSUMER.DELETED.ORDERS.billing was not seen", 32)
	want := "not yet:\n$JS.EVENT.ADVISORY.CONSUMER.\nDELETED.ORDERS.billing was not\nseen"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := wordWrap("abcdefghijklmnopqrstuvwxyz", 10); got != "abcdefghij\nklmnopqrst\nuvwxyz" {
		t.Errorf("a word with no dot:\n%s", got)
	}
}

// Where the pinned step is cut short, it is cut between its commands,
// never inside one: "consumer next ORDERS us --count" without its 2 reads
// as a whole command, and typed, fails. The cut says that hint and
// lesson print the rest. So is a step taller than a pane too small to pin
// it, which scrolls with the text: at 80x24 (a 34x9 lesson pane)
// lesson subjects' third step ended on "❯ pub".
func TestPinnedStepNeverCutsACommand(t *testing.T) {
	steps := []Step{{Text: "Let us read the US orders", Current: true, Try: []string{
		`consumer add ORDERS us --pull --filter "orders.us.>" --defaults`,
		"consumer next ORDERS us --count 2",
		"consumer info ORDERS us",
	}}}
	for _, size := range [][2]int{{42, 18}, {42, 14}, {34, 8}, {30, 9}} {
		p := newLessonPane(DefaultStyles())
		p.SetLesson("lesson 13 · two-consumers", strings.Repeat("Text of the lesson.\n\n", 30))
		p.SetSteps(steps, "")
		p.SetSize(size[0], size[1])
		lines := p.Lines()
		plain := make([]string, len(lines))
		for i, l := range lines {
			plain[i] = strings.TrimSpace(strings.Trim(ansi.Strip(l), "│"))
		}
		cut := slices.IndexFunc(plain, func(l string) bool { return strings.HasPrefix(l, "… (hint ") })
		if cut < 0 {
			t.Fatalf("at %dx%d the step is not cut short; choose a smaller pane:\n%s", size[0], size[1], strings.Join(plain, "\n"))
		}
		shown := strings.Join(plain[:cut], " ")
		for _, c := range steps[0].Try {
			if first, _, _ := strings.Cut(c, " --"); strings.Contains(shown, first) && !strings.Contains(shown, c) {
				t.Errorf("at %dx%d the command %q is shown in part:\n%s", size[0], size[1], c, strings.Join(plain, "\n"))
			}
		}
	}
}

// Nor is it cut inside what the step lacks: at 100x30 lesson 10's last
// step showed "not yet: the server has not", a sentence that says the
// opposite of the whole one.
func TestPinnedStepNeverCutsWhatItLacks(t *testing.T) {
	why := "the server has not restarted since the previous step"
	steps := []Step{{Text: "Store the messages", Done: true}, {Text: "Restart the server and count what is left", Current: true,
		Try: []string{"restart", "stream ls"}, Why: why}}
	p := newLessonPane(DefaultStyles())
	p.SetLesson("lesson 10 · restart", strings.Repeat("Text of the lesson.\n\n", 30))
	p.SetSteps(steps, "")
	p.SetSize(42, 18)
	var words []string
	for _, l := range p.Lines() {
		words = append(words, strings.Fields(strings.Trim(ansi.Strip(l), " │"))...)
	}
	shown := strings.Join(words, " ")
	if !strings.Contains(shown, "… (hint and lesson print it whole)") {
		t.Fatalf("at 42x18 the step is not cut short; choose a smaller pane:\n%s", shown)
	}
	if strings.Contains(shown, "not yet:") && !strings.Contains(shown, "not yet: "+why) {
		t.Errorf("what the step lacks is shown in part:\n%s", strings.Join(p.Lines(), "\n"))
	}
}

// What the step still lacks stays in the lesson pane where the step is cut
// short, whole, before the commands (hint prints those): at 100x30 and at
// 80x24 ack-redelivery's first step showed its title and command, and
// the not yet line went under the cut.
func TestTheNotYetLineStaysInView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, sz[0], sz[1])
			withScenes(h, "cursor")
			h.run("lesson ack-redelivery")
			h.waitScreen("lesson ack-redelivery 0/6")
			h.pump("the reason", func() bool { return len(h.m.lesson.steps) > 0 && h.m.lesson.steps[0].Why != "" })
			h.settle()
			pane := h.lessonScreen()
			var words []string
			for _, l := range strings.Split(pane, "\n") {
				words = append(words, strings.Fields(strings.Trim(l, "│╭╮╰╯─ "))...)
			}
			if got, want := strings.Join(words, " "), "not yet: there is no consumer worker on stream JOBS: it has no consumers yet"; !strings.Contains(got, want) {
				t.Errorf("the lesson pane lacks %q:\n%s", want, pane)
			}
		})
	}
}

// A not yet line longer than the pinned step's share of the pane takes
// rows of the text's page, a few of which stay: at 100x30 exactly-once's
// first step, its header misspelt, showed its command and not why. Where
// not even the title and the line fit (80x24), the step scrolls to the
// line's start, the rest a scroll away.
func TestALongNotYetLineTakesRowsOfTheText(t *testing.T) {
	const why = "not yet: 1 message on pay.> with header Nats-Msg-Id: pay-1 reached the server, wants at least 2; they carried Nats-Msg-ID: header names are case-sensitive, so that is a different header"
	for _, c := range []struct {
		w, h int
		want []string
	}{
		{100, 30, []string{why, "Exactly once JetStream delivers"}},
		{80, 24, []string{"not yet: 1 message on pay.> with header Nats-Msg-Id: pay-1 reached the server"}},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			h := newHarness(t, c.w, c.h)
			withScenes(h, "cursor")
			h.run("lesson exactly-once")
			h.run(`pub pay.new "charge 10 EUR" -H Nats-Msg-Id:pay-1 --jetstream`)
			h.run(`pub pay.new "charge 10 EUR" -H Nats-Msg-ID:pay-1 --jetstream`)
			h.pump("the reason", func() bool {
				return len(h.m.lesson.steps) > 0 && strings.Contains(h.m.lesson.steps[0].Why, "case-sensitive")
			})
			h.settle()
			pane := h.lessonScreen()
			var words []string
			for _, l := range strings.Split(pane, "\n") {
				words = append(words, strings.Fields(strings.Trim(l, "│╭╮╰╯─ "))...)
			}
			got := strings.Join(words, " ")
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("the lesson pane lacks %q:\n%s", want, pane)
				}
			}
		})
	}
}
