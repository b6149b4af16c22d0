package demo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"natslab/broker/brokertest"
	"natslab/scenes/contrast"
	"natslab/scenes/kit"
)

var epoch = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

// runtime is a small Bubble Tea loop for tests: commands run on their own
// goroutines and their messages come back to the model on the test's, as
// in a real program; the director's own ticks are left out, so the test
// moves the story on by itself with the manual clock.
type runtime struct {
	t     *testing.T
	m     *Model
	clock *kit.ManualClock
	msgs  chan tea.Msg

	applied, pokes uint64 // the scene's feed: events and pokes its model has had (catchUp)
}

func newRuntime(t *testing.T, speed float64, opts ...brokertest.Option) *runtime {
	srv := brokertest.Start(t, opts...)
	clock := kit.NewManualClock(epoch)
	m, err := New(srv, Options{Clock: clock, Speed: speed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	m.styles = kit.NewStyles(false)
	rt := &runtime{t: t, m: m, clock: clock, msgs: make(chan tea.Msg, 1024)}
	rt.exec(m.scene.Init())
	rt.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return rt
}

func (rt *runtime) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				rt.exec(c)
			}
			return
		}
		if msg != nil {
			rt.msgs <- msg
		}
	}()
}

func (rt *runtime) update(msg tea.Msg) {
	if _, ok := msg.(tickMsg); ok {
		return
	}
	if fm, ok := msg.(kit.FeedMsg); ok && fm.For(rt.m.scene.Feed()) {
		rt.applied = max(rt.applied, fm.Through)
		rt.pokes = max(rt.pokes, fm.Pokes)
	}
	_, cmd := rt.m.Update(msg)
	rt.exec(cmd)
}

// catchUp hands the model messages until its scene has applied every
// event its driver had sent, and read the driver's state since every poke,
// when catchUp was called (see kit.Feed): what a snapshot showed by then
// is on screen too.
func (rt *runtime) catchUp() {
	rt.t.Helper()
	feed := rt.m.scene.Feed()
	events, pokes := feed.Sent(), feed.Poked()
	deadline := time.Now().Add(15 * time.Second)
	for rt.applied < events || rt.pokes < pokes {
		if time.Now().After(deadline) {
			rt.t.Fatalf("the scene applied %d of the %d events and %d of the %d pokes its driver sent", rt.applied, events, rt.pokes, pokes)
		}
		rt.pump(5 * time.Millisecond)
	}
}

// pump hands the model what arrived, for d.
func (rt *runtime) pump(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case msg := <-rt.msgs:
			rt.update(msg)
		case <-end:
			return
		}
	}
}

// next moves the clock on until the director starts the next step, runs
// its controls, and returns its index.
func (rt *runtime) next() int {
	rt.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		if cmd := rt.m.advance(); cmd != nil {
			rt.update(cmd()) // the controls, then ranMsg
			return rt.m.dir.Index()
		}
		if time.Now().After(deadline) {
			rt.t.Fatalf("step %d never ended: %+v", rt.m.dir.Index(), rt.m.Snapshot())
		}
		rt.clock.Advance(100 * time.Millisecond)
		rt.pump(2 * time.Millisecond)
	}
}

// until waits (in real time: the broker is real) for the scene to show cond.
func (rt *runtime) until(what string, cond func(contrast.Snapshot) bool) {
	rt.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond(rt.m.Snapshot()) {
		if time.Now().After(deadline) {
			rt.t.Fatalf("step %d (%q): waiting for %s, the scene shows %+v", rt.m.dir.Index(), rt.m.Caption(), what, rt.m.Snapshot())
		}
		rt.pump(5 * time.Millisecond)
	}
}

func (rt *runtime) screen() string { return ansi.Strip(rt.m.View().Content) }

// The demo's script of states: each step's caption and the broker's
// numbers after it, stepped through on the manual clock, twice round.
func TestTheStoryPlaysItself(t *testing.T) {
	rt := newRuntime(t, 4)
	story := Story()
	type want struct {
		what string
		ok   func(contrast.Snapshot) bool
	}
	core := func(online bool, received, lost uint64) want {
		return want{fmt.Sprintf("core online=%v received %d lost %d", online, received, lost), func(s contrast.Snapshot) bool {
			return s.Mode == contrast.Core && s.Core.Online == online && s.Core.Received == received && s.Core.Lost == lost
		}}
	}
	js := func(online bool, received, pending uint64) want {
		return want{fmt.Sprintf("jetstream online=%v received %d pending %d", online, received, pending), func(s contrast.Snapshot) bool {
			return s.Mode == contrast.JetStream && s.JS.Ready && s.JS.Known && s.JS.Online == online && s.JS.Received == received && s.JS.Pending == pending
		}}
	}
	script := []want{
		core(true, 0, 0),
		core(true, 1, 0), core(true, 2, 0),
		core(false, 2, 0),
		core(false, 2, 1), core(false, 2, 2), core(false, 2, 3),
		core(false, 2, 3),
		core(true, 2, 3), core(true, 2, 3),
		js(true, 0, 0),
		js(true, 1, 0),
		js(false, 1, 0),
		js(false, 1, 1), js(false, 1, 2), js(false, 1, 3), js(false, 1, 4), js(false, 1, 5),
		js(false, 1, 5),
		js(true, 6, 0),
		js(true, 6, 0),
	}
	if len(script) != len(story) {
		t.Fatalf("the script checks %d steps, the story has %d", len(script), len(story))
	}
	for round := 0; round < 2; round++ {
		for i, w := range script {
			got := rt.next()
			if got != i {
				t.Fatalf("round %d: step %d started, want %d", round, got, i)
			}
			if rt.m.failed != "" {
				t.Fatalf("step %d: %s", i, rt.m.failed)
			}
			if rt.m.Caption() != story[i].Caption {
				t.Fatalf("step %d caption %q, want %q", i, rt.m.Caption(), story[i].Caption)
			}
			if i == 19 {
				// The replay drains message by message: pending goes
				// down through the numbers in between, as the broker says.
				seen := map[uint64]bool{}
				rt.until("the replay to drain", func(s contrast.Snapshot) bool {
					seen[s.JS.Pending] = true
					return s.JS.Pending == 0 && s.JS.Received == 6
				})
				for p := uint64(1); p <= 4; p++ {
					if !seen[p] {
						t.Errorf("the replay skipped pending %d: seen %v", p, seen)
					}
				}
			}
			rt.until(w.what, w.ok)
			rt.catchUp()
			if s := rt.screen(); !strings.Contains(s, story[i].Caption) {
				t.Fatalf("step %d: the screen does not show the caption %q:\n%s", i, story[i].Caption, s)
			}
		}
	}
	if rt.m.dir.Loops() != 1 {
		t.Fatalf("the story went round %d times, want 1 (it loops)", rt.m.dir.Loops())
	}
}

func TestKeysPauseStepAndQuit(t *testing.T) {
	rt := newRuntime(t, 4)
	rt.next() // step 0
	if url := rt.m.url; url == "" || !strings.Contains(rt.screen(), url) {
		t.Fatalf("the header should say where the room can publish (%q):\n%s", url, rt.screen())
	}
	// At 80x24 too, where the command the room can type is too long
	// for the header's row, the header names the URL.
	rt.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if head, _, _ := strings.Cut(rt.screen(), "\n"); !strings.Contains(head, rt.m.url) {
		t.Errorf("at 80x24 the header does not say where the room can publish (%q): %q", rt.m.url, head)
	}
	rt.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	rt.update(tea.KeyPressMsg{Code: tea.KeySpace})
	if !rt.m.dir.Paused() || !strings.Contains(rt.screen(), "paused") {
		t.Fatal("space pauses, and says so")
	}
	rt.clock.Advance(time.Hour)
	if rt.m.advance() != nil {
		t.Fatal("paused, the story holds")
	}
	_, cmd := rt.m.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if cmd == nil {
		t.Fatal("→ steps even while paused")
	}
	rt.update(cmd())
	if rt.m.dir.Index() != 1 {
		t.Fatalf("→ went to step %d", rt.m.dir.Index())
	}
	rt.update(tea.KeyPressMsg{Code: tea.KeySpace})
	if rt.m.dir.Paused() {
		t.Fatal("space plays on")
	}
	if rt.m.advance() != nil {
		t.Fatal("a step taken while paused holds from the moment play resumes")
	}
	_, cmd = rt.m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q quits")
	}
}

// The presenter's screen at the high point of the story: five messages
// pending in the stream, the app offline.
func TestGoldenDemoScreen(t *testing.T) {
	rt := newRuntime(t, 4, brokertest.InProcessOnly()) // no port number in the golden
	for rt.m.dir.Index() != 17 || rt.m.dir.Loops() > 0 {
		rt.next()
	}
	// What the screen shows: six published and stored, one of them
	// received before the app went offline, five pending.
	rt.until("pending 5", func(s contrast.Snapshot) bool {
		return s.Published == 6 && s.JS.Msgs == 6 && s.JS.LastSeq == 6 && s.JS.Received == 1 && !s.JS.Online && s.JS.Pending == 5
	})
	rt.catchUp()
	rt.clock.Advance(5 * time.Second) // every message in flight has landed
	golden.RequireEqual(t, rt.screen())
}

func TestSpeedScalesTime(t *testing.T) {
	d := NewDirector(Story(), 2)
	d.Next()
	d.Ran(epoch)
	hold := Story()[0].Hold
	if d.Due(epoch.Add(hold/2-time.Millisecond), contrast.Snapshot{}) || !d.Due(epoch.Add(hold/2), contrast.Snapshot{}) {
		t.Fatal("at speed 2 a step holds half as long")
	}
}
