package streamlog

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The driver is the scene's NATS side, on one connection of its own:
//
//   - stream info, polled (never more often than minPoll): first and last
//     sequence, the message count and the gaps, the limits;
//   - a tap on each watched stream's subjects: a publish is news at once,
//     and a --jetstream publish carries the inbox its acknowledgement goes to;
//   - a tap on _INBOX.>, where those acknowledgements travel: the sequence
//     the stream gave, "duplicate", or the error that refused it;
//   - JetStream's advisories: an edit, a purge, a removed message, a stream
//     created or deleted wake the poller.
//
// A tap on a stream's subjects changes nothing for publishers: the stream
// itself already listens there. The taps live on a connection of their own
// that never asks anything: on a connection subscribed to _INBOX.>, the
// server could hand that subscription a "no responders" meant for the
// connection's own request, which would then wait for its timeout.
type driver struct {
	*watch.Life
	dep  broker.Deployment
	feed *kit.Feed
	try  kit.Offer // what to type for a stream, while there is none

	kick  *watch.Busy // quick looks for busyFor after news
	looks watch.Looks

	nc   *nats.Conn // asks: stream info, advisories, the scene's publishes
	tap  *nats.Conn // listens: subject taps and _INBOX.>
	js   jetstream.JetStream
	msgs chan *nats.Msg // subject taps and the inbox tap, in the server's order
	advs chan *nats.Msg // advisories

	mu      sync.Mutex
	snap    Snapshot
	counts  map[string]*TapCounts // by stream, kept across polls
	acked   map[string]uint64     // by stream: the highest sequence an acknowledgement named
	taps    *watch.Taps           // on the watched streams' subjects
	inbox   *nats.Subscription
	pending map[string]pubSeen  // by reply subject: --jetstream publishes awaiting their ack
	early   map[string]earlyAck // by reply subject: acks that came before their publish
	lastAPI map[string]apiCall  // by stream: the last changing API call seen
	wasDown bool                // the server went down since the last good look
	expiry  time.Time           // when the oldest message of a stream with a max age expires
}

type pubSeen struct {
	stream string
	msgID  string
	at     time.Time
}

type apiCall struct {
	op string // purge, msg.delete, update, create, delete
	at time.Time
}

// Buffers: past them the taps drop (and count) rather than hold up the
// server; the animation samples, the broker's numbers stay exact.
const (
	tapBuffer  = 8192
	maxPending = 4096
)

func startDriver(dep broker.Deployment, feed *kit.Feed, focus string, try kit.Offer) (*driver, error) {
	d := &driver{
		Life: watch.NewLife(), dep: dep, feed: feed, try: try,
		kick:    watch.NewBusy(),
		msgs:    make(chan *nats.Msg, tapBuffer),
		advs:    make(chan *nats.Msg, 256),
		counts:  map[string]*TapCounts{},
		acked:   map[string]uint64{},
		pending: map[string]pubSeen{},
		early:   map[string]earlyAck{},
		lastAPI: map[string]apiCall{},
	}
	d.snap = Snapshot{Focus: focus, ServerUp: true}
	var err error
	d.nc, err = d.Connect(dep, "natslab scene log", d.setServer)
	if err == nil {
		d.tap, err = d.Connect(dep, "natslab scene log tap", nil)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	d.taps = watch.NewTaps(d.tap, d.msgs, tapBuffer, 16<<20)
	if d.js, err = jetstream.New(d.nc); err != nil {
		d.Close()
		return nil, err
	}
	for _, subj := range []string{"$JS.EVENT.ADVISORY.API", "$JS.EVENT.ADVISORY.STREAM.>"} {
		if _, err := d.nc.ChanSubscribe(subj, d.advs); err != nil {
			d.Close()
			return nil, err
		}
	}
	if d.inbox, err = d.tap.ChanSubscribe("_INBOX.>", d.msgs); err != nil {
		d.Close()
		return nil, err
	}
	_ = d.inbox.SetPendingLimits(tapBuffer, 16<<20)
	d.poll()
	d.Poll(d.kick.Kick, minPoll, idlePoll, d.poll, d.nextPoll)
	d.readTaps()
	d.readAdvisories()
	// The lab's restart (nats-server -js too) may reach the connection late.
	d.FollowServer(d.dep, func() {
		if !d.dep.Running() {
			d.setServer(false)
		}
		d.poke()
	})
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.snap
	s.Streams = make([]Lane, len(d.snap.Streams))
	for i, l := range d.snap.Streams {
		if c := d.counts[l.Name]; c != nil {
			l.Seen = *c
		}
		s.Streams[i] = l
	}
	s.Sampled = d.dropped()
	return s
}

// dropped is how many tap messages nats.go dropped for want of room.
func (d *driver) dropped() uint64 {
	return d.taps.Dropped() + watch.Dropped(d.inbox)
}

// poke asks for a look now, and quick looks for a while: a stream stores a
// message a moment after the tap sees it.
func (d *driver) poke() { d.kick.Poke(busyFor) }

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.feed.Server(&d.snap.ServerUp, up)
	if !up {
		d.looks.Abort() // its answer will never come: look again once the server is back
		d.wasDown = true
		d.snap.Story = "the server stopped: what is in memory is gone, what is on disk waits"
	}
	d.mu.Unlock()
	d.feed.Poke()
	d.poke()
}

// Polling: at once when kicked, then every busyPoll for busyFor (a stream
// stores a message a moment after the tap sees it), then only when
// something says so: an advisory, a tap, the next message due to age out,
// or a slow idle look for what no event announces. Never more often than
// minPoll.
const (
	minPoll  = 200 * time.Millisecond
	busyPoll = 250 * time.Millisecond
)

// Variables so that tests can put the busy and idle looks out of reach and
// show that news alone brings what they wait for.
var (
	busyFor  = time.Second
	idlePoll = 5 * time.Second
)

// nextPoll is how long until the next look.
func (d *driver) nextPoll() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	wait := d.kick.Pace(busyPoll, idlePoll)
	if !d.expiry.IsZero() {
		// A moment after the oldest message's max age runs out.
		if until := d.expiry.Sub(now) + 50*time.Millisecond; until < wait {
			wait = max(until, minPoll)
		}
	}
	return wait
}
