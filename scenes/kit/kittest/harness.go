// Package kittest runs a scene in tests the way the lab runs it: on a real
// broker, on a manual clock, its feed's messages delivered as Bubble Tea
// delivers them, its picture drawn at fixed sizes without escape sequences
// (the picture, not the palette), and the learner's commands typed into a
// real command session.
//
// Tests wait on signals, never for a while: Until for what the scene
// shows, Settle for that and every event its driver sent on the way (the
// feed numbers them), so a golden drawn next is the same on a loaded
// machine.
//
// It imports broker/command, as scenes may (scenes → broker): a scene is
// about what the learner's commands do, so its tests type the real ones
// into the session the lab's command pane runs, rather than imitate them
// with NATS calls of their own that could drift from what the pane does.
// It never imports lab: judging a lesson with a scene open is the lab's
// test (lab/episode).
package kittest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// Epoch is where every scene test's manual clock starts.
var Epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

// Scene is what the harness needs of a scene: a kit.Scene has it all.
type Scene interface {
	scenes.Scene
	Feed() *kit.Feed
	UseStyles(st *kit.Styles)
	Touch()
	Spilled() int
}

// Harness drives one scene. S is the scene's snapshot, as the scene itself
// last read it (what it draws), which Until waits on.
type Harness[Sc Scene, S any] struct {
	T     testing.TB
	Clock *kit.ManualClock
	Scene Sc

	snap      func(Sc) S
	follow    bool
	redraw    bool
	fits      bool
	normalize func(string) string

	waiting chan tea.Msg
	next    tea.Cmd // the command the scene asked to run next
	applied uint64  // the scene has applied this many of its feed's events
	pokes   uint64  // and read its state after this many pokes
}

// Option adjusts a Harness.
type Option func(*harnessOptions)

type harnessOptions struct {
	follow    bool
	redraw    bool
	fits      bool
	normalize func(string) string
	timeout   time.Duration    // a Lab's session's, for each command
	commands  []command.Option // a Lab's session's
}

// FollowCommands delivers what the scene's own commands bring, as Bubble
// Tea does: Init's, then each Update's (frames while something moves,
// events otherwise). Without it Step delivers the feed's events alone, one
// Wait at a time, and never a frame.
func FollowCommands() Option { return func(o *harnessOptions) { o.follow = true } }

// Redraw makes every View draw afresh rather than trust the scene's cache.
func Redraw() Option { return func(o *harnessOptions) { o.redraw = true } }

// FitsThePanes makes every Golden also check the stage drawn with
// NeverCut: nothing cut mid-word at the sizes the lab's scene pane has
// beside a lesson at 80x24 and at 100x30.
func FitsThePanes() Option { return func(o *harnessOptions) { o.fits = true } }

// Normalize rewrites each View (what differs from run to run: inbox
// names, measured times), keeping its width.
func Normalize(f func(string) string) Option { return func(o *harnessOptions) { o.normalize = f } }

// Open builds a scene with build on a manual clock at Epoch, drawing in
// plain styles, closed when the test ends.
func Open[Sc Scene, S any](t testing.TB, dep broker.Deployment, build func(env scenes.Env) (Sc, error), snap func(Sc) S, opts ...Option) *Harness[Sc, S] {
	t.Helper()
	var o harnessOptions
	for _, f := range opts {
		f(&o)
	}
	clock := kit.NewManualClock(Epoch)
	s, err := build(scenes.Env{Deployment: dep, Clock: clock})
	if err != nil {
		t.Fatalf("new scene: %v", err)
	}
	t.Cleanup(s.Close)
	s.UseStyles(kit.NewStyles(false))
	return &Harness[Sc, S]{T: t, Clock: clock, Scene: s, snap: snap,
		follow: o.follow, redraw: o.redraw, fits: o.fits, normalize: o.normalize}
}

// Do runs one of the scene's controls and fails the test on an error.
func (h *Harness[Sc, S]) Do(control string, args ...string) string {
	h.T.Helper()
	out, err := h.Scene.Do(control, args)
	if err != nil {
		h.T.Fatalf("%s %v: %v", control, args, err)
	}
	return out
}

// Step delivers the scene's next message, if one comes within timeout.
func (h *Harness[Sc, S]) Step(timeout time.Duration) bool {
	if h.waiting == nil {
		cmd := h.Scene.Feed().Wait()
		if h.follow {
			if h.next == nil {
				h.next = h.Scene.Init()
			}
			cmd = h.next
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- cmd() }()
		h.waiting = ch
	}
	select {
	case m := <-h.waiting:
		h.waiting = nil
		if fm, ok := m.(kit.FeedMsg); ok && fm.For(h.Scene.Feed()) {
			h.applied = max(h.applied, fm.Through)
			h.pokes = max(h.pokes, fm.Pokes)
		}
		h.next = h.Scene.Update(m)
		if h.next == nil {
			h.next = h.Scene.Init() // a message not the scene's: wait again
		}
		return true
	case <-time.After(timeout):
		return false
	}
}

// Until delivers the scene's messages until its own snapshot satisfies cond.
func (h *Harness[Sc, S]) Until(what string, cond func(S) bool) {
	h.T.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond(h.snap(h.Scene)) {
		if time.Now().After(deadline) {
			h.T.Fatalf("waiting for %s: the scene shows %+v", what, h.snap(h.Scene))
		}
		h.Step(50 * time.Millisecond)
	}
}

// Settle is Until and then CatchUp: once the scene shows cond, every event
// that led there is in too, before the test moves the clock or draws.
func (h *Harness[Sc, S]) Settle(what string, cond func(S) bool) {
	h.T.Helper()
	h.Until(what, cond)
	h.CatchUp()
}

// CatchUp delivers the scene's messages until it has applied every event
// its driver had sent, and read its driver's state since every poke, when
// CatchUp was called. Drivers send an event before the change it reports
// can be read (kit.Feed), so what a snapshot showed by then has its
// events applied.
func (h *Harness[Sc, S]) CatchUp() {
	h.T.Helper()
	feed := h.Scene.Feed()
	events, pokes := feed.Sent(), feed.Poked()
	deadline := time.Now().Add(15 * time.Second)
	for h.applied < events || h.pokes < pokes {
		if time.Now().After(deadline) {
			h.T.Fatalf("the scene applied %d of the %d events and %d of the %d pokes its driver sent", h.applied, events, h.pokes, pokes)
		}
		h.Step(50 * time.Millisecond)
	}
}

// View draws the scene at w×hgt, without escape sequences.
func (h *Harness[Sc, S]) View(w, hgt int) string {
	h.Scene.SetSize(w, hgt)
	if h.redraw {
		h.Scene.Touch()
	}
	v := ansi.Strip(h.Scene.View())
	if h.normalize != nil {
		v = h.normalize(v)
	}
	return v
}

// Golden compares the scene drawn at w×hgt with the subtest's golden file
// (testdata/<test>/<name>.golden; -update rewrites it).
func (h *Harness[Sc, S]) Golden(t *testing.T, name string, w, hgt int) {
	t.Helper()
	v := h.View(w, hgt)
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, v) })
	if h.fits {
		h.NeverCut(t, name)
	}
}

// Size is a terminal size a scene is drawn at, with its golden file's name.
type Size struct {
	Name string
	W, H int
}

// GoldenSizes is Golden at each of sizes: how a scene fits a wide pane, a
// narrow one and a single line.
func (h *Harness[Sc, S]) GoldenSizes(t *testing.T, sizes ...Size) {
	t.Helper()
	for _, sz := range sizes {
		h.Golden(t, sz.Name, sz.W, sz.H)
	}
}

// GoldenPanes is Golden at the sizes the scene pane has beside the lesson
// (scenes.SmallestPanes, scenes.LessonPanes): at 80x24 and at 100x30. The
// golden files are named after the stage, the pane's size and the
// terminal's.
func (h *Harness[Sc, S]) GoldenPanes(t *testing.T, stage string) {
	t.Helper()
	at80, reading := scenes.SmallestPanes[0], scenes.LessonPanes[0]
	h.GoldenSizes(t,
		Size{Name: fmt.Sprintf("%s-%dx%d-80x24", stage, at80.W, at80.H), W: at80.W, H: at80.H},
		Size{Name: fmt.Sprintf("%s-%dx%d-100x30-reading", stage, reading.W, reading.H), W: reading.W, H: reading.H},
	)
}

// clipped finds text kit.Clip cut short: an ellipsis right after a
// character and ending the text ("publish to c…"). An ellipsis on its own
// ("… 12 13", "│…  │") says something was left out, and one between two
// numbers is a range ("#1…#3"): neither is a cut.
var clipped = regexp.MustCompile(`(?m)[^\s…│]…(\s|$)`)

// paneSizes are the sizes NeverCut checks: the scene pane's at 80x24,
// where the lab's full layout starts, and at 100x30 beside the lesson,
// where most lessons are read, and alone; and at the other common
// terminal sizes (scenes.SweepPanes).
var paneSizes = slices.Concat(scenes.SmallestPanes, scenes.LessonPanes, scenes.TypingPanes, scenes.SweepPanes)

// NeverCut draws the scene as it is now at each size the lab's scene pane
// has at 80x24 and at 100x30, beside the lesson and alone
// (scenes.SmallestPanes, scenes.LessonPanes, scenes.TypingPanes), and at
// the other common terminal sizes (scenes.SweepPanes), and fails
// the test where it cut a word: text that
// ran past the pane's edge (kit.Canvas.Spilled), or that was shortened
// with "…", or a line ended cut short (CutShort); where anything touches
// the pane's border (TouchesTheBorder);
// and where its title has no wording that fits the pane's border. stage
// names what the scene shows, for the failure.
func (h *Harness[Sc, S]) NeverCut(t testing.TB, stage string) {
	t.Helper()
	h.NeverCutAt(t, stage, paneSizes...)
}

// NeverCutAt is NeverCut at the sizes given.
func (h *Harness[Sc, S]) NeverCutAt(t testing.TB, stage string, sizes ...scenes.PaneSize) {
	t.Helper()
	for _, sz := range sizes {
		if st, ok := any(h.Scene).(scenes.ShortTitled); !ok || st.TitleWithin(sz.Title) == "" {
			t.Errorf("%s: the title %q has no wording in %d cells, the room its border has at %dx%d", stage, h.Scene.Title(), sz.Title, sz.W, sz.H)
		}
		h.Scene.SetSize(sz.W, sz.H)
		h.Scene.Touch()
		v := ansi.Strip(h.Scene.View())
		if n := h.Scene.Spilled(); n > 0 {
			t.Errorf("%s at %dx%d: %d characters of text ran past the pane's edge:\n%s", stage, sz.W, sz.H, n, v)
		}
		if m := clipped.FindString(v); m != "" {
			t.Errorf("%s at %dx%d: text cut short at %q:\n%s", stage, sz.W, sz.H, m, v)
		}
		if line, ok := CutShort(v); ok {
			t.Errorf("%s at %dx%d: %q ends cut short: the pane has a row to go on in, or the scene a shorter wording to find:\n%s", stage, sz.W, sz.H, line, v)
		}
		if line, ok := TouchesTheBorder(v, sz.W); ok {
			t.Errorf("%s at %dx%d: %q touches the pane's border (the first or the last column):\n%s", stage, sz.W, sz.H, line, v)
		}
		if line, ok := LoneNumber(v); ok {
			t.Errorf("%s at %dx%d: %q stands alone on its line, wrapped away from the words it belongs to (join them with text.NoBreak):\n%s", stage, sz.W, sz.H, line, v)
		}
	}
}

// loneNumber is a line of nothing but a number ("1", "#12", "3,000"),
// maybe ending a sentence ("5)", "12.").
var loneNumber = regexp.MustCompile(`^#?\d[\d,]*[).;:]?$`)

// LoneNumber reports the first line of frame (no escape sequences) that
// is a number alone under a line of text starting in the same column: a
// sentence wrapped so that its number went to a line of its own
// ("dropped the oldest" over "1"). A label elsewhere (a message's "#1"
// above its dot) is no sentence's end.
func LoneNumber(frame string) (string, bool) {
	lines := strings.Split(frame, "\n")
	for i := 1; i < len(lines); i++ {
		l, above := lines[i], lines[i-1]
		n := strings.TrimSpace(l)
		if loneNumber.MatchString(n) && strings.TrimSpace(above) != "" && indent(l) == indent(above) {
			return n, true
		}
	}
	return "", false
}

// indent is how many blanks l starts with.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// wordsCut finds a line that kit.Clip ended at a blank ("… a request
// there bounces …"): whole words, then the mark, ending the line.
var wordsCut = regexp.MustCompile(`\S …$`)

// CutShort reports the first line of frame (no escape sequences) that
// ends cut short: a sentence the learner never reads the end of. Where
// the pane has a blank row the sentence can go on there (the scene may
// move what is below it, or drop a spacer, to make room); where it has
// none, the scene says less in words of its own (a shorter wording), or
// leaves the sentence out. A cut inside a line — a name in a box, a
// table's column — ends no line.
func CutShort(frame string) (string, bool) {
	for _, l := range strings.Split(frame, "\n") {
		l = strings.TrimRight(l, " ")
		if wordsCut.MatchString(l) || clipped.MatchString(l) && strings.HasSuffix(l, "…") {
			return strings.TrimSpace(l), true
		}
	}
	return "", false
}

// TouchesTheBorder reports the first line of frame (no escape sequences),
// drawn w cells wide, with anything in its first or its last column: a
// label run up to the pane's border reads as part of it ("│[pub]"), so
// every layout leaves a blank column at each side.
func TouchesTheBorder(frame string, w int) (string, bool) {
	for _, l := range strings.Split(frame, "\n") {
		l = strings.TrimRight(l, " ")
		if l == "" {
			continue
		}
		if first, _ := utf8.DecodeRuneInString(l); first != ' ' || text.Width(l) >= w {
			return l, true
		}
	}
	return "", false
}
