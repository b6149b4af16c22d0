package lab

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/assets"
	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/lab/policy"
	"natslab/scenes"
	"natslab/scenes/kit"
)

func TestRunLineShowsExactlyWhatTheCommandPrints(t *testing.T) {
	h := newHarness(t, 120, 40)
	lines := []string{`pub greet "Hello NATS!"`, `pub greet hi --count 3`, `pubb greet`, `pub "bad subject" x`, `help pub`, `pub greet hi --cont 3`, `req nobody hi`}
	for _, l := range lines {
		h.run(l)
	}
	// The same lines through a plain session on the same server and clock.
	s := command.NewSession(h.srv, command.WithClock(fixedClock{}.Now), command.WithTimeout(2*time.Second), command.WithHelpWidth(h.m.cmd.w))
	defer s.Close()
	var want []string
	for _, l := range lines {
		// One buffer, as the pane shows the streams interleaved in the
		// order they were written; notes and the lab's refusals marked.
		var all bytes.Buffer
		st := command.Streams{Out: &all, Err: &all, Note: command.MarkNotes(&all), Lab: command.MarkNotes(&all)}
		err := s.RunStreams(context.Background(), l, st)
		command.ReportError(st, err)
		want = append(want, promptText+l)
		if all.Len() > 0 {
			want = append(want, strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n")...)
		}
	}
	got := h.m.sb.Lines()
	// Skip the greeting.
	for len(got) > 0 && !strings.HasPrefix(got[0], promptText) {
		got = got[1:]
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pane text differs from the session's:\n--- pane\n%s\n--- session\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(h.text(), `15:04:05 Published 11 bytes to "greet"`) {
		t.Errorf("no publish status line:\n%s", h.text())
	}
	if !strings.Contains(h.text(), command.NoteMarker+`unknown command "pubb"`) {
		t.Errorf("no refusal of the lab's:\n%s", h.text())
	}
	if !strings.Contains(h.text(), "nats: error: nats: invalid subject") {
		t.Errorf("no error line:\n%s", h.text())
	}
	if !strings.Contains(h.text(), "No responders are available\n"+command.NoteMarker+"nobody subscribes") {
		t.Errorf("no note after the real line:\n%s", h.text())
	}
}

func TestErrorLinesAreKindError(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.run(`pub "bad subject" x`)
	h.run("nonsense words")
	h.m.sb.mu.Lock()
	defer h.m.sb.mu.Unlock()
	kinds := map[string][]lineKind{}
	for i := range h.m.sb.n {
		e := h.m.sb.ring[(h.m.sb.start+i)%len(h.m.sb.ring)]
		for _, start := range []string{"nats: error:", command.NoteMarker + "unknown command", "unknown command"} {
			if strings.HasPrefix(e.text, start) {
				kinds[start] = append(kinds[start], e.kind)
			}
		}
	}
	// The real CLI's error line is styled as an error; the lab's own
	// refusal of a line is the lab speaking, styled as its notes.
	if k := kinds["nats: error:"]; len(k) != 1 || k[0] != kindError {
		t.Errorf("want one error line of kind error, got %v", k)
	}
	if k := kinds[command.NoteMarker+"unknown command"]; len(k) != 1 || k[0] != kindNote {
		t.Errorf("want the lab's refusal as one note, got %v", k)
	}
	if k := kinds["unknown command"]; len(k) != 0 {
		t.Errorf("the lab's refusal without the note marker: %v", k)
	}
}

// blockingVerb is a long-running command for job tests (sub lands in
// another package; this one needs nothing but the session).
func addBlockingVerb(m *Model) {
	m.Session().AddVerb(command.Verb{Name: "wait", Usage: "wait", Summary: "waits until stopped", Run: func(c *command.Call, _ []string) error {
		c.Ready()
		<-c.Ctx.Done()
		return c.Ctx.Err()
	}})
}

// At 80 columns lesson subjects' two subscribers do not fit the jobs bar
// with their counts spelt out: the counts shrink or go (the scene shows
// them), and no job, nor what ctrl+c stops, is cut off mid-word.
func TestJobsBarShrinksInsteadOfCutting(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, line := range []string{`sub "orders.*.created"`, `sub "orders.>"`} {
		h.typeText(line)
		h.key("enter")
	}
	h.pump("two subscribers", func() bool {
		n := 0
		for _, pj := range h.m.cmd.jobs {
			if subj, _ := pj.job.Listening(); subj != "" {
				n++
			}
		}
		return n == 2
	})
	var bar string
	for _, line := range strings.Split(h.screen(), "\n") {
		if strings.Contains(line, "running:") {
			bar = line
		}
	}
	if !strings.Contains(bar, `running: [1] sub "orders.*.created"`) || !strings.Contains(bar, `[2] sub "orders.>"`) || !strings.Contains(bar, "· ctrl+c stops [2]") || strings.Contains(bar, "…") {
		t.Errorf("jobs bar at 80 columns: %q\n%s", bar, h.screen())
	}
}

func TestJobsRunBesideThePromptAndCtrlCStopsTheForeground(t *testing.T) {
	h := newHarness(t, 120, 40)
	addBlockingVerb(h.m)
	h.typeText("wait &")
	h.key("enter")
	h.typeText("wait")
	h.key("enter")
	h.pump("two jobs", func() bool { return len(h.m.cmd.jobs) == 2 })
	// The prompt still works while both run.
	h.run("pub greet hi")
	if !strings.Contains(h.screen(), "running: [1] wait &  [2] wait  · ctrl+c stops [2]") {
		t.Errorf("jobs bar missing:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "2 jobs") {
		t.Errorf("status bar does not count the jobs:\n%s", h.screen())
	}
	h.key("ctrl+c")
	h.pump("job 2 to stop", func() bool { return len(h.m.cmd.jobs) == 1 })
	if !strings.Contains(h.text(), "[2] stopped: wait") {
		t.Errorf("no stop note:\n%s", h.text())
	}
	// Job 1 was started with &: Ctrl-C leaves it; stop 1 ends it.
	if h.m.cmd.foreground() != nil {
		t.Errorf("a background job counts as foreground")
	}
	h.run("jobs")
	if !strings.Contains(h.text(), "[1] wait") {
		t.Errorf("jobs does not list job 1:\n%s", h.text())
	}
	h.run("stop 1")
	h.pump("job 1 to end", func() bool { return len(h.m.cmd.jobs) == 0 })
	if !strings.Contains(h.text(), "[1] stopped: wait") {
		t.Errorf("stop 1 said nothing:\n%s", h.text())
	}
	if h.quit {
		t.Fatal("quit while stopping jobs")
	}
}

func TestCtrlCTwiceQuits(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("half a line")
	h.key("ctrl+c")
	if !h.m.cmd.Empty() || h.quit {
		t.Fatalf("ctrl+c with text should clear the line, not quit")
	}
	h.key("ctrl+c")
	if !strings.Contains(h.screen(), "press ctrl+c again to quit") {
		t.Errorf("no hint after one ctrl+c:\n%s", h.screen())
	}
	h.key("ctrl+c")
	h.pump("quit", func() bool { return h.quit })
}

// Ctrl+C pressed twice on a running job, as one does in a shell, stops
// the job and stays: quitting still takes a ctrl+c after the hint.
func TestCtrlCTwiceOnAJobStays(t *testing.T) {
	h := newHarness(t, 80, 24)
	addBlockingVerb(h.m)
	h.typeText("wait")
	h.key("enter")
	h.pump("the job", func() bool { return h.m.cmd.foreground() != nil })
	h.key("ctrl+c")
	h.key("ctrl+c")
	h.pump("the job to stop", func() bool { return len(h.m.cmd.jobs) == 0 })
	if h.quit || h.m.quitting {
		t.Fatal("two ctrl+c on a running job quit the lab")
	}
	if !strings.Contains(h.screen(), "press ctrl+c again to quit") {
		t.Errorf("the second ctrl+c did not say how to quit:\n%s", h.screen())
	}
	h.key("ctrl+c")
	h.pump("quit", func() bool { return h.quit })
}

func TestQuitWords(t *testing.T) {
	for _, how := range []string{"quit", "exit", "nats quit", "ctrl+d"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, 80, 24)
			if how == "ctrl+d" {
				h.typeText("x")
				h.key("ctrl+d") // deletes forward, on a non-empty line
				if h.m.quitting {
					t.Fatal("ctrl+d quit with text on the line")
				}
				h.key("backspace")
				h.key("ctrl+d")
			} else {
				h.typeText(how)
				h.key("enter")
			}
			h.pump("quit", func() bool { return h.quit })
		})
	}
}

func TestClearAndCtrlL(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.run("pub greet hi")
	h.run("clear")
	if got := h.m.sb.Lines(); len(got) != 0 {
		t.Errorf("clear left %q", got)
	}
	h.run("pub greet hi")
	h.key("ctrl+l")
	if got := h.m.sb.Lines(); len(got) != 0 {
		t.Errorf("ctrl+l left %q", got)
	}
}

func TestConfirmAsksInThePane(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.typeText("reset")
	h.key("enter")
	h.pump("the question", func() bool { return len(h.m.cmd.confirms) == 1 })
	if !strings.Contains(h.screen(), "y/N? ") || !strings.Contains(h.text(), "[y/N]") {
		t.Fatalf("question not shown:\n%s", h.screen())
	}
	h.typeText("n")
	h.pump("reset to end", func() bool { return len(h.m.cmd.jobs) == 0 })
	if !strings.Contains(h.text(), "Nothing was erased") {
		t.Errorf("answer n did not keep the data:\n%s", h.text())
	}
	h.typeText("reset")
	h.key("enter")
	h.pump("the question", func() bool { return len(h.m.cmd.confirms) == 1 })
	// Typing goes nowhere while a question waits; y answers it.
	h.typeText("q")
	if len(h.m.cmd.confirms) != 1 {
		t.Fatal("an unrelated key answered the question")
	}
	if !strings.Contains(h.screen(), "the question above waits: y for yes") {
		t.Errorf("a key typed over the question went nowhere without a word:\n%s", h.screen())
	}
	h.typeText("y")
	h.pump("reset to end", func() bool { return len(h.m.cmd.jobs) == 0 })
	if !strings.Contains(h.text(), "Erased 0 streams and 0 consumers") {
		t.Errorf("answer y did not erase:\n%s", h.text())
	}
	if strings.Contains(h.screen(), "the question above waits") {
		t.Errorf("the hint stayed after the answer:\n%s", h.screen())
	}
}

func TestConfirmAnsweredNoWhenTheLabQuits(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("reset")
	h.key("enter")
	h.pump("the question", func() bool { return len(h.m.cmd.confirms) == 1 })
	j := h.m.cmd.jobs[0].job
	h.m.quit()
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the job still waits for an answer after quit")
	}
}

func TestHistoryPersistsInTheStore(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.run("pub greet one")
	h.run("pub greet two")
	h.run("pub greet two")
	h.key("up")
	if v := h.m.cmd.in.Value(); v != "pub greet two" {
		t.Errorf("up: %q", v)
	}
	h.key("up")
	if v := h.m.cmd.in.Value(); v != "pub greet one" {
		t.Errorf("up twice (a repeat is kept once): %q", v)
	}
	h.key("down")
	h.key("down")
	if v := h.m.cmd.in.Value(); v != "" {
		t.Errorf("down past the newest gives back the draft: %q", v)
	}
	data, err := os.ReadFile(filepath.Join(h.store, historyFile))
	if err != nil || string(data) != "pub greet one\npub greet two\n" {
		t.Errorf("history file: %q %v", data, err)
	}
	// A new lab on the same store remembers.
	h.close()
	h.srv.Shutdown()
	srv, err := broker.Start(broker.Options{StoreDir: h.store, JetStream: true, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	h2 := newHarnessOn(t, srv, h.store, 80, 24)
	h2.key("up")
	if v := h2.m.cmd.in.Value(); v != "pub greet two" {
		t.Errorf("after restart, up: %q", v)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, historyFile)
	hist := loadHistory(path, 5)
	for i := range 20 {
		hist.add(strings.Repeat("x", i+1))
	}
	if len(hist.items) != 5 || hist.items[4] != strings.Repeat("x", 20) {
		t.Fatalf("kept %q", hist.items)
	}
	again := loadHistory(path, 5)
	if len(again.items) != 5 || again.items[0] != strings.Repeat("x", 16) {
		t.Errorf("reloaded %q", again.items)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 5 {
		t.Errorf("the file was not compacted: %d lines", n)
	}
}

func TestQuestionMarkNeverStealsTyping(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.typeText("pub what?")
	if v := h.m.cmd.in.Value(); v != "pub what?" || h.m.showHelp {
		t.Fatalf("? was taken from the prompt: %q help=%v", v, h.m.showHelp)
	}
	h.key("ctrl+c") // clear the line
	h.typeText("?")
	if !h.m.showHelp || !h.m.cmd.Empty() {
		t.Fatalf("? on an empty line should open the help")
	}
	if s := h.screen(); !strings.Contains(s, "run the line") || !strings.Contains(s, "scroll output") {
		t.Errorf("help not shown:\n%s", s)
	}
	h.key("esc")
	if h.m.showHelp {
		t.Errorf("esc did not close the help")
	}
	h.key("f1")
	if !h.m.showHelp {
		t.Errorf("f1 did not open the help")
	}
}

func TestTabCompletes(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.typeText("resta")
	h.key("tab")
	h.pump("completion", func() bool { return h.m.cmd.in.Value() != "resta" })
	if v := h.m.cmd.in.Value(); v != "restart " {
		t.Errorf("resta⇥ = %q", v)
	}
	h.key("ctrl+c")
	h.typeText("s")
	h.key("tab")
	h.pump("completion", func() bool { return h.m.cmd.hint != "" })
	if v := h.m.cmd.in.Value(); v != "s" {
		t.Errorf("s⇥ = %q", v)
	}
	if !strings.Contains(h.screen(), "scene  schema  server  service  sleep  stop  stream  sub") {
		t.Errorf("candidates not shown:\n%s", h.screen())
	}
	h.key("ctrl+c")
	h.typeText("pu")
	h.key("tab")
	h.pump("completion", func() bool { return h.m.cmd.in.Value() != "pu" })
	if v := h.m.cmd.in.Value(); v != "publish " {
		t.Errorf("pu⇥ = %q", v)
	}
	h.typeText("greet --co")
	h.key("tab")
	h.pump("completion", func() bool { return strings.HasSuffix(h.m.cmd.in.Value(), "--count ") })

	// Names from the broker; a common prefix after a space.
	nc, err := h.srv.Connect("maker")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	for _, n := range []string{"EVENTS", "EVENTS2"} {
		if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: n, Subjects: []string{strings.ToLower(n) + ".>"}}); err != nil {
			t.Fatal(err)
		}
	}
	h.key("ctrl+c")
	h.typeText("stream info ")
	h.key("tab")
	h.pump("completion", func() bool { return h.m.cmd.in.Value() != "stream info " })
	if v := h.m.cmd.in.Value(); v != "stream info EVENTS" || !strings.Contains(h.m.cmd.hint, "EVENTS  EVENTS2") {
		t.Errorf("stream info ⇥ = %q, hint %q", v, h.m.cmd.hint)
	}
}

func TestScrollKeysAndWheel(t *testing.T) {
	h := newHarness(t, 80, 24)
	for i := range 200 {
		h.m.sb.Append(kindOut, "line "+strings.Repeat("#", i%7)+" "+string(rune('a'+i%26)))
	}
	h.key("pgup")
	if h.m.cmd.follow {
		t.Fatal("pgup did not scroll back")
	}
	if !strings.Contains(h.screen(), "scrolled back") {
		t.Errorf("no scroll note:\n%s", h.screen())
	}
	anchor := h.m.cmd.anchor
	h.key("shift+up")
	if h.m.cmd.anchor != anchor-1 {
		t.Errorf("shift+up: %d → %d", anchor, h.m.cmd.anchor)
	}
	// Output arriving while scrolled back does not move the view.
	before := h.screen()
	h.m.sb.Append(kindOut, "new")
	if strings.Contains(h.screen(), "new ") && !strings.Contains(before, "new ") {
		t.Errorf("the view followed new output while scrolled back")
	}
	h.key("esc")
	if !h.m.cmd.follow {
		t.Errorf("esc did not follow again")
	}
	h.send(tea.MouseWheelMsg{X: 5, Y: 15, Button: tea.MouseWheelUp})
	if h.m.cmd.follow {
		t.Errorf("the wheel over the output did not scroll it")
	}
	for range 100 {
		h.key("pgdown")
	}
	if !h.m.cmd.follow {
		t.Errorf("pgdown at the bottom does not follow")
	}
	// The wheel over the lesson scrolls the lesson.
	r := h.m.lay.lesson
	h.send(tea.MouseWheelMsg{X: r.x + 2, Y: r.y + 2, Button: tea.MouseWheelDown})
	if h.m.lesson.offset != 3 {
		t.Errorf("lesson offset after wheel: %d", h.m.lesson.offset)
	}
	h.key("alt+down")
	if h.m.lesson.offset != 6 {
		t.Errorf("lesson offset after alt+down: %d", h.m.lesson.offset)
	}
}

func TestTogglePanes(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.key("f2")
	if h.m.showLesson || strings.Contains(h.screen(), "lesson:") {
		t.Errorf("f2 did not collapse the lesson")
	}
	h.key("f2")
	if !strings.Contains(h.screen(), "lesson: Welcome") {
		t.Errorf("f2 did not bring the lesson back")
	}
	h.key("f3")
	h.pump("the log", func() bool { return strings.Contains(h.screen(), "server log") })
	if !strings.Contains(h.screen(), "Server is ready") {
		t.Errorf("the log pane lacks the server's log:\n%s", h.screen())
	}
	// The log follows the server: a restart logs anew.
	before := h.srv.Log().Total()
	h.run("restart")
	h.pump("the restart in the log", func() bool {
		lines, total := h.srv.Log().Since(before)
		if total == before || len(lines) == 0 {
			return false
		}
		last := shortLogLine(lines[len(lines)-1])
		return strings.Contains(h.screen(), last[:min(len(last), 30)])
	})
}

func TestStatusBarFollowsTheBroker(t *testing.T) {
	h := newHarness(t, 160, 40)
	if !strings.Contains(h.screen(), "JetStream on │ 0 streams") {
		t.Fatalf("status bar:\n%s", h.screen())
	}
	// A real client outside the lab makes a stream: the slow poll sees it.
	nc, err := h.srv.Connect("outsider")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}); err != nil {
		t.Fatal(err)
	}
	h.send(statsTickMsg{})
	h.pump("the stream in the status bar", func() bool { return strings.Contains(h.screen(), "1 stream ·") })
	// A server switch is seen at once.
	h.run("nats-server")
	h.pump("JetStream off", func() bool { return strings.Contains(h.screen(), "JetStream off") })
}

// A line break inside quotes (a body pasted over several lines) is a
// space of the one command; tabs are spaces, inner spaces kept.
func TestPasteBreakInQuotesStaysOneLine(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.send(tea.PasteMsg{Content: "pub greet 'hello\n\tthere  you'\n"})
	if v := h.m.cmd.in.Value(); v != "pub greet 'hello  there  you'" {
		t.Errorf("paste: %q", v)
	}
	if len(h.m.cmd.pasted) != 0 {
		t.Errorf("lines wait: %q", h.m.cmd.pasted)
	}
}

func TestLessonAPI(t *testing.T) {
	h := newHarness(t, 120, 40)
	text, err := fs.ReadFile(assets.Episodes, "episodes/06-first-stream.md")
	if err != nil {
		t.Fatal(err)
	}
	go h.m.Post(func(m *Model) {
		m.SetLesson("Persist messages", string(text))
		m.SetSteps([]Step{{Text: "Create EVENTS", Done: true}, {Text: "Publish three messages", Current: true}, {Text: "Replay them"}}, "")
	})
	h.pump("the lesson", func() bool { return strings.Contains(h.screen(), "lesson: Persist messages") })
	s := h.screen()
	for _, want := range []string{"Persist messages with JetStream", "Core NATS forgets.", "Step 2 of 3 · 1 done", "[▸] Publish three messages"} {
		if !strings.Contains(s, want) {
			t.Errorf("lesson pane lacks %q:\n%s", want, s)
		}
	}
	h.m.Post(func(m *Model) { m.ShowLesson(false) })
	h.pump("the lesson to collapse", func() bool { return !strings.Contains(h.screen(), "lesson:") })
	h.close()
	if h.m.Post(func(*Model) {}) {
		t.Errorf("Post after close should say false")
	}
}

func TestNoTerminal(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	var out, errb bytes.Buffer
	code := Main(context.Background(), MainOptions{Broker: broker.Config{Store: store, JetStream: true, Listen: "127.0.0.1:0"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	if code != ExitNoTerminal {
		t.Errorf("exit %d, want %d", code, ExitNoTerminal)
	}
	if !strings.Contains(errb.String(), "natslab run") || !strings.Contains(errb.String(), "natslab serve") || out.Len() != 0 {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("a server was started without a terminal (store exists: %v)", err)
	}
}

// Without colour the scenes' palette drops its colours too: the scene the
// pane opens is handed the look's palette.
func TestNoColorReachesTheScene(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		p := newScenePane(DefaultStyles(), policy.Look{NoColor: noColor}.SceneStyles())
		sc := &styledScene{}
		p.Open(sc)
		if sc.styles == nil {
			t.Fatal("the scene was not handed a palette")
		}
		green := strings.Contains(sc.styles.Render(kit.Good, "x"), "32")
		if green == noColor {
			t.Errorf("NoColor %v: Good renders %q", noColor, sc.styles.Render(kit.Good, "x"))
		}
	}
}

// styledScene is a scene that takes the host's palette, as kit scenes do.
type styledScene struct {
	testScene
	styles *kit.Styles
}

func (s *styledScene) UseStyles(st *kit.Styles) { s.styles = st }

func TestGreetingSaysWhereAndNotice(t *testing.T) {
	h := newHarness(t, 120, 40)
	text := maskPort(h.text())
	for _, want := range []string{"nats-server 2.15.3 with JetStream on nats://127.0.0.1:PPPPP", "store: ~/store", "nats --server nats://127.0.0.1:PPPPP"} {
		if !strings.Contains(text, want) {
			t.Errorf("greeting lacks %q:\n%s", want, text)
		}
	}
}

func TestOnEventTellsOfJobs(t *testing.T) {
	h := newHarness(t, 80, 24)
	var mu sync.Mutex
	var kinds []command.EventKind
	h.m.OnEvent(func(e command.Event) {
		mu.Lock()
		kinds = append(kinds, e.Kind)
		mu.Unlock()
	})
	h.run("pub greet hi")
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) != 3 || kinds[0] != command.JobStarted || kinds[1] != command.Published || kinds[2] != command.JobEnded {
		t.Errorf("events: %v", kinds)
	}
}

// TestExternalDeployment: with --server, the facts come from JetStream's
// account info, and the lab says where it is connected.
func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	dep, err := broker.Dial(broker.ExternalOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	m := New(Options{Deployment: dep, StoreDir: filepath.Join(home, "store"), Clock: fixedClock{}})
	defer m.Close()
	h := &harness{t: t, m: m, msgs: make(chan tea.Msg, 4096), done: make(chan struct{})}
	t.Cleanup(h.close)
	h.exec(m.Init())
	h.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	h.run(`stream add EVENTS --subjects "events.>" --defaults`)
	h.pump("the external facts", func() bool {
		s := maskPort(ansi.Strip(m.View().Content))
		return strings.Contains(s, "external nats://127.0.0.1:PPPPP │ JetStream on │ 1 stream · 0 consumers │")
	})
	if !strings.Contains(maskPort(h.text()), "natslab: connected to external nats://127.0.0.1:PPPPP") {
		t.Errorf("greeting:\n%s", h.text())
	}
	h.key("f3")
	if !strings.Contains(ansi.Strip(m.View().Content), "its log is on that server") {
		t.Errorf("log pane for an external deployment:\n%s", ansi.Strip(m.View().Content))
	}
	h.run("restart")
	if !strings.Contains(h.text(), "restart works on the lab's own server only") {
		t.Errorf("restart on an external deployment:\n%s", h.text())
	}
}

func TestInProcessOnly(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	h := newHarnessOn(t, srv, srv.StoreDir(), 120, 40)
	s := h.screen()
	if !strings.Contains(s, " in-process only │ JetStream on") || !strings.Contains(s, "real nats clients cannot connect") {
		t.Errorf("screen:\n%s", s)
	}
	h.run("pub greet hi")
	if !strings.Contains(h.text(), `Published 2 bytes to "greet"`) {
		t.Errorf("in-process publish:\n%s", h.text())
	}
}

// A line the lab refuses to run (here: one only the real CLI runs, and
// --listen none leaves it nothing to connect to) is refused by the lab in
// its own voice: one note line, marker and note style, saying what to do
// — never a line in the real CLI's shape that the real CLI never prints.
func TestTheLabsRefusalIsStyledAsTheLabs(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	h := newHarnessOn(t, srv, srv.StoreDir(), 220, 30)
	if h.m.st.Note.on == "" || h.m.st.Note.on == h.m.st.Error.on {
		t.Fatalf("notes and errors must be styled apart for this test: %q %q", h.m.st.Note.on, h.m.st.Error.on)
	}
	h.run("server ping")
	want := command.NoteMarker + "`nats server ping` runs the real nats CLI, which reaches the server over TCP, and this lab has no listener: start natslab without --listen none"
	if text := h.text(); !strings.Contains(text, "\n"+want) || strings.Contains(text, "error:") {
		t.Errorf("the refusal is not the lab's one line:\n%s", text)
	}
	h.m.sb.mu.Lock()
	var kinds []lineKind
	for i := range h.m.sb.n {
		if e := h.m.sb.ring[(h.m.sb.start+i)%len(h.m.sb.ring)]; e.text == want {
			kinds = append(kinds, e.kind)
		}
	}
	h.m.sb.mu.Unlock()
	if len(kinds) != 1 || kinds[0] != kindNote {
		t.Errorf("the refusal's line kinds: %v, want one note", kinds)
	}
	if view := h.m.View().Content; !strings.Contains(view, h.m.st.Note.Render(want)) {
		t.Errorf("the refusal is not drawn in the notes' style:\n%q", view)
	}
}

// A lab served to a workshop attendee speaks of their lab, not of the
// host's listener flags or paths.
func TestGuestLab(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	h := newHarnessOn(t, srv, srv.StoreDir(), 140, 40, func(o *Options) { o.Guest = "ada" })
	s := h.screen()
	if !strings.Contains(s, " ada's lab │ JetStream on") || !strings.Contains(s, "for ada alone: your own lab in this workshop") {
		t.Errorf("a guest's screen does not speak of their lab:\n%s", s)
	}
	for _, host := range []string{"--listen", "store: ", "│ store", srv.StoreDir()} {
		if strings.Contains(s, host) {
			t.Errorf("a guest's screen shows the host's %q:\n%s", host, s)
		}
	}
	// A command only the real CLI runs needs a listener the attendee
	// cannot give their lab: they are told whom to ask.
	h.run("object ls")
	if s := h.text(); !strings.Contains(s, "ask your instructor to start the workshop with --attendee-urls") || strings.Contains(s, "start natslab without") {
		t.Errorf("a guest is told to restart a lab they cannot restart:\n%s", s)
	}
}

// TestRandomInputNeverBreaks throws random keys, pastes, wheels, clicks and
// resizes at the lab: nothing may panic, and it must still run a command
// afterwards.
func TestRandomInputNeverBreaks(t *testing.T) {
	h := newHarness(t, 120, 40)
	r := rand.New(rand.NewPCG(7, 11))
	names := make([]string, 0, len(specialKeys))
	for k := range specialKeys {
		if k != "ctrl+c" && k != "ctrl+d" { // those may quit, which ends the test early
			names = append(names, k)
		}
	}
	sort.Strings(names)
	words := []string{"pub ", "sub ", "stream ", "help ", "x", "'", `"`, "--", "\\", "é", "{{Count}}", " "}
	for i := range 1500 {
		switch n := r.IntN(100); {
		case n < 55:
			h.typeText(words[r.IntN(len(words))])
		case n < 85:
			k := names[r.IntN(len(names))]
			if k == "enter" && r.IntN(3) != 0 {
				k = "backspace"
			}
			h.key(k)
		case n < 90:
			h.send(tea.MouseWheelMsg{X: r.IntN(130), Y: r.IntN(45), Button: tea.MouseWheelUp})
		case n < 93:
			h.send(tea.MouseClickMsg{X: r.IntN(130), Y: r.IntN(45), Button: tea.MouseLeft})
		case n < 96:
			h.send(tea.PasteMsg{Content: "pub\ngreet\t'x y'"})
		default:
			h.send(tea.WindowSizeMsg{Width: r.IntN(200), Height: r.IntN(60)})
		}
		if len(h.m.cmd.confirms) > 0 {
			h.typeText("n")
		}
		if i%100 == 0 {
			h.deliver()
		}
	}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.m.cmd.in.Reset()
	h.m.cmd.dropPasted() // pasted lines still waiting would take the next lines' turn
	h.run("stop all")
	h.key("esc")
	h.run("pub greet still-here")
	if !strings.Contains(h.text(), `Published 10 bytes to "greet"`) {
		t.Errorf("the lab no longer runs commands:\n%s", h.screen())
	}
}

// TestScrollReachesTheOldestWrappedLine: with lines wrapped over several
// rows, scrolling back still reaches the first line, and no further.
func TestScrollReachesTheOldestWrappedLine(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.run("clear")
	for i := range 60 {
		h.m.sb.Append(kindOut, fmt.Sprintf("line %02d %s", i, strings.Repeat("-", 150)))
	}
	for range 40 {
		h.key("pgup")
	}
	s := h.screen()
	if !strings.Contains(s, "line 00") {
		t.Errorf("the first line is out of reach:\n%s", s)
	}
	body := strings.Split(s, "\n")[h.m.lay.cmd.y+1] // under the top panes and the rule
	if !strings.HasPrefix(body, "line 00") {
		t.Errorf("scrolled past the first line: top row %q", body)
	}
}

// TestLongLinesWrapBetweenWords: a line longer than the command pane (a
// hint, a note) breaks at a space, so each word reads whole; a word longer
// than a row is cut; and scrolling back still reaches the first row.
func TestLongLinesWrapBetweenWords(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("clear")
	hint := "Hint 2 of 3: A queue group shares the work only among members with the very same group name. One worker's group is misspelt, so it is a group of its own and gets a copy of every job."
	long := strings.Repeat("x", 130)
	h.m.sb.Append(kindOut, hint)
	h.m.sb.Append(kindNote, "see "+long+" end")
	s := h.screen()
	var rows []string
	for _, r := range strings.Split(s, "\n") {
		rows = append(rows, strings.TrimRight(r, " "))
	}
	joined := strings.Join(rows, "\n")
	for _, word := range strings.Fields(hint) {
		found := false
		for _, r := range rows {
			found = found || slices.Contains(strings.Fields(r), word)
		}
		if !found {
			t.Errorf("the word %q is cut between rows:\n%s", word, joined)
		}
	}
	if !strings.Contains(joined, "queue-groups") {
		t.Errorf("the scene list breaks a scene's name at its hyphen:\n%s", joined)
	}
	if !strings.Contains(joined, "Hint 2 of 3: A queue group") || !strings.Contains(joined, "\n  x") || !strings.Contains(joined, "xx end") && !strings.Contains(joined, "x end") {
		t.Errorf("a word longer than a row is cut to the row, the rest on the next:\n%s", joined)
	}
}

// TestWrappedNotesHangUnderTheirText: a note wider than the pane goes on
// under its own text, clear of the marker, so the marker alone says where
// a note begins and the real CLI's lines, which start at the margin, are
// not mistaken for its continuation.
func TestWrappedNotesHangUnderTheirText(t *testing.T) {
	words := strings.Fields(strings.Repeat("the lab's note goes on ", 12))
	rows := wrappedRows(t, kindNote, strings.Join(words, " "), command.NoteMarker+"the lab's")
	var got []string
	for i, r := range rows {
		if i > 0 && (!strings.HasPrefix(r, "  ") || strings.HasPrefix(r, "   ")) {
			t.Errorf("row %d of the note does not hang under its text: %q", i+1, r)
		}
		got = append(got, strings.Fields(strings.TrimPrefix(r, command.NoteMarker))...)
	}
	if !slices.Equal(got, words) {
		t.Errorf("the note's words changed in wrapping:\n%s", strings.Join(rows, "\n"))
	}
}

// TestWrappedIndentedLinesHangUnderTheirIndent: an indented line wider
// than the pane (a lesson's not yet line under its step) goes on two
// cells in from its indent, not at the margin where the next step starts.
func TestWrappedIndentedLinesHangUnderTheirIndent(t *testing.T) {
	words := strings.Fields("not yet: " + strings.Repeat("there is no consumer worker on stream JOBS ", 4))
	rows := wrappedRows(t, kindOut, "      "+strings.Join(words, " "), "      not yet:")
	var got []string
	for i, r := range rows {
		if i > 0 && (!strings.HasPrefix(r, "        ") || strings.HasPrefix(r, "         ")) {
			t.Errorf("row %d does not hang two cells in from the line's indent: %q", i+1, r)
		}
		got = append(got, strings.Fields(r)...)
	}
	if !slices.Equal(got, words) {
		t.Errorf("the line's words changed in wrapping:\n%s", strings.Join(rows, "\n"))
	}
}

// wrappedRows shows line, of kind, then a line "after" in a cleared
// command pane at 80x24, and returns the rows line takes from the one
// that starts with start, which must be more than one.
func wrappedRows(t *testing.T, kind lineKind, line, start string) []string {
	t.Helper()
	h := newHarness(t, 80, 24)
	h.run("clear")
	h.m.sb.Append(kind, line)
	h.m.sb.Append(kindOut, "after")
	var rows []string
	for _, r := range strings.Split(h.screen(), "\n") {
		if r = strings.TrimRight(r, " "); r != "" {
			rows = append(rows, r)
		}
	}
	first := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, start) })
	last := slices.Index(rows, "after")
	if first < 0 || last < first+2 {
		t.Fatalf("the line is not shown over several rows before the next line:\n%s", strings.Join(rows, "\n"))
	}
	return rows[first:last]
}

// Before a scene is open the pane names every scene, or, where the names
// do not fit above its border, says which verb lists them: never a list
// cut off in the middle, nor a scene's summary cut at the border (where
// the summaries fit, they are shown).
func TestSceneIntroNeverCutsTheList(t *testing.T) {
	for _, size := range [][2]int{{46, 8}, {46, 12}, {40, 7}, {70, 12}, {70, 21}, {70, 24}, {30, 6}, {160, 20}} {
		p := newScenePane(DefaultStyles(), policy.Look{NoColor: true}.SceneStyles())
		p.SetSize(size[0], size[1])
		lines := p.Lines()
		inside := strings.Join(lines[1:len(lines)-1], " ") // within the border
		inside = strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(inside)), " ")
		if strings.Contains(inside, "…") {
			t.Errorf("%dx%d: the pane cuts what it says:\n%s", size[0], size[1], strings.Join(lines, "\n"))
		}
		if list := p.list(); size[0] == 160 && len(list) > 0 && !strings.Contains(inside, list[0].Summary) {
			t.Errorf("%dx%d: the summaries fit, but the pane does not show them:\n%s", size[0], size[1], strings.Join(lines, "\n"))
		}
		if strings.Contains(inside, "scene lists the") {
			continue
		}
		for _, f := range p.list() {
			if !strings.Contains(inside, f.Name) {
				t.Errorf("%dx%d: the pane neither names scene %s nor says scene lists them:\n%s", size[0], size[1], f.Name, strings.Join(lines, "\n"))
			}
		}
	}
}

// Where the introduction has the rows but not the width for the scenes'
// summaries (beside the welcome from 110x33), it lists the scenes one a
// line, each as the command that opens it, rather than leaving the rows
// below a sentence of names blank.
func TestSceneIntroListsTheScenesOneALine(t *testing.T) {
	for _, sz := range [][2]int{{110, 33}, {120, 36}, {100, 40}} {
		l := computeLayout(sz[0], sz[1], onScreen{lesson: true, welcome: true, text: newLessonPane(DefaultStyles()).TextLines})
		p := newScenePane(DefaultStyles(), policy.Look{NoColor: true}.SceneStyles())
		p.SetSize(l.top.w, l.top.h)
		rows := map[string]bool{}
		for _, r := range p.Lines() {
			rows[strings.TrimSpace(strings.Trim(ansi.Strip(r), "│"))] = true
		}
		for _, f := range p.list() {
			if !rows["scene "+f.Name] {
				t.Errorf("%dx%d: the %dx%d introduction has no row scene %s:\n%s", sz[0], sz[1], l.top.w, l.top.h, f.Name, strings.Join(p.Lines(), "\n"))
				break
			}
		}
	}
}

// Every scene's title reads whole in the scene pane's border at 80x24,
// beside the lesson and alone: the fullest wording that fits, never a
// word cut with "…"; and so do the controls under it.
func TestSceneBordersWholeAt80x24(t *testing.T) {
	srv, _ := newTestServer(t)
	opened := 0
	for _, f := range scenes.List() {
		s, err := f.New(scenes.Env{Deployment: srv, Clock: fixedClock{}})
		if err != nil {
			// The replicas scene needs a cluster; its package checks its titles.
			t.Logf("%s: %v", f.Name, err)
			continue
		}
		opened++
		for _, showLesson := range []bool{true, false} {
			l := computeLayout(80, 24, onScreen{lesson: showLesson, scene: true})
			p := newScenePane(DefaultStyles(), policy.Look{NoColor: true}.SceneStyles())
			p.SetSize(l.top.w, l.top.h)
			p.scene = s // not Open: the scene stays closed until the test is done with it
			s.SetSize(l.top.w-2, l.top.h-2)
			for _, focus := range []bool{false, true} { // with the keys, no "f4 keys"
				p.SetFocus(focus)
				lines := p.Lines()
				top, bottom := ansi.Strip(lines[0]), ansi.Strip(lines[len(lines)-1])
				if !strings.HasPrefix(top, "╭─ scene: ") || strings.Contains(top, "…") {
					t.Errorf("%s at 80x24 (lesson shown %v): the title is cut: %s", f.Name, showLesson, top)
				}
				if regexp.MustCompile(`[^\s…]…`).MatchString(bottom) || len(s.Controls()) > 0 && !strings.Contains(bottom, "controls: ") {
					t.Errorf("%s at 80x24 (lesson shown %v, keys %v): the controls are cut: %s", f.Name, showLesson, focus, bottom)
				}
			}
		}
		s.Close()
	}
	if opened < 10 {
		t.Errorf("%d scenes opened: the test checks too few", opened)
	}
}

// With more jobs than the jobs bar can name, the first keep their lines and
// the rest their numbers, so each can still be stopped by its number.
func TestJobsBarNamesWhatFitsAndNumbersTheRest(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, line := range []string{`sub "orders.*.created" &`, `sub "orders.>" &`, `sub "payments.>" &`, `sub "audit.>" &`} {
		h.typeText(line)
		h.key("enter")
	}
	h.pump("four subscribers", func() bool {
		n := 0
		for _, pj := range h.m.cmd.jobs {
			if subj, _ := pj.job.Listening(); subj != "" {
				n++
			}
		}
		return n == 4
	})
	var bar string
	for _, line := range strings.Split(h.screen(), "\n") {
		if strings.Contains(line, "running:") {
			bar = line
		}
	}
	if !strings.Contains(bar, `running: [1] sub "orders.*.created" &  [2] sub "orders.>" &`) || !strings.Contains(bar, "[3]  [4]") || strings.Contains(bar, "…") {
		t.Errorf("jobs bar at 80 columns with four jobs: %q\n%s", bar, h.screen())
	}
}

// The server log (F3) shows whole lines from its first row, each wrapped
// at its blanks, its later rows hanging under its text: no word of the
// server's log is cut in two (but one wider than a row: the store's path),
// and the pane does not start with the tail of a line.
func TestTheLogPaneWrapsWholeLines(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.key("f3")
	h.pump("the log", func() bool { return strings.Contains(h.screen(), "Server is ready") })
	words := map[string]bool{}
	for _, l := range h.srv.Log().Lines() {
		for _, w := range strings.Fields(maskPort(shortLogLine(l))) {
			words[w] = true
		}
	}
	start := regexp.MustCompile(`^ \d\d:\d\d:\d\d\.\d{3} `)
	r := h.m.lay.top
	rows := strings.Split(h.screen(), "\n")[r.y+1 : r.y+r.h-1]
	first := true
	for i, row := range rows {
		row = strings.TrimSuffix(strings.TrimPrefix(ansi.Cut(row, r.x, r.x+r.w), "│"), "│")
		if first && strings.TrimSpace(row) == "" {
			continue // a row an older line had no room in
		}
		if first && !start.MatchString(row) {
			t.Errorf("the log pane starts inside a line: %q\n%s", row, h.screen())
		}
		first = false
		if !start.MatchString(row) && !strings.HasPrefix(row, "   ") {
			t.Errorf("row %d neither starts a line nor hangs under one: %q", i, row)
		}
		for _, w := range strings.Fields(row) {
			if !words[w] && !pieceOfALongWord(words, w, r.w-4) {
				t.Errorf("row %d holds %q, no word of the server's log (a word cut in two):\n%s", i, w, h.screen())
			}
		}
	}
}

// pieceOfALongWord reports whether w is part of one of words wider than
// width, which a row cannot hold whole.
func pieceOfALongWord(words map[string]bool, w string, width int) bool {
	for long := range words {
		if len(long) > width && strings.Contains(long, w) {
			return true
		}
	}
	return false
}
