package workshop

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/broker/text"
	"natslab/lab"
)

const attendeesDir = "attendees"

// attendee is one person's lab: their server and store, and what the
// instructor's table shows of them. The fields under w.mu are noted.
type attendee struct {
	name string
	dir  string

	// turn is held by the session that has the lab (and by parking), so
	// that one session at a time builds a lab Model on this store.
	turn sync.Mutex
	gen  atomic.Int64 // the newest session that asked for the lab
	park *time.Timer
	// token is what real clients of this lab's listener must present
	// (Options.AttendeeURLs): the same across parking, never shown.
	token string
	// dep is the attendee's server, nil while parked: changed with both
	// turn and w.mu held, so either one is enough to read it.
	dep broker.Deployment

	// Under w.mu:
	conn        *connection // nil while no one is connected
	joined      time.Time
	left        time.Time // when the last session ended
	parked      bool
	from        string // the address of the last session
	lesson      string // lesson ID, "" in the sandbox
	title       string
	step, steps int // step n of m (n is steps done + 1 until complete)
	complete    bool
	stepKey     string // lesson and step: when it changes, stepSince does
	stepSince   time.Time
	hints       map[string]int // per lesson
	hintsTotal  int
	lastErr     string
	lastErrAt   time.Time
	errsOnStep  int
	pending     string // a lesson the instructor opened while they were away
}

// connection is one SSH session showing an attendee's lab.
type connection struct {
	a       *attendee
	program *tea.Program
	model   *lab.Model
	shot    atomic.Pointer[string] // the last frame drawn, for the spotlight
	size    atomic.Pointer[[2]int]
	reason  atomic.Pointer[string] // why the workshop ended the session
	started time.Time
}

// kick ends the session, saying why once the screen is restored.
func (c *connection) kick(reason string) {
	c.reason.Store(&reason)
	c.program.Quit()
}

// startServer starts the attendee's own embedded server on their store.
// a.turn is held.
func (w *Workshop) startServer(a *attendee) error {
	if a.dep != nil {
		return nil
	}
	o := broker.Options{
		StoreDir:  a.dir,
		JetStream: true,
		Listen:    "none", // the lab talks in-process; nothing else reaches it
		MaxMemory: w.opts.MaxMemory,
		MaxStore:  w.opts.MaxStore,
	}
	if w.opts.AttendeeURLs {
		if a.token == "" {
			a.token = newToken()
		}
		o.Listen, o.Token = "127.0.0.1:0", a.token
	}
	srv, err := broker.Start(o)
	if err != nil {
		return err
	}
	w.mu.Lock()
	a.dep = srv
	w.mu.Unlock()
	return nil
}

// stopServer parks the attendee's server. a.turn is held.
func (w *Workshop) stopServer(a *attendee) {
	w.mu.Lock()
	dep := a.dep
	a.dep = nil
	w.mu.Unlock()
	if dep != nil {
		dep.Close()
	}
}

// attendeeFor finds or makes name's lab; a new one only while there is room.
func (w *Workshop) attendeeFor(name string) (*attendee, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, fmt.Errorf("natslab: the workshop is closing")
	}
	if a, ok := w.labs[name]; ok {
		return a, nil
	}
	if len(w.labs) >= w.opts.Max {
		return nil, fmt.Errorf("natslab: the workshop is full (%s): ask your instructor", text.Count(w.opts.Max, "lab", "labs"))
	}
	a := &attendee{name: name, dir: filepath.Join(w.opts.Store, attendeesDir, name), hints: map[string]int{}}
	w.labs[name] = a
	w.changedLocked()
	return a, nil
}

// observe is the lab session's observer: hints and errors for the table.
// It runs on a job's goroutine and returns at once.
func (w *Workshop) observe(a *attendee) func(command.Event) {
	return func(e command.Event) {
		switch e.Kind {
		case command.JobEnded:
			if f := strings.Fields(e.Line); e.Err == nil && len(f) > 0 && f[0] == "hint" {
				w.mu.Lock()
				a.hints[a.lesson]++
				a.hintsTotal++
				w.changedLocked()
				w.mu.Unlock()
			}
			if e.Err != nil {
				msg, _, _ := strings.Cut(e.Err.Error(), "\n")
				w.mu.Lock()
				a.lastErr, a.lastErrAt = msg, time.Now()
				a.errsOnStep++
				w.changedLocked()
				w.mu.Unlock()
			}
		}
	}
}

// watch follows every connected lab's lesson and step, once a second,
// for the table. It never waits on a lab's screen.
func (w *Workshop) watch() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		for _, a := range w.sortedLabs() {
			w.mu.Lock()
			c := a.conn
			w.mu.Unlock()
			if c == nil {
				continue
			}
			w.follow(a, c)
		}
	}
}

// follow reads c's lesson and step into a.
func (w *Workshop) follow(a *attendee, c *connection) {
	id, title, step, steps, complete := "", "", 0, 0, false
	if tu := c.model.Tutor(); tu != nil {
		if l := tu.Lesson(); l != nil {
			r := l.Report()
			ep := l.Episode()
			id, title, steps, complete = ep.ID, ep.Title, len(r.Steps), r.Complete
			step = min(r.Current+1, steps)
		}
	}
	key := fmt.Sprintf("%s/%d/%v", id, step, complete)
	w.mu.Lock()
	defer w.mu.Unlock()
	if key == a.stepKey {
		return
	}
	a.lesson, a.title, a.step, a.steps, a.complete = id, title, step, steps, complete
	a.stepKey, a.stepSince, a.errsOnStep = key, time.Now(), 0
	w.changedLocked()
}
