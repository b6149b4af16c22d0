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
	"natslab/scenes/watch"
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
	*watch.Life
	dep  broker.Deployment
	feed *kit.Feed
	pace time.Duration // how long the JetStream app spends per message while it replays a backlog

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
	pubJS                 jetstream.JetStream // on sceneNC: the publisher's, whose acknowledgements time out
	appJS                 jetstream.JetStream // on jsNC

	published    atomic.Uint64
	coreReceived atomic.Uint64
	coreLost     atomic.Uint64
	jsReceived   atomic.Uint64
	notStored    atomic.Uint64
	coreOnline   atomic.Bool
	jsShown      atomic.Bool   // the mode shows the JetStream side: only then is it polled
	bodies       atomic.Uint64 // numbers the scene's own messages
	pollKick     watch.Kick
}

func startDriver(dep broker.Deployment, feed *kit.Feed, pace time.Duration) (*driver, error) {
	d := &driver{Life: watch.NewLife(), dep: dep, feed: feed, pace: pace, pollKick: watch.NewKick(), serverUp: true}
	d.cond = sync.NewCond(&d.mu)
	// The app waiting to come online wakes when the scene closes.
	context.AfterFunc(d.Ctx, func() {
		d.mu.Lock()
		d.cond.Broadcast()
		d.mu.Unlock()
	})
	var err error
	fail := func(err error) (*driver, error) {
		d.Close()
		return nil, err
	}
	d.sceneNC, err = d.Connect(dep, "natslab scene contrast", d.setServer)
	if err == nil {
		d.coreNC, err = d.Connect(dep, "natslab scene contrast: app (core)", nil)
	}
	if err != nil {
		return fail(err)
	}
	if d.api, err = jetstream.New(d.sceneNC); err != nil {
		return fail(err)
	}
	if d.pubJS, err = jetstream.New(d.sceneNC, jetstream.WithPublishAsyncTimeout(ackWait)); err != nil {
		return fail(err)
	}
	if err := d.startCore(); err != nil {
		return fail(err)
	}
	if d.jsNC, err = d.Connect(dep, "natslab scene contrast: app (jetstream)", nil); err != nil {
		return fail(err)
	}
	if d.appJS, err = jetstream.New(d.jsNC); err != nil {
		return fail(err)
	}
	// The tap is registered before anyone is told the scene is ready.
	if err := d.sceneNC.Flush(); err != nil {
		return fail(err)
	}
	d.Go(d.runPoller)
	// The lab's server's restarts (JetStream switched on or off, a store
	// area changed) may go unnoticed by the connections alone. Up means the
	// scene is connected again, which the reconnect handler says; a stop is
	// news at once, but not a cluster's node stopping (watch.Moving).
	d.FollowServer(dep, func() {
		if !dep.Running() || (!d.sceneNC.IsConnected() && !watch.Moving(dep)) {
			d.setServer(false)
		}
	})
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.feed.Send(kit.ServerEvent(up))
	d.serverUp = up
	d.mu.Unlock()
	d.feed.Poke()
	d.kickPoll()
}

// kickPoll asks the poller for a look at the JetStream side, unless the
// mode hides it: nothing of it is drawn then, and a mode that shows it
// looks at once.
func (d *driver) kickPoll() {
	if d.jsShown.Load() {
		d.pollKick.Poke()
	}
}

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	s := Snapshot{Mode: d.mode, ServerUp: d.serverUp, Problem: d.problem, JS: d.js}
	d.mu.Unlock()
	s.Published = d.published.Load()
	app, tap := d.dropped()
	s.Published += app + tap
	s.Core = CoreState{Online: d.coreOnline.Load(), Received: d.coreReceived.Load(), Lost: d.coreLost.Load() + tap, Dropped: app}
	s.JS.Received = d.jsReceived.Load()
	s.JS.NotStored = d.notStored.Load()
	s.Sampled = d.feed.Dropped()
	return s
}

// ackWait is how long a JetStream publish waits for the stream's
// acknowledgement before the scene counts the message as not stored, as a
// publisher must (and would publish it again).
const ackWait = 2 * time.Second

// published is what one publish control did.
type published struct {
	n         int   // messages sent
	jetstream bool  // as JetStream publishes, each waiting for the stream's acknowledgement
	notStored int   // of those, how many no stream acknowledged
	why       error // the first reason one was not acknowledged
}

// publish sends n messages from the scene's own publisher. While the
// JetStream side is shown they are JetStream publishes: the stream
// acknowledges each one it stores, so one it never stored (its server down,
// no stream capturing the subject) is counted and said rather than taken
// for stored. In Core mode they are plain publishes, as Core NATS knows no
// acknowledgement.
func (d *driver) publish(n int) (published, error) {
	if !d.AwaitConnected(d.sceneNC, 3*time.Second) {
		return published{}, watch.ErrUnreachable
	}
	d.mu.Lock()
	viaJS := d.mode.showsJS() && d.js.Active
	d.mu.Unlock()
	if viaJS {
		return d.publishJetStream(n)
	}
	for i := 0; i < n; i++ {
		body := fmt.Appendf(nil, "event %d", d.bodies.Add(1))
		if err := d.sceneNC.Publish(PublishSubject, body); err != nil {
			return published{}, fmt.Errorf("publish failed after %d of %d: %w", i, n, err)
		}
	}
	if err := d.sceneNC.FlushTimeout(10 * time.Second); err != nil {
		return published{}, fmt.Errorf("the server did not confirm the publishes: %w", err)
	}
	return published{n: n}, nil
}

// publishJetStream publishes n messages without waiting for each
// acknowledgement in turn, then collects them all; the publisher's
// ackWait bounds how long a missing one is waited for.
func (d *driver) publishJetStream(n int) (published, error) {
	res := published{jetstream: true}
	futures := make([]jetstream.PubAckFuture, 0, n)
	var stopped error
	for range n {
		body := fmt.Appendf(nil, "event %d", d.bodies.Add(1))
		f, err := d.pubJS.PublishAsync(PublishSubject, body)
		if err != nil {
			stopped = err
			break
		}
		futures = append(futures, f)
	}
	res.n = len(futures)
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			res.notStored++
			if res.why == nil {
				res.why = err
			}
			d.feed.Send(kit.Event{Kind: kit.Lost, Subject: PublishSubject, Client: jsApp})
			d.notStored.Add(1)
		case <-d.Ctx.Done():
			return res, d.Ctx.Err()
		}
	}
	d.feed.Poke()
	d.kickPoll()
	if stopped != nil {
		return res, fmt.Errorf("publish stopped after %d of %d: %s", res.n, n, notStoredWhy(stopped))
	}
	return res, nil
}

// notStoredWhy says why a JetStream publish got no acknowledgement.
func notStoredWhy(err error) string {
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrNoResponders):
		return "no stream answered: no stream captures " + PublishSubject + ", or its server is down"
	case errors.Is(err, jetstream.ErrAsyncPublishTimeout), errors.Is(err, jetstream.ErrTooManyStalledMsgs):
		return "no acknowledgement within " + ackWait.String() + " (the stream's server is down or busy): a publisher publishes them again"
	}
	return "JetStream: " + err.Error()
}
