package workshop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func view(m *Instructor) string { return ansi.Strip(m.View().Content) }

func typeInstructor(m *Instructor, line string) {
	m.in.SetValue(line)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
}

func TestInstructorsViewFitsEverySize(t *testing.T) {
	w := startWorkshop(t, Options{Room: "abcd-efgh"})
	for _, name := range []string{"ada", "bob"} {
		l := openLab(t, w, name, answer("abcd-efgh"))
		l.out.waitFor(t, "Type help")
	}
	m := NewInstructor(w)
	for _, size := range [][2]int{{20, 5}, {40, 8}, {60, 14}, {80, 24}, {120, 40}, {200, 60}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(view(m), "\n")
		if size[0] < minWidth || size[1] < minHeight {
			if len(lines) != 1 || !strings.Contains(lines[0], "make this window") || ansi.StringWidth(lines[0]) > size[0] {
				t.Errorf("at %dx%d: %q, want one line asking for a larger window", size[0], size[1], lines)
			}
			continue
		}
		if len(lines) > size[1] {
			t.Errorf("at %dx%d the view has %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if ansi.StringWidth(l) > size[0] {
				t.Errorf("at %dx%d line %d is %d wide: %q", size[0], size[1], i, ansi.StringWidth(l), l)
			}
		}
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "❯") {
			t.Errorf("at %dx%d the prompt is not the last line: %q", size[0], size[1], last)
		}
		if size[1] >= 14 && (tableRow(view(m), "ada") == "" || tableRow(view(m), "bob") == "") {
			t.Errorf("at %dx%d the table lacks ada or bob:\n%s", size[0], size[1], view(m))
		}
	}
	s := view(m)
	if !strings.Contains(s, "room code abcd-efgh") || !strings.Contains(s, "ssh -p "+strings.TrimPrefix(w.JoinCommand(), "ssh -p ")) {
		t.Errorf("the header lacks the join command or the room code:\n%s", s)
	}
}

func TestInstructorsCommands(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	m := NewInstructor(w)
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 41})

	typeInstructor(m, "sort hints")
	if !strings.Contains(view(m), "HINTS ▲") {
		t.Errorf("sort hints: no ▲ on HINTS:\n%s", view(m))
	}
	typeInstructor(m, "sort hints")
	if !strings.Contains(view(m), "HINTS ▼") {
		t.Errorf("sort hints again: no ▼ on HINTS:\n%s", view(m))
	}
	typeInstructor(m, "sort nonsense")
	if !strings.Contains(view(m), "sort COLUMN, one of: name") {
		t.Errorf("sort nonsense:\n%s", view(m))
	}
	typeInstructor(m, "spotlight nobody")
	if !strings.Contains(view(m), "nobody is not connected") {
		t.Errorf("spotlight nobody:\n%s", view(m))
	}
	typeInstructor(m, "spotlight ada")
	waitDrawn(t, ada.out, "ada's screen in the spotlight", func() bool {
		s := view(m)
		return strings.Contains(s, "spotlight: ada's screen (120x40), read-only") && strings.Contains(s, "for ada alone: your own lab")
	})
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if m.in.Value() != "" {
		t.Errorf("a key typed into the read-only mirror reached the prompt: %q", m.in.Value())
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if tableRow(view(m), "ada") == "" {
		t.Errorf("esc did not return to the table:\n%s", view(m))
	}

	csvPath := filepath.Join(t.TempDir(), "room.csv")
	typeInstructor(m, "export "+csvPath)
	if b, err := os.ReadFile(csvPath); err != nil || !strings.Contains(string(b), "\nada,true,") {
		t.Errorf("export: %v, %q", err, b)
	}
	if !strings.Contains(view(m), "progress of 1 attendee written to "+csvPath) {
		t.Errorf("export said:\n%s", view(m))
	}

	m.in.SetValue("op")
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.in.SetValue(m.in.Value() + "hel")
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.in.SetValue(m.in.Value() + "a")
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := m.in.Value(); got != "open hello ada " {
		t.Errorf("tab completion: %q, want %q", got, "open hello ada ")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitRoom(t, w, "ada in hello", func() bool { return w.Rows()[0].Lesson == "hello" })

	typeInstructor(m, "broadcast Lunch at noon")
	if !strings.Contains(view(m), "banner: Lunch at noon") {
		t.Errorf("the header does not show the banner:\n%s", view(m))
	}
	typeInstructor(m, "frobnicate")
	if !strings.Contains(view(m), `unknown command "frobnicate"`) {
		t.Errorf("an unknown command:\n%s", view(m))
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd != nil {
		t.Fatal("one ctrl+c ended the workshop")
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+c twice did not end the workshop")
	}
}

// More attendees than the table has lines for: paging down shows every
// one of them, and the line under the table names the rows on screen.
func TestInstructorsTableScrollsToEveryAttendee(t *testing.T) {
	w := startWorkshop(t, Options{})
	names := []string{"ada", "bob", "cy", "dee", "eve", "fay", "gus"}
	for _, n := range names {
		if _, err := w.attendeeFor(n); err != nil {
			t.Fatal(err)
		}
	}
	m := NewInstructor(w)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	seen := map[string]bool{}
	for range names {
		s := view(m)
		var onScreen []string
		for _, n := range names {
			if tableRow(s, n) != "" {
				onScreen = append(onScreen, n)
				seen[n] = true
			}
		}
		first := slices.Index(names, onScreen[0]) + 1
		if want := fmt.Sprintf("… %d attendees, rows %d–%d:", len(names), first, first+len(onScreen)-1); !strings.Contains(s, want) {
			t.Fatalf("the table shows %v but its last line does not say %q:\n%s", onScreen, want, s)
		}
		if len(strings.Split(s, "\n")) > 15 {
			t.Fatalf("the view is taller than the window:\n%s", s)
		}
		m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	for _, n := range names {
		if !seen[n] {
			t.Errorf("%s never shows, however far the table scrolls", n)
		}
	}
}

// The room needs the join command and the code whole: a window too
// narrow for the header's line wraps it rather than cut them off.
func TestInstructorsHeaderWrapsRatherThanCutsTheRoomCode(t *testing.T) {
	w := startWorkshop(t, Options{Room: "abcd-efgh"})
	m := NewInstructor(w)
	for _, size := range [][2]int{{60, 16}, {80, 24}, {100, 30}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := view(m)
		for _, want := range []string{"room code abcd-efgh", "attendees type " + w.JoinCommand(), "host key " + w.Fingerprint()} {
			if !strings.Contains(s, want) {
				t.Errorf("at %dx%d the header lacks %q:\n%s", size[0], size[1], want, s)
			}
		}
		if lines := strings.Split(s, "\n"); len(lines) > size[1] || !strings.HasPrefix(lines[len(lines)-1], "❯") {
			t.Errorf("at %dx%d the view is %d lines, the prompt last: %q", size[0], size[1], len(lines), lines[len(lines)-1])
		}
	}
}

// A lesson the labs cannot run is refused at the instructor's prompt, in
// one line saying why; it is not said to be opened while every lab says
// it did not open.
func TestInstructorsOpenRefusesALessonTheLabsCannotRun(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	m := NewInstructor(w)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	typeInstructor(m, "open object-store")
	if s := view(m); !strings.Contains(s, "lesson object-store runs the real nats CLI") || !strings.Contains(s, "--attendee-urls") || strings.Contains(s, "opened for") {
		t.Errorf("open object-store without --attendee-urls:\n%s", s)
	}
	typeInstructor(m, "open replicas ada")
	if s := view(m); !strings.Contains(s, "needs a 3-node cluster") {
		t.Errorf("open replicas:\n%s", s)
	}

	w = startWorkshop(t, Options{AttendeeURLs: true})
	bob := openLab(t, w, "bob")
	bob.out.waitFor(t, "Type help")
	m = NewInstructor(w)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	typeInstructor(m, "open object-store")
	if s := view(m); !strings.Contains(s, "lesson object-store puts files into the server and gets them back, and a workshop's labs read and write no files on the instructor's machine") || strings.Contains(s, "opened for") {
		t.Errorf("open object-store with --attendee-urls:\n%s", s)
	}
	typeInstructor(m, "open services")
	if s := view(m); !strings.Contains(s, "lesson 32 · services opened for everyone") {
		t.Errorf("open services with --attendee-urls:\n%s", s)
	}
	bob.out.waitFor(t, "Your instructor opened lesson 32 · services")
}

// Tab offers open only the lessons the labs run, which open takes: not
// replicas (a cluster's), nor the real CLI's lessons while the labs listen
// nowhere, nor object-store (files of the instructor's machine).
func TestInstructorsTabOffersOnlyTheLessonsTheLabsRun(t *testing.T) {
	tab := func(m *Instructor, typed string) string {
		m.in.SetValue(typed)
		m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
		return m.in.Value()
	}
	for _, c := range []struct {
		urls        bool
		typed, want string
	}{
		{false, "open rep", "open republish "},    // not replicas
		{false, "open perm", "open perm"},         // permissions runs the real CLI
		{true, "open perm", "open permissions "},  // which reaches the labs now
		{true, "open obj", "open obj"},            // object put: a file of the instructor's
		{true, "open ob", "open ob"},              // nothing else starts so
		{true, "open services", "open services "}, // the other listener lessons are offered
	} {
		m := NewInstructor(startWorkshop(t, Options{AttendeeURLs: c.urls}))
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
		if got := tab(m, c.typed); got != c.want {
			t.Errorf("--attendee-urls %v: %q then tab: %q, want %q", c.urls, c.typed, got, c.want)
		}
	}
}
