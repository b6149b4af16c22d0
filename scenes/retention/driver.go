package retention

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/text"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The driver is the scene's NATS side. It reads, for each retention
// policy, one stream and its consumers from stream and consumer info,
// polled (never more often than minPoll) when something says they changed:
//
//   - a tap on the shown streams' subjects (a publish),
//   - a tap on their acknowledgement subjects, $JS.ACK.<stream>.> (an ack:
//     the consumer itself answers it, the tap only listens),
//   - JetStream's API advisories (a consumer added or refused, a stream
//     made, edited, purged or deleted),
//   - a slow idle look for anything else.
//
// The taps live on a connection that never asks anything, apart from the
// one that does the looking.
type driver struct {
	*watch.Life
	dep  broker.Deployment
	feed *kit.Feed

	kick  *watch.Busy
	looks watch.Looks

	nc, tap *nats.Conn
	js      jetstream.JetStream
	msgs    chan *nats.Msg
	advs    chan *nats.Msg

	mu     sync.Mutex
	snap   Snapshot
	pinned map[string]string // policy → the stream watch chose
	taps   *watch.Taps       // on the shown streams' subjects and acknowledgements
	acks   map[string]uint64 // stream → acks seen
	notes  map[string]string // stream → what the server refused it lately
}

const (
	tapBuffer = 4096
	minPoll   = 200 * time.Millisecond
	busyPoll  = 250 * time.Millisecond
)

// After news, the scene looks every busyPoll for busyFor (a stream stores a
// message a moment after the tap sees it); otherwise every idlePoll. They
// are variables so that tests can put both out of reach and show that news
// alone brings what they wait for.
var (
	busyFor  = time.Second
	idlePoll = 5 * time.Second
)

func startDriver(dep broker.Deployment, feed *kit.Feed) (*driver, error) {
	d := &driver{
		Life: watch.NewLife(), dep: dep, feed: feed,
		kick:   watch.NewBusy(),
		msgs:   make(chan *nats.Msg, tapBuffer),
		advs:   make(chan *nats.Msg, 256),
		pinned: map[string]string{},
		acks:   map[string]uint64{},
		notes:  map[string]string{},
	}
	d.snap.ServerUp = true
	for i, p := range Policies {
		d.snap.Columns[i].Policy = p
	}
	var err error
	d.nc, err = d.Connect(dep, "natslab scene retention", d.setServer)
	if err == nil {
		d.tap, err = d.Connect(dep, "natslab scene retention tap", nil)
	}
	if err == nil {
		d.taps = watch.NewTaps(d.tap, d.msgs, tapBuffer, 8<<20)
		d.js, err = jetstream.New(d.nc)
	}
	if err == nil {
		_, err = d.nc.ChanSubscribe("$JS.EVENT.ADVISORY.>", d.advs)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	d.poll()
	d.Poll(d.kick.Kick, minPoll, idlePoll, d.poll, func() time.Duration { return d.kick.Pace(busyPoll, idlePoll) })
	d.readTaps()
	d.readAdvisories()
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.snap
	for i := range s.Columns {
		c := &s.Columns[i]
		c.Consumers = append([]Consumer(nil), c.Consumers...)
		c.Acks = d.acks[c.Stream]
		c.Note = d.notes[c.Stream]
	}
	return s
}

func (d *driver) poke() { d.kick.Poke(busyFor) }

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.feed.Server(&d.snap.ServerUp, up)
	if !up {
		d.looks.Abort() // its answer will never come: look again once the server is back
	}
	d.mu.Unlock()
	d.feed.Poke()
	d.poke()
}

// poll reads the streams, picks one per policy, reads its consumers, and
// says in words what changed.
func (d *driver) poll() {
	if !d.nc.IsConnected() {
		return
	}
	ctx, cancel := d.looks.Begin(d.Ctx, 3*time.Second)
	defer cancel()
	var infos []*jetstream.StreamInfo
	l := d.js.ListStreams(ctx)
	for info := range l.Info() {
		infos = append(infos, info)
	}
	if err := l.Err(); err != nil {
		if errors.Is(err, context.Canceled) {
			return // the server went down meanwhile, or the scene closed
		}
		d.mu.Lock()
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
			d.snap.Problem = "JetStream is off, and streams need it: nats-server -js switches it on"
			for i := range d.snap.Columns {
				d.snap.Columns[i] = Column{Policy: Policies[i]}
			}
			d.taps.Set(nil)
		} else {
			d.snap.Problem = "cannot read the streams: " + err.Error()
		}
		d.mu.Unlock()
		d.feed.Poke()
		return
	}
	// Newest first: the lesson's streams are the ones just made.
	sort.Slice(infos, func(i, j int) bool { return infos[i].Created.After(infos[j].Created) })
	d.mu.Lock()
	pinned := map[string]string{}
	for k, v := range d.pinned {
		pinned[k] = v
	}
	d.mu.Unlock()
	var next [3]Column
	for i, p := range Policies {
		next[i] = Column{Policy: p}
		var chosen *jetstream.StreamInfo
		count := 0
		for _, info := range infos {
			if watch.Retention(info.Config.Retention) != p {
				continue
			}
			count++
			if chosen == nil || info.Config.Name == pinned[p] {
				chosen = info
			}
		}
		if chosen == nil {
			continue
		}
		if n := chosen.State.NumDeleted; n > 0 && n <= 2000 {
			if st, err := d.js.Stream(ctx, chosen.Config.Name); err == nil {
				if full, err := st.Info(ctx, jetstream.WithDeletedDetails(true)); err == nil {
					chosen = full
				}
			}
		}
		var consumers []*jetstream.ConsumerInfo
		if st, err := d.js.Stream(ctx, chosen.Config.Name); err == nil {
			cl := st.ListConsumers(ctx)
			for ci := range cl.Info() {
				consumers = append(consumers, ci)
			}
		}
		next[i] = column(chosen, consumers)
		next[i].Others = count - 1
	}
	d.mu.Lock()
	old := d.snap.Columns
	d.snap.Problem = ""
	d.snap.Columns = next
	if story := stories(old, next); story != "" {
		d.snap.Story = story
	}
	var subjects []string
	for _, c := range next {
		if c.Stream == "" {
			continue
		}
		subjects = append(subjects, c.Subjects...)
		subjects = append(subjects, "$JS.ACK."+c.Stream+".>")
	}
	d.taps.Set(subjects)
	d.mu.Unlock()
	d.feed.Poke()
}

// stories says in words what changed between two looks, most telling last.
func stories(old, next [3]Column) string {
	var out []string
	for i := range next {
		o, n := old[i], next[i]
		if n.Stream == "" {
			continue
		}
		if o.Stream != n.Stream {
			out = append(out, fmt.Sprintf("%s: %s retention on %s", n.Stream, n.Policy, strings.Join(n.Subjects, ", ")))
			continue
		}
		for _, k := range n.Consumers {
			if !hasConsumer(o, k.Name) {
				out = append(out, fmt.Sprintf("%s has a new consumer, %s", n.Stream, k.Name))
			}
		}
		for seq := o.Last + 1; seq <= n.Last && seq <= o.Last+8; seq++ {
			if n.Holds(seq) {
				continue
			}
			switch {
			case n.Policy == "interest" && len(n.Consumers) == 0:
				out = append(out, fmt.Sprintf("%s acknowledged #%d and kept nothing: no consumer was interested", n.Stream, seq))
			default:
				out = append(out, fmt.Sprintf("%s stored #%d and removed it once it was acknowledged", n.Stream, seq))
			}
		}
		for _, k := range n.Consumers {
			p, ok := consumer(o, k.Name)
			switch {
			case ok && k.Offline && !p.Offline:
				out = append(out, fmt.Sprintf("%s is offline: every copy of it is on a stopped node", k.Name))
			case ok && !k.Offline && p.Offline:
				out = append(out, fmt.Sprintf("%s is online again, at ack floor"+text.NoBreak+"#%d", k.Name, k.AckFloor))
			case ok && !k.Offline && k.AckFloor > p.AckFloor:
				out = append(out, fmt.Sprintf("%s acknowledged"+text.NoBreak+"#%d", k.Name, k.AckFloor))
			}
		}
		lo := max(o.First, o.Last-min(o.Last, 64))
		for seq := lo; seq <= o.Last && o.Msgs > 0; seq++ {
			if !o.Holds(seq) || n.Holds(seq) {
				continue
			}
			switch n.Policy {
			case "interest":
				out = append(out, fmt.Sprintf("%s removed #%d: every consumer acknowledged it", n.Stream, seq))
			case "workqueue":
				out = append(out, fmt.Sprintf("%s removed #%d: a consumer acknowledged it, the job is done", n.Stream, seq))
			default:
				out = append(out, fmt.Sprintf("%s removed"+text.NoBreak+"#%d", n.Stream, seq))
			}
		}
		if n.Policy == "interest" {
			for seq := n.First; seq <= n.Last && n.Msgs > 0 && seq <= n.First+8; seq++ {
				if n.Holds(seq) && len(n.Consumers) > 1 && ackedBySome(n, seq) {
					out = append(out, fmt.Sprintf("%s keeps #%d: %s has not acknowledged it", n.Stream, seq, strings.Join(waiting(n, seq), ", ")))
					break
				}
			}
		}
		if n.Policy == "limits" && len(n.Consumers) > 0 && n.Msgs > 0 && n.AckedByAll(n.Last) && !o.AckedByAll(n.Last) {
			out = append(out, fmt.Sprintf("%s keeps #%d after it was read and acknowledged", n.Stream, n.Last))
		}
	}
	if len(out) > 2 {
		out = out[len(out)-2:]
	}
	return strings.Join(out, "; ")
}

func hasConsumer(c Column, name string) bool { _, ok := consumer(c, name); return ok }

func consumer(c Column, name string) (Consumer, bool) {
	for _, k := range c.Consumers {
		if k.Name == name {
			return k, true
		}
	}
	return Consumer{}, false
}

func ackedBySome(c Column, seq uint64) bool {
	for _, k := range c.Consumers {
		if k.AckFloor >= seq {
			return true
		}
	}
	return false
}

func waiting(c Column, seq uint64) []string {
	var out []string
	for _, k := range c.Consumers {
		if k.AckFloor < seq {
			out = append(out, k.Name)
		}
	}
	return out
}

// readTaps turns publishes and acknowledgements into events and looks.
func (d *driver) readTaps() {
	d.Each(d.msgs, func(m *nats.Msg) {
		if stream, cons, seq, ok := ackSubject(m.Subject); ok {
			kind := ackKind(m.Data)
			d.mu.Lock()
			d.feed.Send(kit.Event{Kind: kit.Delivered, Stream: stream, Consumer: cons, Seq: seq, Note: kind})
			if kind == "ack" {
				d.acks[stream]++
			}
			d.mu.Unlock()
		} else {
			d.feed.Send(kit.Event{Kind: kit.Published, Subject: m.Subject})
		}
		d.poke()
	})
}

// ackSubject reads $JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.…
// (and the longer form with a domain and account hash).
func ackSubject(subject string) (stream, consumer string, seq uint64, ok bool) {
	t := strings.Split(subject, ".")
	if len(t) < 9 || t[0] != "$JS" || t[1] != "ACK" {
		return "", "", 0, false
	}
	i := 2
	if len(t) >= 12 {
		i = 4 // $JS.ACK.<domain>.<account hash>.<stream>…
	}
	var n uint64
	for _, r := range t[i+3] {
		if r < '0' || r > '9' {
			return "", "", 0, false
		}
		n = n*10 + uint64(r-'0')
	}
	return t[i], t[i+1], n, true
}

// ackKind says what an acknowledgement's body asks for.
func ackKind(body []byte) string {
	switch {
	case len(body) == 0, string(body) == "+ACK":
		return "ack"
	case strings.HasPrefix(string(body), "-NAK"):
		return "nak"
	case string(body) == "+TERM" || strings.HasPrefix(string(body), "+TERM "):
		return "term"
	case string(body) == "+WPI":
		return "progress"
	}
	return "ack"
}

// readAdvisories wakes the poller, and tells of a consumer the server
// refused (a second unfiltered consumer on a work queue).
func (d *driver) readAdvisories() {
	d.Each(d.advs, func(m *nats.Msg) {
		if m.Subject != "$JS.EVENT.ADVISORY.API" {
			d.poke()
			return
		}
		var audit struct {
			Subject  string `json:"subject"`
			Response string `json:"response"`
		}
		if json.Unmarshal(m.Data, &audit) != nil {
			return
		}
		rest, ok := strings.CutPrefix(audit.Subject, "$JS.API.")
		if !ok || strings.Contains(rest, "INFO") || strings.Contains(rest, "NAMES") || strings.Contains(rest, "LIST") || strings.Contains(rest, ".GET") {
			return // a look, not a change (the scene's own among them)
		}
		if strings.HasPrefix(rest, "CONSUMER.CREATE.") || strings.HasPrefix(rest, "CONSUMER.DURABLE.CREATE.") {
			var resp struct {
				Error *struct {
					Description string `json:"description"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(audit.Response), &resp) == nil && resp.Error != nil {
				// CONSUMER.CREATE.<stream>.<name>[.<filter>], or the older
				// CONSUMER.DURABLE.CREATE.<stream>.<name>.
				t := strings.Split(rest, ".")
				i := 2
				if t[1] == "DURABLE" {
					i = 3
				}
				if len(t) < i+2 {
					return
				}
				stream, name := t[i], t[i+1]
				d.mu.Lock()
				d.feed.Send(kit.Event{Kind: kit.Changed, Stream: stream, Note: "refused"})
				d.snap.Story = fmt.Sprintf("%s refused consumer %s: %s", stream, name, resp.Error.Description)
				d.notes[stream] = fmt.Sprintf("refused %s: %s", name, resp.Error.Description)
				d.mu.Unlock()
			}
		}
		d.poke()
	})
}
