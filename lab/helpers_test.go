package lab

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/scenes"
)

// fixedClock is the tests' clock: command timestamps and scenes see one time.
type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 12, 2, 15, 4, 5, 0, time.Local) }

// harness drives a Model as Bubble Tea's loop does: one goroutine runs
// Update and View; commands run on their own goroutines and send their
// messages back. Real messages, a real server, no mocks.
type harness struct {
	t     testing.TB
	m     *Model
	srv   *broker.Server
	store string
	msgs  chan tea.Msg
	done  chan struct{}
	quit  bool
	once  sync.Once
}

// newHarness starts a server with its store in a fresh HOME (so the store
// shows as ~/store) and a lab at w×h.
func newHarness(t testing.TB, w, h int, opts ...func(*Options)) *harness {
	t.Helper()
	srv, store := newTestServer(t)
	return newHarnessOn(t, srv, store, w, h, opts...)
}

func newHarnessOn(t testing.TB, srv *broker.Server, store string, w, h int, opts ...func(*Options)) *harness {
	t.Helper()
	return startHarness(t, newTestModel(t, srv, store, opts...), srv, store, w, h)
}

// startHarness runs m (set up already) at w×h.
func startHarness(t testing.TB, m *Model, srv *broker.Server, store string, w, h int) *harness {
	hs := &harness{t: t, m: m, srv: srv, store: store, msgs: make(chan tea.Msg, 4096), done: make(chan struct{})}
	t.Cleanup(hs.close)
	hs.exec(hs.m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// newTestModel is a lab on srv with the tests' clock, not started: a
// harness or a real program runs it.
func newTestModel(t testing.TB, srv *broker.Server, store string, opts ...func(*Options)) *Model {
	o := Options{Deployment: srv, StoreDir: store, Clock: fixedClock{}, SessionOptions: []command.Option{command.WithTimeout(2 * time.Second)}, Lessons: true}
	for _, f := range opts {
		f(&o)
	}
	m := New(o)
	t.Cleanup(m.Close)
	return m
}

// newTestServer starts a server with its store in a fresh HOME, so the
// store shows as ~/store.
func newTestServer(t testing.TB) (*broker.Server, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	store := filepath.Join(home, "store")
	return brokertest.Start(t, brokertest.WithStore(store)), store
}

func (h *harness) close() {
	h.once.Do(func() {
		close(h.done)
		h.m.Close()
	})
}

// exec runs a command off the loop, as the program does.
func (h *harness) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				h.exec(c)
			}
		default:
			select {
			case h.msgs <- msg:
			case <-h.done:
			}
		}
	}()
}

// send delivers one message to Update.
func (h *harness) send(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		h.quit = true
		return
	}
	_, cmd := h.m.Update(msg)
	h.exec(cmd)
	_ = h.m.View() // the program draws after every message
}

// pump delivers messages until cond holds.
func (h *harness) pump(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
	}
}

// deliver hands Update every message already waiting, and returns as soon
// as none is.
func (h *harness) deliver() {
	for {
		select {
		case msg := <-h.msgs:
			h.send(msg)
		default:
			return
		}
	}
}

var specialKeys = map[string]tea.Key{
	"enter":     {Code: tea.KeyEnter},
	"tab":       {Code: tea.KeyTab},
	"esc":       {Code: tea.KeyEscape},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"pgup":      {Code: tea.KeyPgUp},
	"pgdown":    {Code: tea.KeyPgDown},
	"shift+up":  {Code: tea.KeyUp, Mod: tea.ModShift},
	"alt+down":  {Code: tea.KeyDown, Mod: tea.ModAlt},
	"f1":        {Code: tea.KeyF1},
	"f2":        {Code: tea.KeyF2},
	"f3":        {Code: tea.KeyF3},
	"f4":        {Code: tea.KeyF4},
	"f5":        {Code: tea.KeyF5},
	"f6":        {Code: tea.KeyF6},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	"ctrl+d":    {Code: 'd', Mod: tea.ModCtrl},
	"ctrl+l":    {Code: 'l', Mod: tea.ModCtrl},
	"ctrl+z":    {Code: 'z', Mod: tea.ModCtrl},
	"backspace": {Code: tea.KeyBackspace},
}

// key presses a named key.
func (h *harness) key(name string) {
	h.t.Helper()
	k, ok := specialKeys[name]
	if !ok {
		h.t.Fatalf("no key %q in the test's table", name)
	}
	h.send(tea.KeyPressMsg(k))
}

// typeText types text as key presses.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// run types a line, presses Enter and waits until its job has ended.
func (h *harness) run(line string) {
	h.t.Helper()
	h.typeText(line)
	before := len(h.m.cmd.jobs)
	h.key("enter")
	if len(h.m.cmd.jobs) == before {
		return // handled by the pane (clear, quit) or empty
	}
	pj := h.m.cmd.jobs[len(h.m.cmd.jobs)-1]
	h.pump("the line "+line+" to finish", func() bool {
		for _, j := range h.m.cmd.jobs {
			if j == pj {
				return false
			}
		}
		return true
	})
}

// runOrStart runs line as run does, or, for a line ending in &, starts it
// in the background and goes on.
func (h *harness) runOrStart(line string) {
	h.t.Helper()
	if strings.HasSuffix(line, "&") {
		h.typeText(line)
		h.key("enter")
		return
	}
	h.run(line)
}

// settle waits for jobs and refreshes the status bar's facts.
func (h *harness) settle() {
	h.t.Helper()
	h.pump("jobs to end", func() bool { return len(h.m.cmd.jobs) == 0 })
	f := h.m.stats.read()
	f.jobs = len(h.m.cmd.jobs)
	h.m.status.SetFacts(f)
}

// text is the scrollback as plain text.
func (h *harness) text() string { return strings.Join(h.m.sb.Lines(), "\n") }

var portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// screen is the view without colours, the random port masked (also where
// a narrow pane wrapped the URL before it).
func (h *harness) screen() string {
	s := maskPort(ansi.Strip(h.m.View().Content))
	if url := h.srv.ClientURL(); url != "" {
		port := url[strings.LastIndexByte(url, ':')+1:]
		s = strings.ReplaceAll(s, ":"+port, ":"+strings.Repeat("P", len(port)))
	}
	return s
}

// maskPort hides the random port, keeping widths (ports are 5 digits on
// Linux's ephemeral range, but one never knows).
func maskPort(s string) string {
	return portRE.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.LastIndexByte(m, ':')
		return m[:i+1] + strings.Repeat("P", len(m)-i-1)
	})
}

// stableScenes limits the lab's registry to the real scenes the sandbox
// goldens were drawn with, so that a scene added to the build does not
// change screens that are not about scenes.
func stableScenes(h *harness) {
	var list []scenes.Factory
	for _, f := range scenes.List() {
		if f.Name == "contrast" || f.Name == "replicas" {
			list = append(list, f)
		}
	}
	h.m.sceneList = func() []scenes.Factory { return list }
	h.m.scene.Invalidate()
}
