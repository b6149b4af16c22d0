package kvwatch

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The driver is the scene's NATS side, on a connection of its own
// ("natslab scene kv-watch"). It watches a bucket without being one of its
// watchers: a JetStream watcher is a consumer on KV_<bucket>, and would
// show up in the learner's `stream info KV_profiles` and count as the watch
// the lesson asks the learner to start. Instead:
//
//   - a listener on $KV.<bucket>.> hears every write as it is made, with
//     its headers: a delete's marker, and the revision a compare-and-set
//     (kv update, kv create) expects;
//   - after each write it reads the key's latest entry (a direct get) and
//     the stream's state, which say whether the server stored the write,
//     at which revision, and how much history the key keeps;
//   - the server's stream advisories say when a bucket is added, edited or
//     removed.
//
// A write the server refused is one it did not store: the key's revision
// stayed where it was. All of it works through the client API.
type driver struct {
	*watch.Life
	dep   broker.Deployment
	feed  *kit.Feed
	clock scenes.Clock

	nc *nats.Conn
	js jetstream.JetStream

	msgs  chan *nats.Msg // advisories and writes, in the order the server sent them
	kick  watch.Kick
	up    chan bool
	ready chan struct{}

	mu      sync.Mutex
	shared  Snapshot
	choice  string // the bucket watch named, "" for automatic
	rewatch bool

	// Owned by run.
	snap      Snapshot
	events    []kit.Event
	tap       *nats.Subscription
	serverUp  bool
	structure bool
	lastPoll  time.Time
	busyUntil time.Time
	changeID  int
	dirty     map[string]bool // keys to read again
	counts    map[string]uint64
	hint      string             // the bucket last added or written to
	looks     atomic.Uint64      // looks taken, for counting what they cost
	syncs     chan chan struct{} // sync asks run to take in its news and look
}

const (
	minPoll    = 200 * time.Millisecond
	busyLinger = 1500 * time.Millisecond
	idlePoll   = 10 * time.Second
	// refuseAfter is how long a write may stay unstored before the scene
	// takes it as refused.
	refuseAfter = 1200 * time.Millisecond
	maxChanges  = 12
	maxKeys     = 200
)

func startDriver(dep broker.Deployment, feed *kit.Feed, clock scenes.Clock) (*driver, error) {
	d := &driver{Life: watch.NewLife(), dep: dep, feed: feed, clock: clock,
		msgs: make(chan *nats.Msg, 1024), kick: watch.NewKick(), up: make(chan bool, 8), ready: make(chan struct{}), syncs: make(chan chan struct{}),
		serverUp: true, structure: true, dirty: map[string]bool{}, counts: map[string]uint64{}}
	fail := func(err error) (*driver, error) {
		d.End()
		return nil, err
	}
	nc, err := d.Connect(dep, "natslab scene kv-watch", d.setUp)
	if err != nil {
		return fail(err)
	}
	d.nc = nc
	if d.js, err = jetstream.New(nc); err != nil {
		return fail(err)
	}
	if _, err := nc.ChanSubscribe("$JS.EVENT.ADVISORY.STREAM.>", d.msgs); err != nil {
		return fail(err)
	}
	d.snap = Snapshot{ServerUp: true, Auto: true}
	d.shared = d.snap.clone()
	d.Go(d.run)
	// The lab's restart: the embedded server stops and starts before the
	// connection notices.
	d.FollowServer(dep, func() {
		if !dep.Running() {
			d.setUp(false)
		} else {
			d.poke()
		}
	})
	select {
	case <-d.ready:
	case <-time.After(2 * time.Second):
	}
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

func (d *driver) setUp(up bool) {
	select {
	case d.up <- up:
	default:
	}
	d.poke()
}

func (d *driver) poke() { d.kick.Poke() }

// sync returns once run has taken in everything the server sent before
// the call and looked at the broker since (watch.Sync).
func (d *driver) sync(limit time.Duration) bool { return watch.Sync(d.nc, d.syncs, limit) }

// Snapshot implements kit.Driver.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shared
}

// publish makes the driver's state the scene's, after sending the events
// that go with it (kit.Feed: an event is sent before its change is seen).
func (d *driver) publish() {
	for _, e := range d.events {
		d.feed.Send(e)
	}
	d.events = nil
	snap := d.snap.clone()
	d.mu.Lock()
	d.shared = snap
	d.mu.Unlock()
	d.feed.Poke()
}

func (d *driver) run() {
	defer d.untap()
	timer := time.NewTimer(0)
	defer timer.Stop()
	first := false
	var synced chan struct{} // closed after this turn's look
	for {
		select {
		case <-d.Ctx.Done():
			return
		case up := <-d.up:
			d.server(up)
			d.publish()
		case m := <-d.msgs:
			d.heard(m)
			d.drain()
			d.publish()
		case <-d.kick:
			d.busyUntil = time.Now().Add(busyLinger)
		case done := <-d.syncs:
			d.drain()
			synced = done
		case <-timer.C:
		}
		d.mu.Lock()
		if d.rewatch {
			d.rewatch, d.structure = false, true
		}
		d.mu.Unlock()
		if now := time.Now(); d.lastPoll.IsZero() || now.After(d.nextPoll(now)) || synced != nil {
			d.poll()
			d.publish()
			if !first {
				first = true
				close(d.ready)
			}
		}
		if synced != nil {
			close(synced)
			synced = nil
		}
		now := time.Now()
		timer.Reset(max(d.nextPoll(now).Sub(now), time.Millisecond))
	}
}

// drain takes whatever else the listeners heard, without waiting.
func (d *driver) drain() {
	for {
		select {
		case m := <-d.msgs:
			d.heard(m)
		default:
			return
		}
	}
}

// nextPoll is when the next look is due, seen at now.
func (d *driver) nextPoll(now time.Time) time.Time {
	if d.serverUp && (now.Before(d.busyUntil) || d.unresolved()) {
		return d.lastPoll.Add(minPoll)
	}
	return d.lastPoll.Add(idlePoll)
}

func (d *driver) unresolved() bool {
	for _, c := range d.snap.Changes {
		if !c.resolved {
			return true
		}
	}
	return false
}

func (d *driver) server(up bool) {
	if up == d.serverUp {
		return
	}
	d.serverUp, d.snap.ServerUp = up, up
	d.busyUntil = time.Now().Add(busyLinger)
	kind := kit.ServerDown
	if up {
		kind = kit.ServerUp
		d.structure = true
	}
	d.events = append(d.events, kit.Event{Kind: kind})
}

// heard takes one message from the scene's listeners.
func (d *driver) heard(m *nats.Msg) {
	d.busyUntil = time.Now().Add(busyLinger)
	if strings.HasPrefix(m.Subject, "$JS.EVENT.ADVISORY.STREAM.") {
		tok := strings.Split(m.Subject, ".")
		if len(tok) >= 6 && (tok[4] == "CREATED" || tok[4] == "DELETED" || tok[4] == "UPDATED") {
			d.structure = true
			if tok[4] == "CREATED" && strings.HasPrefix(tok[5], "KV_") {
				d.hint = strings.TrimPrefix(tok[5], "KV_")
			}
		}
		return
	}
	prefix := "$KV." + d.snap.Bucket + "."
	if d.snap.Bucket == "" || !strings.HasPrefix(m.Subject, prefix) {
		return
	}
	d.write(strings.TrimPrefix(m.Subject, prefix), m)
}

// write records a write to a key as it was made: what it asks for, and
// the key's revision at that moment.
func (d *driver) write(key string, m *nats.Msg) {
	ch := Change{At: d.clock.Now(), wall: time.Now(), Key: key, Op: "put", Value: string(m.Data), Expected: -1}
	switch m.Header.Get("KV-Operation") {
	case "DEL":
		ch.Op, ch.Value = "del", ""
	case "PURGE":
		ch.Op, ch.Value = "purge", ""
	}
	if v := m.Header.Get("Nats-Expected-Last-Subject-Sequence"); v != "" {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			ch.Expected = int64(n)
			if ch.Op == "put" {
				ch.Op = "update"
				if n == 0 {
					ch.Op = "create"
				}
			}
		}
	}
	if k := d.snap.key(key); k != nil {
		ch.Was = k.Rev
	}
	d.changeID++
	ch.ID = d.changeID
	d.snap.Changes = append(d.snap.Changes, ch)
	if n := len(d.snap.Changes); n > maxChanges {
		d.snap.Changes = d.snap.Changes[n-maxChanges:]
	}
	d.dirty[key] = true
	d.events = append(d.events, kit.Event{Kind: kit.Published, Subject: key, Seq: uint64(ch.ID)})
}

func (d *driver) untap() {
	if d.tap != nil {
		_ = d.tap.Unsubscribe()
		d.tap = nil
	}
}
