package watch

import (
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
)

// Loop is the one goroutine on which a driver's state changes, for a
// driver that keeps that state unlocked (its Turns): what its listeners
// hear, the server going down or coming back, kicks, a test's Sync and the
// driver's own schedule all come to it, and after each it looks at the
// broker when the driver says a look is due. News is taken in whole (what
// else waits is drained) before the driver hands it to the scene.
//
// Drivers embed it (it embeds their Life); NewLoop begins their lifetime.
type Loop struct {
	*Life
	msgs   chan *nats.Msg
	kick   Kick
	server chan bool
	syncs  chan chan struct{}
	ready  chan struct{}
}

// Turns is a driver run by a Loop. Each method is called on the loop's
// goroutine alone.
type Turns interface {
	// Heard takes one message from the driver's listeners.
	Heard(m *nats.Msg)
	// Server takes the news that the server went down (false) or came
	// back (true), as a connection or the embedded server said it.
	Server(up bool)
	// Kicked takes a kick: something asked for a look (Loop.Poke).
	Kicked()
	// Due says whether a look is due at now.
	Due(now time.Time) bool
	// Next is when the next look is due, seen at now.
	Next(now time.Time) time.Time
	// Look looks at the broker.
	Look()
	// Publish hands what the driver knows to its scene.
	Publish()
	// Stopped runs once the loop has ended (the scene closed).
	Stopped()
}

// NewLoop begins a driver's lifetime with its loop, the listeners'
// channel holding at most buffer messages (past that, nats.go drops and
// counts them).
func NewLoop(buffer int) *Loop {
	return &Loop{Life: NewLife(), msgs: make(chan *nats.Msg, buffer), kick: NewKick(),
		server: make(chan bool, 16), syncs: make(chan chan struct{}), ready: make(chan struct{})}
}

// Msgs is where the driver's listeners put what they hear (ChanSubscribe),
// so that it comes in the order the server sent it.
func (lp *Loop) Msgs() chan *nats.Msg { return lp.msgs }

// Poke asks for a look, without ever blocking (NATS callbacks poke).
func (lp *Loop) Poke() { lp.kick.Poke() }

// ServerChanged hands the loop news of the server, without ever blocking a
// NATS callback: when the queue is full the news is dropped and a look is
// asked for instead. It is the onServer of Life.Connect.
func (lp *Loop) ServerChanged(up bool) {
	select {
	case lp.server <- up:
	default:
		lp.Poke()
	}
}

// Start runs t on the loop until the scene closes, and follows the lab's
// restarts (the embedded server stops and starts before a connection
// notices). It returns after the first look, so that the scene opens on the
// broker's state with its listeners in place, or after two seconds.
func (lp *Loop) Start(dep broker.Deployment, t Turns) {
	lp.Go(func() { lp.run(t) })
	lp.FollowServer(dep, func() {
		if !dep.Running() {
			lp.ServerChanged(false)
		} else {
			lp.Poke()
		}
	})
	select {
	case <-lp.ready:
	case <-time.After(2 * time.Second):
	}
}

// Sync returns once the loop has taken in everything the server sent nc
// before the call and looked at the broker since (the package's Sync).
func (lp *Loop) Sync(nc *nats.Conn, limit time.Duration) bool {
	return Sync(nc, lp.syncs, limit)
}

func (lp *Loop) run(t Turns) {
	defer t.Stopped()
	timer := time.NewTimer(0)
	defer timer.Stop()
	first := false
	var synced []chan struct{} // closed after this turn's look
	for {
		select {
		case <-lp.Ctx.Done():
			return
		case up := <-lp.server:
			t.Server(up)
			lp.drain(t)
			t.Publish()
		case m := <-lp.msgs:
			t.Heard(m)
			lp.drain(t)
			t.Publish()
		case <-lp.kick:
			t.Kicked()
		case done := <-lp.syncs:
			lp.drain(t)
			synced = append(synced, done)
		case <-timer.C:
		}
		if now := time.Now(); t.Due(now) || len(synced) > 0 {
			t.Look()
			t.Publish()
			if !first {
				first = true
				close(lp.ready)
			}
		}
		for _, done := range synced {
			close(done)
		}
		synced = nil
		now := time.Now()
		timer.Reset(max(t.Next(now).Sub(now), time.Millisecond))
	}
}

// drain takes whatever else came, without waiting.
func (lp *Loop) drain(t Turns) {
	for {
		select {
		case up := <-lp.server:
			t.Server(up)
		case m := <-lp.msgs:
			t.Heard(m)
		default:
			return
		}
	}
}

// TakeHeard takes, during a look, what the listeners have heard so far:
// the server sent it before the look's answers, which may already show
// its effects (a worker's pull satisfied) that the driver could not place
// without it (which pull got the message). Only the loop's goroutine may
// call it (a Turns' Look).
func (lp *Loop) TakeHeard(t Turns) {
	for {
		select {
		case m := <-lp.msgs:
			t.Heard(m)
		default:
			return
		}
	}
}

// Dial opens the driver's connection to dep, named name: news of the
// server goes to the loop (ServerChanged), JetStream is reached through
// it, and what the server sends on subjects (advisories) is heard in Msgs
// from the moment Dial returns. End closes it.
func (lp *Loop) Dial(dep broker.Deployment, name string, subjects ...string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := lp.Connect(dep, name, lp.ServerChanged)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, nil, err
	}
	for _, subj := range subjects {
		if _, err := nc.ChanSubscribe(subj, lp.msgs); err != nil {
			return nil, nil, err
		}
	}
	// The subscriptions are in place only once the server has them: what
	// another connection publishes before that reaches nobody here.
	if len(subjects) > 0 {
		if err := nc.Flush(); err != nil {
			return nil, nil, err
		}
	}
	return nc, js, nil
}
