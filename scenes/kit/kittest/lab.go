package kittest

import (
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/scenes"
)

// Lab is a scene beside a command session, on one deployment of a real
// server, as the lab shows them: the learner types into the Session, the
// scene (the Harness, once Open) shows what the broker did.
type Lab[Sc Scene, S any] struct {
	*Harness[Sc, S] // nil until Open
	*Session
	T   testing.TB
	Srv *broker.Server    // the test's server
	Dep broker.Deployment // what the scene and the session talk to: Srv, or Srv seen as a server the lab does not run (External)

	build func(env scenes.Env) (Sc, error)
	snap  func(Sc) S
	opts  []Option
}

// NewLab opens a command session on dep, and readies the scene build
// makes (snap reads its snapshot; opts are the Harness's), which Open
// opens: a test may type its setup first, as a learner does before
// opening a scene.
func NewLab[Sc Scene, S any](t testing.TB, srv *broker.Server, dep broker.Deployment, build func(env scenes.Env) (Sc, error), snap func(Sc) S, opts ...Option) *Lab[Sc, S] {
	t.Helper()
	var o harnessOptions
	for _, f := range opts {
		f(&o)
	}
	sess := NewSession(t, dep, o.commands...)
	sess.Timeout = o.timeout
	return &Lab[Sc, S]{Session: sess, T: t, Srv: srv, Dep: dep, build: build, snap: snap, opts: opts}
}

// OpenLab is NewLab, then Open.
func OpenLab[Sc Scene, S any](t testing.TB, srv *broker.Server, dep broker.Deployment, build func(env scenes.Env) (Sc, error), snap func(Sc) S, opts ...Option) *Lab[Sc, S] {
	t.Helper()
	l := NewLab(t, srv, dep, build, snap, opts...)
	l.Open()
	return l
}

// Open opens the scene on the lab's deployment.
func (l *Lab[Sc, S]) Open() {
	l.T.Helper()
	l.Harness = Open(l.T, l.Dep, l.build, l.snap, l.opts...)
}

// Commands bounds each command the session runs at timeout (0: none),
// and gives the session opts for its commands.
func Commands(timeout time.Duration, opts ...command.Option) Option {
	return func(o *harnessOptions) { o.timeout, o.commands = timeout, opts }
}

// External is srv seen as a server the lab does not run: reached through
// the client API alone, as a learner's own nats-server is.
func External(t testing.TB, srv *broker.Server) broker.Deployment {
	t.Helper()
	ext, err := broker.Dial(broker.ExternalOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	return ext
}
