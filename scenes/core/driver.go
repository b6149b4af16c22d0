package core

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// WatcherPrefix starts the name of every connection a scene watches the
// broker with. A scene's tap is a real subscription, but it is the scene's
// eyes, not a subscriber of the learner's: lesson checks leave connections
// named so out (lab/episode), and the scenes leave them out of their lists.
const WatcherPrefix = "natslab scene"

// The tap's bounds: past them nats.go drops (and counts) rather than hold
// up the connection, so a flood costs the broker nothing and memory stays
// flat. Drops are added to the published count.
const (
	tapBuffer    = 8 * 1024
	pendingMsgs  = 256 * 1024
	pendingBytes = 16 << 20
)

// Sub is one client subscription on the watched subjects, as the server
// reports it.
type Sub struct {
	Key     string // the server's boot, the connection and the subscription: unique across restarts
	Cid     uint64
	Sid     string
	Name    string // the connection's name ("natslab sub greet", "NATS CLI Version 0.5.0"), or ""
	Subject string
	Queue   string
	Msgs    uint64 // the server's count of messages delivered to it, since the scene first saw it or was reset
}

// Label is how the scene names the subscription's connection.
func (s Sub) Label() string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("connection %d", s.Cid)
}

// Snapshot is the scene's state as the broker reported it last.
type Snapshot struct {
	Watch     string
	Listed    bool // the subscriber list comes from the server (the lab's own)
	ServerUp  bool
	Subs      []Sub  // the subscriptions colliding with Watch, oldest connection first
	Published uint64 // messages on Watch since the scene opened or was reset (the tap's count)
	Unheard   uint64 // of those, the ones no subscription but the tap's could receive
	Sampled   uint64 // messages the tap had to drop (counted in Published, not classified)
	Problem   string
}

// Delivered is the sum of the listed subscriptions' counts.
func (s Snapshot) Delivered() uint64 {
	var n uint64
	for _, sub := range s.Subs {
		n += sub.Msgs
	}
	return n
}

// driver is the scene's NATS side: one connection with one tap
// subscription on the watched subjects, a poller that asks the server who
// subscribes there and how many messages each got, and the scene's own
// publishes. Safe for concurrent use: controls come from the command
// pane's goroutines, messages from nats.go's.
type driver struct {
	*watch.Life
	dep   broker.Deployment
	feed  *kit.Feed
	nc    *nats.Conn
	name  string
	kind  Kind
	count atomic.Uint64 // numbers the scene's own messages

	kick watch.Kick

	mu       sync.Mutex
	watch    string
	tap      *nats.Subscription
	tapStop  chan struct{}
	serverUp bool
	problem  string
	disc     discovery
	gen      uint64 // counts watch changes: a look begun before one is dropped

	published atomic.Uint64
	unheard   atomic.Uint64
	dropBase  atomic.Uint64 // the tap's drops at the last reset or watch change
	sample    atomic.Uint64 // which sample subject the wildcards scene publishes next
}

func startDriver(dep broker.Deployment, kind Kind, feed *kit.Feed) (*driver, error) {
	if dep == nil {
		return nil, errors.New("the scene needs the lab's server")
	}
	d := &driver{Life: watch.NewLife(), dep: dep, feed: feed, kind: kind,
		kick: watch.NewKick(), serverUp: true, name: WatcherPrefix + " " + kind.info().name}
	d.disc.init()
	nc, err := d.Connect(dep, d.name, d.setServer)
	if err != nil {
		d.End()
		return nil, err
	}
	d.nc = nc
	if err := d.setWatch(kind.info().watch); err != nil {
		d.Close()
		return nil, err
	}
	// What exists when the scene opens is the starting point: counts are
	// what happens from now on.
	d.poll()
	d.Go(d.runPoller)
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.serverUp = up
	d.mu.Unlock()
	d.feed.Poke()
	d.poke()
}

// poke asks the poller for a look soon.
func (d *driver) poke() { d.kick.Poke() }

// setWatch replaces the tap: one subscription at a time, on subject. The
// counts start again, since they are about what the scene watches.
func (d *driver) setWatch(subject string) error {
	d.mu.Lock()
	old, oldStop := d.tap, d.tapStop
	d.mu.Unlock()
	if old != nil {
		_ = old.Unsubscribe()
		close(oldStop)
	}
	ch := make(chan *nats.Msg, tapBuffer)
	sub, err := d.nc.ChanSubscribe(subject, ch)
	if err != nil {
		return fmt.Errorf("the scene cannot watch %s: %w", subject, err)
	}
	_ = sub.SetPendingLimits(pendingMsgs, pendingBytes)
	// Registered with the server before anyone is told the scene watches;
	// while the server is down nats.go registers it on reconnecting.
	if d.nc.IsConnected() {
		_ = d.nc.FlushTimeout(2 * time.Second)
	}
	stop := make(chan struct{})
	d.mu.Lock()
	d.watch, d.tap, d.tapStop = subject, sub, stop
	d.gen++
	d.disc.init()
	d.mu.Unlock()
	d.published.Store(0)
	d.unheard.Store(0)
	d.dropBase.Store(0)
	d.Go(func() { d.runTap(ch, stop) })
	return nil
}

// runTap counts what the tap sees and tells the scene, one event per
// message: published, or unheard when no other subscription could have
// received it.
func (d *driver) runTap(ch chan *nats.Msg, stop chan struct{}) {
	for {
		var m *nats.Msg
		select {
		case <-d.Ctx.Done():
			return
		case <-stop:
			return
		case m = <-ch:
		}
		select {
		case <-stop: // the watch changed while this one waited
			return
		default:
		}
		kind := kit.Published
		alone := d.alone(m.Subject)
		if alone {
			kind = kit.Lost
		}
		d.feed.Send(kit.Event{Kind: kind, Subject: m.Subject})
		d.published.Add(1)
		if alone {
			d.unheard.Add(1)
		}
		if len(ch) == 0 {
			// Caught up: what the server delivered to the others is in its
			// counters by now.
			d.poke()
		}
	}
}

// alone reports whether the tap was the only subscription subject had on
// the server: the server's own interest count, at the moment the tap got
// it. With an external deployment it cannot be known, and is not claimed.
func (d *driver) alone(subject string) bool {
	ns := d.dep.Monitor()
	if ns == nil {
		return false
	}
	return ns.Interest(subject) <= 1
}

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	s := Snapshot{Watch: d.watch, Listed: d.dep.Own(), ServerUp: d.serverUp, Problem: d.problem, Subs: d.disc.subs}
	tap := d.tap
	d.mu.Unlock()
	drops := watch.Dropped(tap) - min(d.dropBase.Load(), watch.Dropped(tap))
	s.Published = d.published.Load() + drops
	s.Unheard = d.unheard.Load()
	s.Sampled = drops + d.feed.Dropped()
	return s
}

// reset starts the counts again from now: the scene's and every
// subscription's.
func (d *driver) reset() {
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.mu.Lock()
	d.dropBase.Store(watch.Dropped(d.tap))
	d.disc.rebase()
	d.mu.Unlock()
	d.published.Store(0)
	d.unheard.Store(0)
	d.feed.Poke()
}

// publish sends n messages on subject from the scene's connection and
// waits until the server has them.
func (d *driver) publish(subject string, n int, body func(i uint64) string) error {
	if !d.AwaitConnected(d.nc, 3*time.Second) {
		if d.Ctx.Err() != nil {
			return errors.New("the scene is closed")
		}
		return watch.ErrUnreachable
	}
	for i := 0; i < n; i++ {
		if err := d.nc.Publish(subject, []byte(body(d.count.Add(1)))); err != nil {
			return fmt.Errorf("publish failed after %d of %d: %w", i, n, err)
		}
	}
	if err := d.nc.FlushTimeout(10 * time.Second); err != nil {
		return fmt.Errorf("the server did not confirm the publishes: %w", err)
	}
	d.poke()
	return nil
}
