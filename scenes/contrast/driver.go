package contrast

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes/kit"
)

// Client names in events.
const (
	coreApp = "core"
	jsApp   = "jetstream"
)

// driver is the scene's NATS side: a tap that sees every message on
// events.>, a publisher, a core subscriber and a JetStream subscriber, each
// on its own connection so `nats server report connections` shows them.
// It is safe for concurrent use: controls come from the command pane's
// goroutines, messages from nats.go's.
type driver struct {
	dep  broker.Deployment
	feed *kit.Feed
	pace time.Duration // how long the JetStream app spends per message while it replays a backlog

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	ctl      sync.Mutex // serialises controls, which may wait on the network
	ensureMu sync.Mutex // one look for the stream and consumer at a time

	mu            sync.Mutex
	cond          *sync.Cond // js.Online, js.Ready, fetching changed
	mode          Mode
	serverUp      bool
	problem       string
	createLater   bool // the stream could not be created because JetStream was off: create it when it is on
	waitForStream bool // mode … wait: never create EVENTS, wait for the learner's stream
	js            JSState
	consumerSeq   uint64 // the consumer sequence Pending was read at, to keep the newest reading
	fetching      bool
	stopFetch     context.CancelFunc
	cons          jetstream.Consumer // on the app's connection
	appStarted    bool

	sceneNC, coreNC, jsNC *nats.Conn
	coreSub               *nats.Subscription  // the core app's, while it is online
	tap                   *nats.Subscription  // the scene's, while the core app is offline
	tapCh                 chan *nats.Msg      // the tap's messages, in the order the server sent them
	tapSync               chan struct{}       // the tap has counted up to the sentinel
	sentinel              *nats.Msg           // put in tapCh to know when the tap is through it
	drops                 drops               // guarded by mu
	api                   jetstream.JetStream // on sceneNC
	appJS                 jetstream.JetStream // on jsNC

	published    atomic.Uint64
	coreReceived atomic.Uint64
	coreLost     atomic.Uint64
	jsReceived   atomic.Uint64
	coreOnline   atomic.Bool
	bodies       atomic.Uint64 // numbers the scene's own messages
	pollKick     chan struct{}
}

func startDriver(dep broker.Deployment, feed *kit.Feed, pace time.Duration) (*driver, error) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &driver{dep: dep, feed: feed, pace: pace, ctx: ctx, cancel: cancel, pollKick: make(chan struct{}, 1), serverUp: true}
	d.cond = sync.NewCond(&d.mu)
	var err error
	fail := func(err error) (*driver, error) {
		d.close()
		return nil, err
	}
	d.sceneNC, err = dep.Connect("natslab scene contrast",
		nats.DisconnectErrHandler(func(*nats.Conn, error) { d.setServer(false) }),
		nats.ReconnectHandler(func(*nats.Conn) { d.setServer(true) }),
	)
	if err == nil {
		d.coreNC, err = dep.Connect("natslab scene contrast: app (core)")
	}
	if err != nil {
		return fail(err)
	}
	if d.api, err = jetstream.New(d.sceneNC); err != nil {
		return fail(err)
	}
	if err := d.startCore(); err != nil {
		return fail(err)
	}
	if d.jsNC, err = dep.Connect("natslab scene contrast: app (jetstream)"); err != nil {
		return fail(err)
	}
	if d.appJS, err = jetstream.New(d.jsNC); err != nil {
		return fail(err)
	}
	// The tap is registered before anyone is told the scene is ready.
	if err := d.sceneNC.Flush(); err != nil {
		return fail(err)
	}
	d.wg.Add(1)
	go d.runPoller()
	if s := dep.Embedded(); s != nil {
		d.wg.Add(1)
		go d.watchServer(s)
	}
	return d, nil
}

func (d *driver) close() {
	d.cancel()
	d.mu.Lock()
	d.cond.Broadcast()
	d.mu.Unlock()
	for _, nc := range []*nats.Conn{d.sceneNC, d.coreNC, d.jsNC} {
		if nc != nil {
			nc.Close()
		}
	}
	d.wg.Wait()
}

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.serverUp = up
	d.mu.Unlock()
	kind := kit.ServerDown
	if up {
		kind = kit.ServerUp
	}
	d.feed.Send(kit.Event{Kind: kind})
	d.feed.Poke()
	d.kickPoll()
}

// watchServer follows the embedded server through restarts (JetStream
// switched on or off, a store area changed), which the connections alone
// may not notice.
func (d *driver) watchServer(s *broker.Server) {
	defer d.wg.Done()
	for {
		ch := s.Changed()
		select {
		case <-d.ctx.Done():
			return
		case <-ch:
		}
		// Up means the scene is connected again, which the reconnect
		// handler says; a stop is news at once.
		if !s.Running() || !d.sceneNC.IsConnected() {
			d.setServer(false)
		}
	}
}

func (d *driver) kickPoll() {
	select {
	case d.pollKick <- struct{}{}:
	default:
	}
}

// snapshot reads the state; it never waits on the network.
func (d *driver) snapshot() Snapshot {
	d.mu.Lock()
	s := Snapshot{Mode: d.mode, ServerUp: d.serverUp, Problem: d.problem, JS: d.js}
	d.mu.Unlock()
	s.Published = d.published.Load()
	app, tap := d.dropped()
	s.Published += app + tap
	s.Core = CoreState{Online: d.coreOnline.Load(), Received: d.coreReceived.Load(), Lost: d.coreLost.Load() + tap, Dropped: app}
	s.JS.Received = d.jsReceived.Load()
	s.Sampled = d.feed.Dropped()
	return s
}

// publish sends n messages from the scene's own publisher.
func (d *driver) publish(n int) error {
	if !d.waitConnected(3 * time.Second) {
		return errors.New("the server is not reachable right now (restarting?): try again in a moment")
	}
	for i := 0; i < n; i++ {
		body := fmt.Appendf(nil, "event %d", d.bodies.Add(1))
		if err := d.sceneNC.Publish(PublishSubject, body); err != nil {
			return fmt.Errorf("publish failed after %d of %d: %w", i, n, err)
		}
	}
	if err := d.sceneNC.FlushTimeout(10 * time.Second); err != nil {
		return fmt.Errorf("the server did not confirm the publishes: %w", err)
	}
	return nil
}

func (d *driver) setProblem(p string) {
	d.mu.Lock()
	changed := d.problem != p
	d.problem = p
	d.mu.Unlock()
	if changed {
		d.feed.Poke()
	}
}

// sleep waits d or until the scene closes; it reports false on close.
func (dr *driver) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-dr.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// waitConnected gives a connection that is reconnecting (the server just
// restarted) a moment to come back.
func (d *driver) waitConnected(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !d.sceneNC.IsConnected() {
		if time.Now().After(deadline) || !d.sleep(20*time.Millisecond) {
			return false
		}
	}
	return true
}
