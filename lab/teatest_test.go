package lab

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"natslab/broker"
	"natslab/broker/command"
)

// Flows through a real Bubble Tea program (renderer, input, commands on
// their own goroutines), reading what it draws.

func newTeaLab(t *testing.T) (*broker.Server, *teatest.TestModel) {
	t.Helper()
	srv, store := newTestServer(t)
	tm := teatest.NewTestModel(t, newTestModel(t, srv, store),
		teatest.WithInitialTermSize(120, 40),
		// All program options in one call: it replaces, not appends.
		teatest.WithProgramOptions(tea.WithFPS(renderFPS), tea.WithColorProfile(colorprofile.Ascii)),
	)
	return srv, tm
}

// waitScreen waits until the drawn output, escape sequences removed,
// contains every one of want.
func waitScreen(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := ansi.Strip(string(b))
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func enter(tm *teatest.TestModel) { tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) }

func ctrlC(tm *teatest.TestModel) { tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}) }

func TestTeaPublishErrorAndQuit(t *testing.T) {
	_, tm := newTeaLab(t)
	waitScreen(t, tm, "Type help for the commands")
	tm.Type(`pub greet "Hello NATS!"`)
	enter(tm)
	waitScreen(t, tm, `Published 11 bytes to "greet"`)
	tm.Type("frobnicate")
	enter(tm)
	waitScreen(t, tm, `unknown command "frobnicate"`)
	tm.Type("quit")
	enter(tm)
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	m := tm.FinalModel(t).(*Model)
	if !m.quitting {
		t.Errorf("the program ended without quitting")
	}
	text := strings.Join(m.sb.Lines(), "\n")
	if !strings.Contains(text, command.NoteMarker+`unknown command "frobnicate"`) || strings.Contains(text, "nats: error:") {
		t.Errorf("scrollback:\n%s", text)
	}
}

func TestTeaCtrlCTwiceQuits(t *testing.T) {
	_, tm := newTeaLab(t)
	waitScreen(t, tm, "Type help for the commands")
	ctrlC(tm)
	waitScreen(t, tm, "press ctrl+c again to quit")
	ctrlC(tm)
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

func TestTeaSubStopsWithCtrlC(t *testing.T) {
	srv, tm := newTeaLab(t)
	waitScreen(t, tm, "Type help for the commands")
	tm.Type("sub greet")
	enter(tm)
	waitScreen(t, tm, "Subscribing on greet", "ctrl+c stops [1]")
	// Another client publishes; the running sub shows it.
	nc, err := srv.Connect("publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish("greet", []byte("hello from outside")); err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	waitScreen(t, tm, "hello from outside")
	// The prompt works while sub runs.
	tm.Type(`pub greet "and from the pane"`)
	enter(tm)
	waitScreen(t, tm, "and from the pane", `Received on "greet"`)
	ctrlC(tm)
	waitScreen(t, tm, "[1] stopped: sub greet")
	tm.Send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// reset asks first; y erases what the server holds, for real.
func TestTeaConfirmReset(t *testing.T) {
	srv, tm := newTeaLab(t)
	waitScreen(t, tm, "Type help for the commands")
	tm.Type(`stream add DOOMED --subjects "doomed.>" --defaults`)
	enter(tm)
	waitScreen(t, tm, "1 stream · 0 consumers") // the status bar: the info scrolls the first line away
	tm.Type("reset")
	enter(tm)
	waitScreen(t, tm, "[y/N]", "y/N? ")
	tm.Type("y")
	waitScreen(t, tm, "Erased 1 stream and 0 consumers")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	all := strings.Join(m.sb.Lines(), "\n")
	if !strings.Contains(all, "Erase every stream, consumer and bucket (1 stream, 0 consumers)") {
		t.Errorf("the question is not in the pane:\n%s", all)
	}
	if st := srv.Stats(); st.Streams != 0 || !st.JetStream {
		t.Errorf("after reset the server holds %d streams (JetStream %v), want 0 and JetStream on", st.Streams, st.JetStream)
	}
}

// A lesson through the real program: opened with the lesson verb, each
// step's "not yet" moving on as the seed's commands are typed, and the
// lesson complete at the end. (The renderer draws only what changed, so
// the waits look for text that is new on screen, not for a ✓ alone.)
func TestTeaLessonFlow(t *testing.T) {
	_, tm := newTeaLab(t)
	waitScreen(t, tm, "Guided lessons: lessons lists them")
	tm.Type("lesson first-stream")
	enter(tm)
	waitScreen(t, tm, "lesson 6 · first-stream", "Turn JetStream on", "JetStream is off")
	steps := []struct {
		lines []string
		then  []string
	}{
		{firstStreamSolution[:1], []string{"there is no stream EVENTS"}},
		{firstStreamSolution[1:2], []string{"holds 0 messages"}},
		{firstStreamSolution[2:6], []string{"no subscriber has read all 3"}},
		{firstStreamSolution[6:], []string{"Lesson complete: all 4 steps done.", "first-stream is complete: all 4 steps done. Type next for lesson 7"}},
	}
	for _, st := range steps {
		for _, line := range st.lines {
			tm.Type(line)
			enter(tm)
		}
		waitScreen(t, tm, st.then...)
	}
	tm.Type("quit")
	enter(tm)
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	m := tm.FinalModel(t).(*Model)
	if m.status.lesson != "first-stream ✓ 4/4" {
		t.Errorf("status bar's lesson: %q", m.status.lesson)
	}
}
