package cursor

import (
	"encoding/json"
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
// ("natslab scene cursor"). What it learns, it learns from the broker:
//
//   - consumer info (one CONSUMER.LIST for the stream's consumers) and
//     stream info give every number; they are asked for at most every
//     minPoll, and only while something is pending or just changed;
//   - the server's advisories (consumer created, deleted, a message
//     nak'd, terminated, given up after max deliveries; streams created,
//     updated, deleted) say what changed without asking;
//   - acks and pull requests are requests on subjects anyone may listen
//     to ($JS.ACK.…, $JS.API.CONSUMER.MSG.NEXT.…): hearing them tells
//     which message was settled and which worker asked, at once;
//   - a listener on the stream's subjects hears publishes.
//
// None of this creates a consumer or takes a message from anyone. All of
// it works through the client API, so an external deployment gets the
// same picture; the embedded server only adds faster news of a restart.
//
// State changes happen on one goroutine (the driver's watch.Loop, its
// Turns); the scene reads immutable copies (snapshot).
type driver struct {
	*watch.Loop // its Msgs: advisories, pulls and acks, in the order the server sent them

	dep   broker.Deployment
	feed  *kit.Feed
	clock scenes.Clock

	nc *nats.Conn
	js jetstream.JetStream

	mu      sync.Mutex
	shared  Snapshot // the latest copy for the scene
	choice  watchChoice
	rewatch bool   // the choice changed: look at the streams again
	hold    func() // a test's: runs as a look begins, holding it there

	// Owned by the loop.
	up         bool // the server is up, as the connection and the embedded server say
	t          tracker
	subs       []*nats.Subscription            // the watched stream's taps
	ackSubs    map[string][]*nats.Subscription // per consumer
	tapped     string                          // the stream the taps are for
	lastPoll   time.Time
	busyUntil  time.Time // poll quickly until then
	structure  bool      // list streams and consumers at the next look
	streamInfo *jetstream.StreamInfo
	beforeDown map[string][2]uint64 // cursor and ack floor of each consumer when the server went down
	hint       string               // the stream a consumer was last created on, for the automatic choice
	jsOff      bool
	looks      atomic.Uint64 // looks taken, for counting what they cost
}

// watchChoice is what the watch control asked for.
type watchChoice struct {
	stream    string   // "" for automatic
	consumers []string // nil for all
}

type sigKind uint8

const (
	sigAdvisory sigKind = iota + 1
	sigPull
	sigAck
	sigPublish
)

// signal is a message the listeners heard, classified.
type signal struct {
	kind sigKind
	msg  *nats.Msg
}

// Polling: never more often than minPoll (5 a second), quickly while a
// message waits for its ack or a pull waits for a message, for busyLinger
// after any news, every pushPoll while a push consumer has messages to
// deliver (the server delivers them the moment a subscriber appears on
// its deliver subject, which sends no news the scene hears: a listener
// there would itself be that subscriber), and otherwise only every
// idlePoll as a safety net for what sends no news (messages aging out of
// a stream).
const (
	minPoll    = 200 * time.Millisecond
	busyLinger = 1500 * time.Millisecond
	pushPoll   = time.Second
	idlePoll   = 10 * time.Second
)

func startDriver(dep broker.Deployment, feed *kit.Feed, clock scenes.Clock) (*driver, error) {
	d := &driver{Loop: watch.NewLoop(1024), dep: dep, feed: feed, clock: clock, ackSubs: map[string][]*nats.Subscription{},
		up: true, structure: true}
	var err error
	d.nc, d.js, err = d.Dial(dep, "natslab scene cursor", "$JS.EVENT.ADVISORY.CONSUMER.>", "$JS.EVENT.ADVISORY.STREAM.>")
	if err != nil {
		d.End()
		return nil, err
	}
	d.t.snap = Snapshot{ServerUp: true, Auto: true, Subj: map[uint64]string{}}
	d.shared = d.t.snap.clone()
	d.Start(dep, d)
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

func (d *driver) poke() { d.Poke() }

// sync returns once the loop has taken in everything the server sent
// before the call and looked at the broker since (watch.Sync).
func (d *driver) sync(limit time.Duration) bool { return d.Sync(d.nc, limit) }

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shared
}

// Publish implements watch.Turns: it makes the tracker's state the scene's,
// after sending the events that go with it (kit.Feed: an event is sent
// before its change is seen).
func (d *driver) Publish() {
	for _, e := range d.t.takeEvents() {
		d.feed.Send(e)
	}
	snap := d.t.snap.clone()
	d.mu.Lock()
	d.shared = snap
	d.mu.Unlock()
	d.feed.Poke()
}

// Stopped implements watch.Turns.
func (d *driver) Stopped() { d.dropTaps() }

// Heard implements watch.Turns.
func (d *driver) Heard(m *nats.Msg) { d.handle(classify(m)) }

// Kicked implements watch.Turns: news came, look quickly for a while.
func (d *driver) Kicked() { d.busyUntil = time.Now().Add(busyLinger) }

// Look implements watch.Turns: a watch control's new choice is taken in
// first (the streams are looked at again).
func (d *driver) Look() {
	d.mu.Lock()
	if d.rewatch {
		d.rewatch, d.structure = false, true
	}
	d.mu.Unlock()
	d.poll()
}

// Due implements watch.Turns.
func (d *driver) Due(now time.Time) bool { return now.After(d.nextPoll(now)) || d.pollNow(now) }

// Next implements watch.Turns.
func (d *driver) Next(now time.Time) time.Time { return d.nextPoll(now) }

// classify tells what a message heard on the scene's listeners is.
func classify(m *nats.Msg) signal {
	switch {
	case strings.HasPrefix(m.Subject, "$JS.EVENT.ADVISORY."):
		return signal{kind: sigAdvisory, msg: m}
	case strings.HasPrefix(m.Subject, "$JS.API.CONSUMER.MSG.NEXT."):
		return signal{kind: sigPull, msg: m}
	case strings.HasPrefix(m.Subject, "$JS.ACK."):
		return signal{kind: sigAck, msg: m}
	}
	return signal{kind: sigPublish}
}

// pollNow says a look is due at once: news came and minPoll has passed.
func (d *driver) pollNow(now time.Time) bool {
	return now.Before(d.busyUntil) && now.Sub(d.lastPoll) >= minPoll
}

// nextPoll is when the next look is due, seen at now.
func (d *driver) nextPoll(now time.Time) time.Time {
	if d.lastPoll.IsZero() {
		return time.Time{}
	}
	if !d.up {
		return d.lastPoll.Add(idlePoll)
	}
	if now.Before(d.busyUntil) || d.pending() {
		return d.lastPoll.Add(minPoll)
	}
	if d.pushWaiting() {
		return d.lastPoll.Add(pushPoll)
	}
	return d.lastPoll.Add(idlePoll)
}

// pushWaiting reports whether a push consumer has messages it has not
// delivered yet.
func (d *driver) pushWaiting() bool {
	for _, c := range d.t.snap.Consumers {
		if !c.Pull && !c.Offline && c.Pending > 0 {
			return true
		}
	}
	return false
}

// pending reports whether anything is in flight: a message waiting for its
// ack, or a pull waiting for a message.
func (d *driver) pending() bool {
	for _, c := range d.t.snap.Consumers {
		if c.AckPending > 0 || c.Waiting > 0 {
			return true
		}
	}
	return false
}

// Server implements watch.Turns.
func (d *driver) Server(up bool) {
	d.busyUntil = time.Now().Add(busyLinger)
	d.server(up, d.clock.Now())
}

// handle takes one message the listeners heard.
func (d *driver) handle(s signal) {
	now := d.clock.Now()
	d.busyUntil = time.Now().Add(busyLinger)
	switch s.kind {
	case sigAdvisory:
		d.advisory(s.msg, now)
	case sigPull:
		d.pull(s.msg, now)
	case sigAck:
		d.ackSeen(s.msg, now)
	case sigPublish:
		// A look follows (busyUntil).
	}
}

func (d *driver) server(up bool, now time.Time) {
	if up == d.up {
		return
	}
	d.up = up
	d.t.snap.ServerUp = up
	if !up {
		d.beforeDown = map[string][2]uint64{}
		for _, c := range d.t.snap.Consumers {
			d.beforeDown[c.Name] = [2]uint64{c.Delivered, c.AckFloor}
		}
		for i := range d.t.snap.Pulls {
			p := &d.t.snap.Pulls[i]
			p.Waiting, p.Ended = false, true
		}
		d.t.say(now, true, "the server is down: clients wait for it to come back")
		d.t.emit(kit.Event{Kind: kit.ServerDown})
		return
	}
	d.structure = true
	d.t.say(now, false, "the server is back")
	d.t.emit(kit.Event{Kind: kit.ServerUp})
}

// advisory handles one of the server's JetStream advisories.
func (d *driver) advisory(m *nats.Msg, now time.Time) {
	// $JS.EVENT.ADVISORY.<CONSUMER|STREAM>.<KIND>.<stream>[.<consumer>]
	tok := strings.Split(m.Subject, ".")
	if len(tok) < 6 {
		return
	}
	area, kind, stream := tok[3], tok[4], tok[5]
	switch {
	case area == "STREAM" && (kind == "CREATED" || kind == "DELETED" || kind == "UPDATED"):
		d.structure = true
	case area == "CONSUMER" && (kind == "CREATED" || kind == "DELETED"):
		d.structure = true
		if kind == "CREATED" && !isSystemStream(stream) {
			d.hint = stream
		}
		if kind == "DELETED" && stream == d.t.snap.Stream && len(tok) >= 7 {
			var a struct {
				At time.Time `json:"timestamp"`
			}
			_ = json.Unmarshal(m.Data, &a)
			d.t.removed(tok[6], a.At)
		}
		if kind == "CREATED" && stream == d.t.snap.Stream && len(tok) >= 7 {
			if d.t.born == nil {
				d.t.born = map[string]bool{}
			}
			d.t.born[tok[6]] = true
		}
	case area == "CONSUMER" && stream == d.t.snap.Stream && len(tok) >= 7:
		var a struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
			Reason     string `json:"reason"`
		}
		if json.Unmarshal(m.Data, &a) == nil && a.StreamSeq > 0 {
			d.t.advisory(kind, tok[6], a.StreamSeq, a.Deliveries, a.Reason, now)
		}
	}
}

// pull handles a pull request heard on $JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>.
func (d *driver) pull(m *nats.Msg, now time.Time) {
	tok := strings.Split(m.Subject, ".")
	if len(tok) != 7 || tok[5] != d.t.snap.Stream || m.Reply == "" {
		return
	}
	batch, expires := 1, time.Duration(0)
	body := strings.TrimSpace(string(m.Data))
	if n, err := strconv.Atoi(body); err == nil {
		batch = n
	} else if body != "" {
		var req struct {
			Batch   int           `json:"batch"`
			Expires time.Duration `json:"expires"`
		}
		if json.Unmarshal(m.Data, &req) == nil {
			batch, expires = max(req.Batch, 1), req.Expires
		}
	}
	d.t.pulled(tok[6], m.Reply, batch, expires, now, time.Now())
}

// ackSeen handles an acknowledgement heard on the consumer's ack subject:
// $JS.ACK.<stream>.<consumer>.<tries>.<sseq>.<cseq>.<ts>.<pending> (or the
// newer form with a domain and account hash before the stream).
func (d *driver) ackSeen(m *nats.Msg, now time.Time) {
	tok := strings.Split(m.Subject, ".")
	stream := d.t.snap.Stream
	at := -1
	for i := 2; i+6 < len(tok); i++ {
		if tok[i] == stream && d.t.snap.consumer(tok[i+1]) != nil {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	tries, _ := strconv.Atoi(tok[at+2])
	seq, err := strconv.ParseUint(tok[at+3], 10, 64)
	if err != nil {
		return
	}
	dseq, _ := strconv.ParseUint(tok[at+4], 10, 64)
	d.t.ack(tok[at+1], seq, tries, dseq, string(m.Data), now)
}

// isSystemStream reports the streams other scenes show (key-value buckets,
// object stores): the automatic choice passes them over.
func isSystemStream(name string) bool {
	return strings.HasPrefix(name, "KV_") || strings.HasPrefix(name, "OBJ_")
}
