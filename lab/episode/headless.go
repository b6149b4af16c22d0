package episode

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/broker/script"
	"natslab/broker/text"
)

// HeadlessOptions configure RunScript.
type HeadlessOptions struct {
	Deployment broker.Deployment
	Progress   *Progress // nil records nothing
	Cluster    int       // nodes the deployment runs; 0 asks it (see Nodes)
	// Notes, if set, receives the lab's notes (natslab run --explain).
	Notes io.Writer
	// SessionOptions are passed to the session the script runs in (a clock,
	// a timeout), after the lesson's own observer.
	SessionOptions []command.Option
}

// RunScript is `natslab run --lesson ID FILE`: it starts the lesson afresh
// in its own store area, runs the script's lines against it (checking the
// broker after each), then prints one line per step, `✓ title` or
// `✗ title: why`, and last `lesson ID: N/M steps done`. The lesson is
// complete when every step is done.
func RunScript(ctx context.Context, c *Catalog, id string, o HeadlessOptions, r io.Reader, stdout, stderr io.Writer) (Report, error) {
	ep, ok := c.Get(id)
	if !ok {
		return Report{}, c.Unknown(id)
	}
	o.Cluster = max(o.Cluster, Nodes(o.Deployment))
	if o.Progress.StatusOf(ep, o.Cluster) == Unavailable {
		if ep.Needs.Single {
			return Report{}, fmt.Errorf("lesson %s runs on the single server: leave out --cluster", ep.ID)
		}
		return Report{}, fmt.Errorf("lesson %s needs a %d-node cluster: add --cluster %d", ep.ID, ep.Needs.Cluster, ep.Needs.Cluster)
	}
	var lesson atomic.Pointer[Lesson]
	opts := append([]command.Option{command.WithObserver(func(ev command.Event) {
		if l := lesson.Load(); l != nil {
			l.Observe(ev)
		}
	})}, o.SessionOptions...)
	s := command.NewSession(o.Deployment, opts...)
	defer s.Close()
	for _, v := range ScriptVerbs() {
		s.AddVerb(v)
	}
	l, err := Begin(ctx, Env{Deployment: o.Deployment, Session: s, Progress: o.Progress, Cluster: o.Cluster}, ep, true)
	if err != nil {
		return Report{}, err
	}
	defer l.Close()
	lesson.Store(l)
	// RunEach checks once each line's deliveries have reached the script's
	// subscribers (script.RunEach says how it knows); a cluster's replicas
	// catch up on their own, and that has a condition to wait for.
	check := func() {
		l.caughtUp(ctx, o.Deployment)
		l.Evaluate(ctx)
	}
	if _, err := script.RunEach(ctx, s, r, command.Streams{Out: stdout, Err: stderr, Note: o.Notes}, check); err != nil {
		return Report{}, err
	}
	// The last check ran when every line had run and background jobs had
	// settled; stopping them since changed the state, not the learner.
	rep := l.Report()
	WriteReport(stdout, rep)
	return rep, nil
}

// WriteReport prints a lesson's steps, one line each, and a summary line.
func WriteReport(w io.Writer, r Report) {
	for i, st := range r.Steps {
		switch {
		case st.Done:
			fmt.Fprintf(w, "✓ %s\n", st.Title)
		case i == r.Current:
			why := st.Why
			if why == "" {
				why = "not done yet"
			}
			fmt.Fprintf(w, "✗ %s: %s\n", st.Title, text.Plain(why))
		default:
			fmt.Fprintf(w, "✗ %s: not checked (step %d comes first)\n", st.Title, r.Current+1)
		}
	}
	fmt.Fprintf(w, "lesson %s: %d/%d steps done\n", r.ID, r.Done, len(r.Steps))
}

// caughtUp waits, each within its bound, for what the server does on its
// own after a line: a cluster's replicas, mirrors and sources catching up.
func (l *Lesson) caughtUp(ctx context.Context, dep broker.Deployment) {
	if c := dep.Cluster(); c != nil {
		broker.WaitFor(clusterSettle, func() bool { return replicated(c) })
	}
	// Mirrors and sources copy a moment after their origins store.
	broker.WaitFor(copySettle, func() bool { return l.copiesCaughtUp(ctx) })
}

// clusterSettle bounds how long a check waits for a cluster's replicas to
// be current.
const clusterSettle = 5 * time.Second

// replicated reports whether every replicated stream has a leader, a copy
// on every running node it asks for, and each copy current: what a
// stream just created or a node just returned reaches a heartbeat or so
// after the command that caused it returned. A learner at the keyboard
// sees the step tick on the next poll; a script checks only once per line.
func replicated(c broker.Cluster) bool {
	running := 0
	streams := map[string]bool{}
	for _, n := range c.Nodes() {
		if !n.Running {
			continue
		}
		running++
		for _, r := range c.Copies(n.Name) {
			if r.R > 1 {
				streams[r.Stream] = true
			}
		}
	}
	for st := range streams {
		copies, leader := 0, false
		want := 0
		for _, r := range c.Replicas(st) {
			if r.Stream == "" {
				continue
			}
			copies++
			leader = leader || r.Leader
			want = min(r.R, running)
			if !r.Current {
				return false
			}
		}
		if !leader || copies < want {
			return false
		}
	}
	return true
}

// ScriptVerbs are the lab verbs a lesson's scripts may need beyond the
// real CLI's commands: sleep, to let an ack wait or a max age pass.
func ScriptVerbs() []command.Verb { return []command.Verb{script.Sleep} }
