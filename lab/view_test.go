package lab

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"natslab/scenes"
)

// Goldens of the screen, colours stripped, at the sizes the lab must read
// well at. Deterministic: a fixed clock, the store under a fresh HOME (shown
// as ~/store), the random port masked. Update with: go test ./lab -run
// TestViewGolden -update
func TestViewGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, sz[0], sz[1])
			stableScenes(h)
			h.run(`pub greet "Hello NATS!"`)
			h.run(`pubb greet`)
			h.settle()
			golden.RequireEqual(t, []byte(h.screen()))
		})
	}
}

func TestViewGoldenHelp(t *testing.T) {
	h := newHarness(t, 80, 24)
	stableScenes(h)
	h.typeText("?")
	golden.RequireEqual(t, []byte(h.screen()))
}

func TestViewGoldenCompactAndTooSmall(t *testing.T) {
	for _, sz := range [][2]int{{78, 20}, {50, 15}, {30, 6}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, sz[0], sz[1])
			stableScenes(h)
			h.run(`pub greet "Hello NATS!"`)
			h.settle()
			golden.RequireEqual(t, []byte(h.screen()))
		})
	}
}

// The welcome reads like a lesson: from 30 rows the lesson pane takes most
// of the height whatever it shows, and below that the welcome takes the
// command pane's rows down to a dozen, so the sandbox's first screen has
// the welcome's first steps whole beside the scene's introduction from
// 80x24. F2, hiding the pane, gives its rows to the command pane.
func TestTheWelcomesFirstStepsReadWhole(t *testing.T) {
	const last = "3. jobs lists what runs; stop 1 (or Ctrl-C) ends it."
	for _, sz := range [][2]int{{80, 24}, {100, 27}, {120, 28}, {100, 30}, {120, 36}} {
		h := newHarness(t, sz[0], sz[1])
		if got := textIn(h.screen(), h.m.lay.lesson); !strings.Contains(got, last) {
			t.Errorf("%dx%d: the welcome's first steps are not whole in the lesson pane: %q", sz[0], sz[1], got)
		}
		h.key("f2")
		if l := h.m.lay; l.lesson.w != 0 || l.top.w != sz[0] || l.cmd.h <= l.top.h {
			t.Errorf("%dx%d, lesson pane hidden: the scene is %dx%d, the command pane %dx%d; want the scene full width over a taller command pane", sz[0], sz[1], l.top.w, l.top.h, l.cmd.w, l.cmd.h)
		}
		h.key("f2")
		if got := textIn(h.screen(), h.m.lay.lesson); !strings.Contains(got, last) {
			t.Errorf("%dx%d, lesson pane shown again: the welcome's first steps are not whole: %q", sz[0], sz[1], got)
		}
	}
}

// While no scene is open (the scene pane shows only its introduction),
// the lesson pane takes the wider share: the welcome reads whole at
// 120x36 and in the wide layout's column from 140x30, and its two blocks
// of commands whole at 100x30, and at 80x24 it is wider, while the
// introduction beside it keeps its picture and says what scenes are, and
// the wide layout's command pane the 80 columns the real CLI's output is
// drawn for. A scene,
// however it opens (scene NAME, a lesson's own) and whatever the window
// does meanwhile, gets the split the scenes are drawn for; the log (F3)
// too; closing the scene gives the room back (less the rows the command
// pane has filled meanwhile).
func TestTheWelcomeTakesTheRoomWhileNoSceneIsOpen(t *testing.T) {
	const (
		commands = `4. sub "events.>" --all --terminate-at-end`
		last     = "F1 shows the keys. quit leaves; streams stay in the store for next time."
		intro    = "publisher ──▶ ( NATS ) ──▶ subscriber Scenes draw what happens on the broker, whoever causes it."
	)
	// The panes with a scene open, as the scenes are drawn for (100x30:
	// scenes.LessonPanes), beside the welcome and beside a lesson.
	withScene := map[[2]int]struct{ top, lesson rect }{
		{80, 24}:  {rect{0, 0, 46, 9}, rect{46, 0, 34, 9}},
		{100, 30}: {rect{0, 0, 58, 18}, rect{58, 0, 42, 18}},
		{120, 36}: {rect{0, 0, 70, 18}, rect{70, 0, 50, 18}},
		{140, 30}: {rect{0, 0, 96, 12}, rect{96, 0, 44, 29}},
	}
	withLesson := map[[2]int]struct{ top, lesson rect }{
		{120, 36}: {rect{0, 0, 70, 21}, rect{70, 0, 50, 21}},
	}
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 36}, {140, 30}} {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		h := newHarness(t, sz[0], sz[1])
		built := withScenes(h, "contrast", "mine")
		split := withScene[sz]
		reading := h.m.lay
		s := h.screen()
		welcome, top := textIn(s, reading.lesson), textIn(s, reading.top)
		if reading.lesson.w <= split.lesson.w {
			t.Errorf("%s, no scene: the lesson pane is %d wide, no wider than beside a scene (%d)", name, reading.lesson.w, split.lesson.w)
		}
		if !strings.Contains(top, intro) {
			t.Errorf("%s, no scene: the introduction no longer says what scenes are: %q", name, top)
		}
		switch sz[0] {
		case 120, 140:
			if !strings.Contains(welcome, last) || strings.Contains(s, "more line") {
				t.Errorf("%s: the welcome is cut:\n%s", name, s)
			}
			if reading.wide && reading.cmd.w < 80 {
				t.Errorf("%s: the command pane is %d wide, narrower than the real CLI's output", name, reading.cmd.w)
			}
		case 100:
			if !strings.Contains(welcome, commands) {
				t.Errorf("%s: the welcome's commands are cut: %q", name, welcome)
			}
		}
		// Back in the sandbox, the panes are as they were for the
		// welcome, but for the rows the command pane now fills.
		back := func() struct{ top, lesson rect } {
			l := computeLayout(sz[0], sz[1], onScreen{lesson: true, welcome: true, text: h.m.lesson.TextLines, cmd: h.m.cmdRowsNow()})
			if l.top.w != reading.top.w || l.lesson.w != reading.lesson.w {
				t.Errorf("%s: the welcome's panes changed width as the command pane filled: %+v, %+v at first", name, l, reading)
			}
			return struct{ top, lesson rect }{l.top, l.lesson}
		}
		panes := func(when string, want struct{ top, lesson rect }) {
			t.Helper()
			if l := h.m.lay; l.top != want.top || l.lesson != want.lesson {
				t.Errorf("%s, %s: the scene pane is %+v and the lesson pane %+v; want %+v and %+v", name, when, l.top, l.lesson, want.top, want.lesson)
			}
		}
		h.run("scene mine")
		h.waitScreen("scene: the mine scene")
		panes("scene NAME", split)
		if b := built(); len(b) != 1 || b[0].w != split.top.w-2 || b[0].h != split.top.h-2 {
			t.Errorf("%s: the scene was not given its pane's size", name)
		}
		h.send(tea.WindowSizeMsg{Width: 90, Height: 27})
		h.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		panes("a scene open while the window changed size", split)
		h.run("scene off")
		panes("scene off", back())
		h.key("f3")
		panes("the server log shown", split)
		h.key("f3")
		panes("the server log hidden", back())
		h.run("lesson first-stream") // its scene: contrast
		h.waitScreen("scene: the contrast scene", "lesson 6 · first-stream")
		lessonSplit, ok := withLesson[sz]
		if !ok {
			lessonSplit = split
		}
		panes("a lesson with a scene", lessonSplit)
		h.run("lesson leave")
		h.waitScreen("lesson: Welcome to natslab")
		panes("back in the sandbox", back())
		h.close()
	}
}

// In the sandbox, a scene beside the welcome gets the rows the scenes are
// drawn for beside the lesson pane at 100x30 (scenes.LessonPanes), or
// typing's share where that is more, and the command pane, where the
// learner types what the scene shows, the rest; a lesson open beside it
// takes most of the height again for its steps and text, and leaving it
// gives the rows back.
func TestASceneBesideTheWelcomeLeavesTheRowsToTheCommandPane(t *testing.T) {
	drawnFor := scenes.LessonPanes[0].H
	for _, sz := range [][2]int{{100, 30}, {120, 36}, {110, 44}, {130, 60}} {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		h := newHarness(t, sz[0], sz[1])
		built := withScenes(h, "contrast", "mine")
		h.run("scene mine")
		h.waitScreen("scene: the mine scene")
		l := h.m.lay
		typing := computeLayout(sz[0], sz[1], onScreen{scene: true})
		want := max(drawnFor, typing.top.h-2)
		if b := built(); len(b) != 1 || b[0].h != want || l.lesson.h != l.top.h {
			t.Errorf("%s: the scene draws in %d rows beside a %d-row lesson pane; want %d rows, the lesson pane beside it as tall", name, b[0].h, l.lesson.h, want)
		}
		if l.cmd.h != sz[1]-1-l.top.h {
			t.Errorf("%s: the command pane has %d rows of the %d below the scene", name, l.cmd.h, sz[1]-1-l.top.h)
		}
		h.run("lesson first-stream") // its scene: contrast
		h.waitScreen("scene: the contrast scene", "lesson 6 · first-stream")
		if got := h.m.lay.lesson.h; got < min(sz[1]*60/100, 30) {
			t.Errorf("%s: a lesson beside its scene has %d rows; want 60%% of the height, up to 30", name, got)
		}
		h.run("lesson leave")
		h.waitScreen("lesson: Welcome to natslab")
		h.run("scene mine")
		h.waitScreen("scene: the mine scene")
		if h.m.lay != l {
			t.Errorf("%s: back in the sandbox the panes are %+v; want %+v", name, h.m.lay, l)
		}
		h.close()
	}
}

// A lesson read with no scene beside it (a lesson without one) keeps the
// command pane the rows it has beside a scene: its text scrolls anyway,
// and the learner types its steps there. Only a text that then reads
// whole (the welcome) takes a few of them.
func TestAScrollingTextLeavesTheCommandPaneItsRows(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {110, 50}} {
		h := newHarness(t, sz[0], sz[1])
		h.run("lesson services")
		h.waitScreen("lesson 32 · services")
		if h.m.scene.scene != nil {
			t.Fatalf("the services lesson opened a scene: the test wants a lesson without one")
		}
		beside := computeLayout(sz[0], sz[1], onScreen{lesson: true, scene: true})
		if got := h.m.lay.cmd.h; got != beside.cmd.h {
			t.Errorf("%dx%d: the command pane has %d rows beside a lesson with no scene; %d beside a scene", sz[0], sz[1], got, beside.cmd.h)
		}
		h.close()
	}
}

// In the wide layout, from 140x30 up, the sandbox's welcome reads whole
// in its column while no scene is open, at every size and whatever the
// window went through before, the command pane keeping the 80 columns the
// real CLI's output is drawn for; beside a scene the column keeps its
// usual share.
func TestTheWideLayoutHoldsTheWelcomeWhole(t *testing.T) {
	p := newLessonPane(DefaultStyles())
	for w := wideWidth; w <= 220; w++ {
		for h := wideHeight; h <= 60; h++ {
			l := computeLayout(w, h, onScreen{lesson: true, text: p.TextLines})
			if got := p.TextLines(l.lesson.w - lessonFrameW); !l.wide || got > l.lesson.h-lessonFrameH || l.cmd.w < 80 {
				t.Fatalf("%dx%d: the welcome takes %d lines in a %dx%d column beside a %d-wide command pane", w, h, got, l.lesson.w, l.lesson.h, l.cmd.w)
			}
			if s := computeLayout(w, h, onScreen{lesson: true, scene: true, text: p.TextLines}); s.lesson.w != clamp(w*32/100, 40, 80) {
				t.Fatalf("%dx%d: beside a scene the column is %d wide", w, h, s.lesson.w)
			}
		}
	}
}

// The sandbox's welcome, no scene open, reads whole at every size from
// 80x24 to 200x60 where the lab's rules leave room for it: beside the
// scene's introduction (its picture whole) above a command pane of a dozen
// rows, or in a column over the full height beside a command pane of the
// 80 columns the real CLI's output is drawn for, whichever holds it. Where
// neither does, it is the column where that hides half as many of its
// lines or fewer, and the pane's border says how many lines are below and
// the key that shows them.
func TestTheWelcomeReadsWholeWhereItCan(t *testing.T) {
	p := newLessonPane(DefaultStyles())
	on := onScreen{lesson: true, welcome: true, text: p.TextLines}
	for w := fullWidth; w <= 200; w++ {
		for h := fullHeight; h <= 60; h++ {
			l := computeLayout(w, h, on)
			p.SetSize(l.lesson.w, l.lesson.h)
			frame := p.Lines()
			note := ansi.Strip(frame[len(frame)-1])
			if l.wide && l.cmd.w < cliWidth {
				t.Fatalf("%dx%d: the command pane is %d wide beside the welcome", w, h, l.cmd.w)
			}
			if !strings.Contains(note, "more") {
				continue
			}
			cut := on.rowsAt(l.lesson.w) - l.lesson.h
			if column := min(80, w-cliWidth); column >= 40 && 2*max(on.rowsAt(column)-(h-1), 0) <= cut {
				t.Fatalf("%dx%d: the welcome is cut by %d lines in a %dx%d pane (%q); a %d-column column beside the command pane cuts it by %d", w, h, cut, l.lesson.w, l.lesson.h, note, column, max(on.rowsAt(column)-(h-1), 0))
			}
			if top := narrowLayout(layout{w: w, h: h}, on); hidden(on, top) < cut {
				t.Fatalf("%dx%d: the welcome is cut by %d lines in a %dx%d pane (%q); beside the introduction, %dx%d, by %d", w, h, cut, l.lesson.w, l.lesson.h, note, top.lesson.w, top.lesson.h, hidden(on, top))
			}
			if !strings.Contains(note, "f6") {
				t.Fatalf("%dx%d: the welcome is cut and its border does not say how to read on: %q", w, h, note)
			}
		}
	}
}

// Where the welcome cannot read whole, F6 pages it to its last line, the
// border saying how many lines are left until then, and F5 back to its
// first.
func TestF6PagesThroughTheWelcome(t *testing.T) {
	const first, last = "First steps", "streams stay in the store for next time."
	for _, sz := range [][2]int{{80, 24}, {110, 33}, {130, 30}} {
		h := newHarness(t, sz[0], sz[1])
		for i := 0; !strings.Contains(textIn(h.screen(), h.m.lay.lesson), last); i++ {
			l := h.m.lay.lesson
			border := ansi.Cut(strings.Split(h.screen(), "\n")[l.y+l.h-1], l.x, l.x+l.w)
			if i == 10 || !strings.Contains(border, "more") || !strings.Contains(border, "f6") {
				t.Fatalf("%dx%d: the welcome's end is not in view and the border does not say f6 shows it:\n%s", sz[0], sz[1], h.screen())
			}
			h.key("f6")
		}
		for range 10 {
			h.key("f5")
		}
		if got := textIn(h.screen(), h.m.lay.lesson); !strings.HasPrefix(got, first) {
			t.Errorf("%dx%d: F5 does not page back to the welcome's start: %q", sz[0], sz[1], got)
		}
		h.close()
	}
}

// textIn is the text inside r on screen, its border left out, the words
// joined by single blanks.
func textIn(screen string, r rect) string {
	lines := strings.Split(screen, "\n")
	var words []string
	for y := r.y + 1; y < r.y+r.h-1 && y < len(lines); y++ {
		words = append(words, strings.Fields(ansi.Cut(lines[y], r.x+1, r.x+r.w-1))...)
	}
	return strings.Join(words, " ")
}

// Below the full layout the scene and lesson panes give way to the
// command pane, and the first line says what size brings them back.
func TestCompactSaysWhatSizeShowsThePanes(t *testing.T) {
	h := newHarness(t, 70, 20)
	h.run("lesson hello")
	first, _, _ := strings.Cut(h.screen(), "\n")
	if !strings.Contains(first, "scene and lesson need 80x24 (now 70x20): make it larger") {
		t.Fatalf("the compact layout should say what size shows the panes:\n%s", h.screen())
	}
}

// Below the lab's minimum size, even a tiny window says what to do, its
// words wrapped over the rows it has.
func TestATooSmallWindowSaysWhatToDo(t *testing.T) {
	h := newHarness(t, 100, 30)
	for _, tc := range []struct {
		w, h int
		want string
	}{
		{20, 5, "natslab needs a window of at least 40x8 (this one is 20x5): make it larger"},
		{30, 2, "natslab needs at least 40x8 (now 30x2): make it larger"},
	} {
		h.send(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
		var words []string
		for _, l := range strings.Split(h.screen(), "\n") {
			words = append(words, strings.Fields(l)...)
		}
		if got := strings.Join(words, " "); got != tc.want {
			t.Errorf("%dx%d says %q, want %q", tc.w, tc.h, got, tc.want)
		}
	}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if !strings.Contains(h.screen(), "─ commands ─") {
		t.Errorf("back at 100x30, the panes are not back:\n%s", h.screen())
	}
}

// TestEverySizeFillsTheScreenExactly resizes through many sizes, with
// content, help, the log and scrolling in play: every frame must be exactly
// the window (h lines of w cells), or at most h when too small, and
// nothing may panic.
func TestEverySizeFillsTheScreenExactly(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run(`pub greet "Hello NATS!"`)
	h.run(`help`)
	for i := range 300 {
		h.m.sb.Append(kindOut, strings.Repeat(fmt.Sprintf("wide line %d ✓ ", i), i%13+1))
	}
	r := rand.New(rand.NewPCG(1, 2))
	sizes := [][2]int{{1, 1}, {0, 0}, {39, 8}, {40, 7}, {40, 8}, {79, 24}, {80, 23}, {80, 24}, {139, 29}, {140, 30}, {250, 80}}
	for range 150 {
		sizes = append(sizes, [2]int{r.IntN(260), r.IntN(90)})
	}
	for i, sz := range sizes {
		switch i % 5 {
		case 1:
			h.key("f1")
		case 2:
			h.key("f3")
		case 3:
			h.key("pgup")
		case 4:
			h.key("f2")
		}
		h.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		content := h.m.View().Content
		w, hh := sz[0], sz[1]
		if w <= 0 || hh <= 0 {
			if content != "" {
				t.Errorf("%dx%d: want nothing drawn, got %q", w, hh, content)
			}
			continue
		}
		lines := strings.Split(content, "\n")
		if h.m.lay.tooSmall {
			if len(lines) > hh {
				t.Errorf("%dx%d: the size message is %d lines", w, hh, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) != w {
					t.Errorf("%dx%d: a line of the size message is %d wide: %q", w, hh, ansi.StringWidth(l), l)
				}
			}
			continue
		}
		if len(lines) != hh {
			t.Fatalf("%dx%d: %d lines", w, hh, len(lines))
		}
		for y, l := range lines {
			if got := ansi.StringWidth(l); got != w {
				t.Fatalf("%dx%d: line %d is %d wide: %q", w, hh, y, got, ansi.Strip(l))
			}
		}
	}
}

// A scene's frames are fitted to the pane as fitLines fits them, whether
// a line is new or the same as on the frame before, and after the pane
// changes width.
func TestSceneFramesFitAsFitLines(t *testing.T) {
	var c fitCache
	frames := []struct {
		text string
		w, h int
	}{
		{"a\n\x1b[1mbold\x1b[m ──●──\nwide 日本\n", 12, 4},
		{"a\n\x1b[1mbold\x1b[m ───●─\nwide 日本\n", 12, 4},
		{"a\nmuch longer than the pane is wide\n", 12, 4},
		{"a\n\x1b[1mbold\x1b[m ───●─\nwide 日本\nfour\nfive: more than h", 12, 4},
		{"a\n\x1b[1mbold\x1b[m ───●─\nwide 日本\n", 8, 3},
		{"", 8, 3},
		{"a\n\x1b[1mbold\x1b[m ───●─\n", 8, 3},
	}
	for i, f := range frames {
		got, want := c.lines(f.text, f.w, f.h), fitLines(f.text, f.w, f.h)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("frame %d at %dx%d:\n got %q\nwant %q", i, f.w, f.h, got, want)
		}
	}
}

// The command pane's rule says what ctrl+c does now: with no job running
// and nothing typed it quits (pressed twice), with a line typed it clears
// it, and with a job running it stops the job.
func TestTheRuleSaysWhatCtrlCDoesNow(t *testing.T) {
	h := newHarness(t, 160, 40)
	h.key("f2") // the command pane full width, its rule room for every key
	rule := func() string {
		return strings.Split(h.screen(), "\n")[h.m.lay.cmd.y]
	}
	if r := rule(); !strings.Contains(r, "ctrl+c quit (twice)") {
		t.Errorf("idle, the rule says %q; want ctrl+c quit (twice)", r)
	}
	h.typeText("pub greet")
	if r := rule(); !strings.Contains(r, "ctrl+c clear the line") {
		t.Errorf("with a line typed, the rule says %q; want ctrl+c clear the line", r)
	}
	h.key("ctrl+c")
	h.typeText("sub greet")
	h.key("enter")
	h.waitScreen("Subscribing on greet")
	if r := rule(); !strings.Contains(r, "ctrl+c stop job") {
		t.Errorf("with sub greet running, the rule says %q; want ctrl+c stop job", r)
	}
	h.key("ctrl+c")
	h.waitScreen("[1] stopped: sub greet")
	if r := rule(); !strings.Contains(r, "ctrl+c quit (twice)") {
		t.Errorf("the job stopped, the rule says %q; want ctrl+c quit (twice)", r)
	}
}

// The narrow layout leaves the command pane cmdRows at least, whatever the
// panes on top show (a scene beside a lesson at exactly 30 rows too), and
// a text read with nothing beside it takes the pane's rows down to
// exactly that many where it is cut.
func TestTheCommandPaneKeepsItsRows(t *testing.T) {
	p := newLessonPane(DefaultStyles())
	for w := fullWidth; w <= 200; w++ {
		for h := fullHeight; h <= 60; h++ {
			for _, on := range []onScreen{
				{lesson: true, scene: true, text: p.TextLines},
				{lesson: true, scene: true, welcome: true, text: p.TextLines},
				{lesson: true, welcome: true, text: p.TextLines},
				{lesson: true, text: p.TextLines},
				{scene: true},
				{},
			} {
				l := computeLayout(w, h, on)
				if l.wide {
					continue
				}
				if l.cmd.h < cmdRows {
					t.Fatalf("%dx%d %+v: the command pane has %d rows, fewer than %d", w, h, on, l.cmd.h, cmdRows)
				}
				if on.welcome && !on.scene && hidden(on, l) > 0 && l.cmd.h != cmdRows {
					t.Fatalf("%dx%d: the welcome is cut by %d lines above a command pane of %d rows; want %d", w, h, hidden(on, l), l.cmd.h, cmdRows)
				}
			}
		}
	}
}

// While the command pane holds only its greeting, the welcome beside the
// scenes' introduction takes the rows the pane does not use: where it is
// cut, no row of the pane is blank. The pane gets its rows back as the
// commands' output arrives, down to cmdRows, the welcome's layout
// otherwise as it was, and keeps them when its output is cleared (ctrl+l):
// clearing moves no pane.
func TestTheWelcomeTakesTheRowsTheCommandPaneDoesNotUse(t *testing.T) {
	for _, sz := range [][2]int{{110, 33}, {80, 24}, {100, 27}, {130, 30}, {90, 40}} {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		h := newHarness(t, sz[0], sz[1])
		l := h.m.lay
		rows := strings.Split(h.screen(), "\n")
		border := ansi.Cut(rows[l.lesson.y+l.lesson.h-1], l.lesson.x, l.lesson.x+l.lesson.w)
		if strings.Contains(border, "more") {
			for y := l.cmd.y + 1; y < l.cmd.y+l.cmd.h-1; y++ {
				if strings.TrimSpace(rows[y]) == "" {
					t.Errorf("%s: the welcome is cut (%q) above a command pane with a blank row:\n%s", name, border, h.screen())
					break
				}
			}
		}
		for i := range 4 {
			h.run(fmt.Sprintf("pub greet %d", i))
		}
		settled := computeLayout(sz[0], sz[1], onScreen{lesson: true, welcome: true, text: h.m.lesson.TextLines})
		if h.m.lay != settled {
			t.Errorf("%s: with the pane full, the panes are %+v; want %+v", name, h.m.lay, settled)
		}
		h.key("ctrl+l")
		h.screen()
		if h.m.lay != settled {
			t.Errorf("%s: clearing the output moved the panes to %+v; want them where they were, %+v", name, h.m.lay, settled)
		}
		h.close()
	}
}
