package episode

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"natslab/broker/command"
	"natslab/broker/script"
)

// Tutor is what the lab holds: the catalog, the learner's progress and the
// lesson open now. It moves the server between the sandbox and lessons'
// store areas, evaluates the open lesson, and provides the pane's verbs.
// Its methods are safe from any goroutine.
type Tutor struct {
	cat  *Catalog
	env  Env
	list ListOptions

	// op serialises what moves the server between areas (Open, Reset,
	// Leave). mu guards the fields below and is never held across a
	// command: setup lines emit events, and Observe takes mu.
	op        sync.Mutex
	mu        sync.Mutex
	lesson    *Lesson
	opening   bool // Open is replacing the lesson: nil until it is done
	sandboxJS bool
	onChange  func()
	kick      chan struct{}
	shown     shownReport // what the last OnChange call had to show
}

// shownReport is what a learner sees of a report: OnChange fires when it
// differs, so a step's "not yet" follows the broker even when no step
// ticks, and a step ticked by a verb's own evaluation (hint, lesson) is
// still announced.
type shownReport struct {
	lesson        *Lesson
	done, current int
	why           string
}

func shownOf(l *Lesson, r Report) shownReport {
	s := shownReport{lesson: l, done: r.Done, current: r.Current}
	if r.Current < len(r.Steps) {
		s.why = r.Steps[r.Current].Why
	}
	return s
}

// NewTutor prepares a tutor; nothing changes on the server until a lesson
// opens. env.Session is the lab's session: wire its observer to Observe.
func NewTutor(cat *Catalog, env Env, list ListOptions) *Tutor {
	env.Cluster = max(env.Cluster, Nodes(env.Deployment))
	list.Cluster = env.Cluster
	return &Tutor{cat: cat, env: env, list: list, kick: make(chan struct{}, 1)}
}

// Catalog is the tutor's catalog.
func (t *Tutor) Catalog() *Catalog { return t.cat }

// OnChange sets f to be called (from any goroutine, without the tutor's
// lock) whenever a lesson opens or closes, a step is done, or what the
// step to do next still lacks changes: the lab redraws its lesson pane
// then. Nothing calls it while nothing changes.
func (t *Tutor) OnChange(f func()) {
	t.mu.Lock()
	t.onChange = f
	t.mu.Unlock()
}

func (t *Tutor) changed() {
	t.mu.Lock()
	f := t.onChange
	t.mu.Unlock()
	if f != nil {
		f()
	}
}

// Lesson is the lesson open now, or nil in the sandbox.
func (t *Tutor) Lesson() *Lesson {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lesson
}

// LessonOrOpening is Lesson, and whether another lesson is being opened:
// while one replaces another there is no lesson for a moment, and that is
// not the sandbox (whose scene the lab would bring back).
func (t *Tutor) LessonOrOpening() (l *Lesson, opening bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lesson, t.opening
}

// Open opens the lesson id, resuming it where the learner left it (or from
// its starting state, the first time).
func (t *Tutor) Open(ctx context.Context, id string) (*Lesson, error) {
	ep, ok := t.cat.Get(id)
	if !ok {
		return nil, t.cat.Unknown(id)
	}
	if t.env.Progress.StatusOf(ep, t.env.Cluster) == Unavailable {
		if ep.Needs.Single {
			return nil, fmt.Errorf("lesson %s runs on the single server, not the cluster: quit and start natslab --lesson %s, without --cluster", ep.ID, ep.ID)
		}
		return nil, fmt.Errorf("lesson %s needs a %d-node cluster: %s", ep.ID, ep.Needs.Cluster, t.env.Session.ClusterAdvice(fmt.Sprintf("quit and start natslab --cluster %d --lesson %s", ep.Needs.Cluster, ep.ID)))
	}
	t.op.Lock()
	defer t.op.Unlock()
	defer func() { go t.changed() }()
	t.mu.Lock()
	old := t.lesson
	t.lesson, t.opening = nil, true
	if old == nil {
		if dep := t.env.Deployment; dep.Own() {
			t.sandboxJS = dep.JetStream()
		}
	}
	t.mu.Unlock()
	if old != nil {
		old.Close()
	}
	l, err := Begin(ctx, t.env, ep, false)
	if err != nil {
		t.mu.Lock()
		t.opening = false
		t.mu.Unlock()
		_ = t.backToSandbox()
		return nil, err
	}
	l.Evaluate(ctx)
	t.mu.Lock()
	t.lesson, t.opening = l, false
	t.mu.Unlock()
	if t.env.Progress != nil {
		_ = t.env.Progress.SetCurrent(ep.ID)
	}
	return l, nil
}

// Reset restores the open lesson's starting state: `lesson reset`.
func (t *Tutor) Reset(ctx context.Context) (*Lesson, error) {
	t.op.Lock()
	defer t.op.Unlock()
	l := t.Lesson()
	if l == nil {
		return nil, errNoLesson
	}
	defer func() { go t.changed() }()
	return l, l.Reset(ctx)
}

var errNoLesson = errors.New("no lesson is open: lessons lists them, lesson ID opens one")

// Leave closes the open lesson and brings the sandbox back as it was.
func (t *Tutor) Leave(ctx context.Context) error {
	t.op.Lock()
	defer t.op.Unlock()
	t.mu.Lock()
	old := t.lesson
	t.lesson = nil
	t.mu.Unlock()
	if old == nil {
		return nil
	}
	defer func() { go t.changed() }()
	old.Close()
	if t.env.Progress != nil {
		_ = t.env.Progress.SetCurrent("")
	}
	return t.backToSandbox()
}

// backToSandbox moves the server to the sandbox's area. t.op is held.
func (t *Tutor) backToSandbox() error {
	srv := t.env.Deployment
	if !srv.Own() || srv.Area() == "" {
		return nil
	}
	t.mu.Lock()
	js := t.sandboxJS
	t.mu.Unlock()
	use := func() error { return srv.UseArea("", js, false) }
	if t.env.Session != nil {
		return t.env.Session.Reconnecting(use)
	}
	return use()
}

// runs reports whether the lab runs e: the nodes it needs, the listener
// its real CLI commands reach the server through, the local files it
// reads and writes (a workshop's labs touch none).
func (t *Tutor) runs(e *Episode) bool {
	switch {
	case t.env.Progress.StatusOf(e, t.env.Cluster) == Unavailable:
		return false
	case e.Needs.Listener && t.env.Deployment.ClientURL() == "":
		return false
	case e.Needs.LocalFiles && t.env.Session.RefusesLocalFiles():
		return false
	}
	return true
}

// Step moves to the next (+1) or previous (-1) lesson, skipping those the
// lab cannot run. Outside a lesson, next opens the first lesson not done.
func (t *Tutor) Step(ctx context.Context, dir int) (*Lesson, error) {
	eps := t.cat.Episodes
	cur := -1
	if l := t.Lesson(); l != nil {
		cur = t.cat.Index(l.ep.ID)
	} else if dir > 0 {
		for _, e := range eps {
			if st := t.env.Progress.StatusOf(e, t.env.Cluster); st != Done && t.runs(e) {
				return t.Open(ctx, e.ID)
			}
		}
		return nil, errors.New("every lesson is done: lesson ID opens one again")
	}
	for i := cur + dir; i >= 0 && i < len(eps); i += dir {
		if t.runs(eps[i]) {
			return t.Open(ctx, eps[i].ID)
		}
	}
	if dir > 0 {
		return nil, errors.New("this is the last lesson")
	}
	if cur < 0 {
		return nil, errNoLesson
	}
	return nil, errors.New("this is the first lesson")
}

// Evaluate checks the open lesson against the broker (see
// Lesson.Evaluate); ok is false in the sandbox.
func (t *Tutor) Evaluate(ctx context.Context) (Report, bool) {
	l := t.Lesson()
	if l == nil {
		return Report{}, false
	}
	r := l.Evaluate(ctx)
	s := shownOf(l, r)
	t.mu.Lock()
	fire := r.Changed || s != t.shown
	t.shown = s
	t.mu.Unlock()
	if fire {
		go t.changed()
	}
	return r, true
}

// CheckAfterLine evaluates the open lesson as natslab run --lesson does
// after each line: once the session's jobs have received what the line
// sent and the server has caught up. The pane calls it between lines it
// runs in turn, so that a line undoing what the one before did (leaf stop
// after leaf pub) comes after the lesson saw it. Off the UI goroutine.
func (t *Tutor) CheckAfterLine(ctx context.Context) {
	l := t.Lesson()
	if l == nil {
		return
	}
	script.SettleForCheck(t.env.Session)
	l.caughtUp(ctx, t.env.Deployment)
	t.Evaluate(ctx)
}

// Observe takes the lab session's events and asks Watch for an evaluation
// when a command ended, a subscriber received something or a stream
// refused a publish (a publish alone changes nothing a check reads until
// it is received, or its command ends).
func (t *Tutor) Observe(ev command.Event) {
	if l := t.Lesson(); l != nil {
		l.Observe(ev)
	}
	if ev.Kind != command.JobStarted && ev.Kind != command.Published {
		select {
		case t.kick <- struct{}{}:
		default:
		}
	}
}

// pollEvery is the slow poll that catches what no event announces: a real
// nats CLI in another terminal, an ack wait running out.
const pollEvery = time.Second

// Watch evaluates the open lesson whenever something happens (a command
// ends, a message arrives, the server restarts) and every second, until
// ctx ends. The lab runs it in a goroutine of its own.
func (t *Tutor) Watch(ctx context.Context) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	changed := t.env.Deployment.Changed()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.kick:
			// Let a burst of deliveries land before looking.
			time.Sleep(20 * time.Millisecond)
		case <-tick.C:
		case <-changed:
			changed = t.env.Deployment.Changed()
		}
		t.Evaluate(ctx)
	}
}
