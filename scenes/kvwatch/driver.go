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
	*watch.Loop // its Msgs: advisories and writes, in the order the server sent them

	dep   broker.Deployment
	feed  *kit.Feed
	clock scenes.Clock

	nc *nats.Conn
	js jetstream.JetStream

	mu      sync.Mutex
	shared  Snapshot
	choice  string // the bucket watch named, "" for automatic
	rewatch bool

	// Owned by the loop.
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
	hint      string        // the bucket last added or written to
	looks     atomic.Uint64 // looks taken, for counting what they cost
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
	d := &driver{Loop: watch.NewLoop(1024), dep: dep, feed: feed, clock: clock,
		serverUp: true, structure: true, dirty: map[string]bool{}, counts: map[string]uint64{}}
	var err error
	d.nc, d.js, err = d.Dial(dep, "natslab scene kv-watch", "$JS.EVENT.ADVISORY.STREAM.>")
	if err != nil {
		d.End()
		return nil, err
	}
	d.snap = Snapshot{ServerUp: true, Auto: true}
	d.shared = d.snap.clone()
	d.Start(dep, d)
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

func (d *driver) poke() { d.Poke() }

// sync returns once the loop has taken in everything the server sent
// before the call and looked at the broker since (watch.Sync).
func (d *driver) sync(limit time.Duration) bool { return d.Sync(d.nc, limit) }

// Snapshot implements kit.Driver.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shared
}

// Publish implements watch.Turns: it makes the driver's state the scene's,
// after sending the events that go with it (kit.Feed: an event is sent
// before its change is seen).
func (d *driver) Publish() {
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

// Stopped implements watch.Turns.
func (d *driver) Stopped() { d.untap() }

// Kicked implements watch.Turns: news came, look quickly for a while.
func (d *driver) Kicked() { d.busyUntil = time.Now().Add(busyLinger) }

// Look implements watch.Turns: a watch control's new choice is taken in
// first (the buckets are looked at again).
func (d *driver) Look() {
	d.mu.Lock()
	if d.rewatch {
		d.rewatch, d.structure = false, true
	}
	d.mu.Unlock()
	d.poll()
}

// Due implements watch.Turns.
func (d *driver) Due(now time.Time) bool { return d.lastPoll.IsZero() || now.After(d.nextPoll(now)) }

// Next implements watch.Turns.
func (d *driver) Next(now time.Time) time.Time { return d.nextPoll(now) }

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

// Server implements watch.Turns.
func (d *driver) Server(up bool) {
	if up == d.serverUp {
		return
	}
	d.serverUp, d.snap.ServerUp = up, up
	d.busyUntil = time.Now().Add(busyLinger)
	if up {
		d.structure = true
	}
	d.events = append(d.events, kit.ServerEvent(up))
}

// Heard implements watch.Turns: one message from the scene's listeners.
func (d *driver) Heard(m *nats.Msg) {
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
