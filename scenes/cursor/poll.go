package cursor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
	"natslab/scenes/watch"
)

// window is how many of the newest messages the scene looks up the
// subjects of (each once): more than any pane shows.
const window = 64

// maxHeld bounds the subjects asked for to point out a filter matching
// nothing: a stream holding more is not listed.
const maxHeld = 256

// poll asks the broker: the streams (when something about them changed),
// the watched stream, and its consumers in one CONSUMER.LIST.
func (d *driver) poll() {
	d.mu.Lock()
	hold := d.hold
	d.mu.Unlock()
	if hold != nil {
		hold()
	}
	d.lastPoll = time.Now()
	d.looks.Add(1)
	if !d.up && !d.nc.IsConnected() {
		return
	}
	ctx, cancel := context.WithTimeout(d.Ctx, 2*time.Second)
	defer cancel()
	now := d.clock.Now()
	if !d.up && d.nc.IsConnected() {
		d.server(true, now) // back before the connection's own news of it
	}
	snap := &d.t.snap
	if d.structure || snap.Stream == "" {
		if !d.chooseStream(ctx) {
			return
		}
		d.structure = false
	}
	if snap.Stream == "" {
		return
	}
	st, err := d.js.Stream(ctx, snap.Stream)
	if err != nil {
		d.failed(err)
		return
	}
	info := st.CachedInfo()
	d.readStream(ctx, st, info)
	asked := time.Now()
	infos, offline, err := d.consumers(ctx, st)
	if err != nil {
		d.failed(err)
		return
	}
	// A pull the server answered before this look is heard first, so that
	// the deliveries the look finds go to it.
	d.TakeHeard(d)
	d.jsOff = false
	d.t.snap.Problem = ""
	if d.retap(infos) {
		_ = d.nc.FlushTimeout(time.Second)
	}
	seen := map[string]bool{}
	for _, ci := range infos {
		seen[ci.Name] = true
		if offline[ci.Name] {
			d.t.offline(ci, now)
			continue
		}
		d.t.apply(ci, now, asked)
	}
	// Consumers removed since the last look leave the picture, and their
	// pulls with them: a consumer made later under the same name is
	// another, which never had them.
	snap.Consumers = slices.DeleteFunc(snap.Consumers, func(c Consumer) bool { return !seen[c.Name] })
	snap.Pulls = slices.DeleteFunc(snap.Pulls, func(p Pull) bool { return !seen[p.Consumer] })
	order := map[string]int{}
	for i, ci := range infos {
		order[ci.Name] = i
	}
	sort.SliceStable(snap.Consumers, func(i, j int) bool { return order[snap.Consumers[i].Name] < order[snap.Consumers[j].Name] })
	for i := range snap.Consumers {
		c := &snap.Consumers[i]
		d.t.settlePulls(c, asked)
		c.NoMatch = noMatch(c, snap)
	}
	d.backFromRestart(now)
}

// consumers lists the consumers on screen, oldest first (the order they
// were added in), keeping to those the watch control named. On the lab's
// cluster the server lists a consumer whose every copy is on a stopped
// node with its configuration alone, no name: it is named from that, and
// reported offline.
func (d *driver) consumers(ctx context.Context, st jetstream.Stream) ([]*jetstream.ConsumerInfo, map[string]bool, error) {
	d.mu.Lock()
	want := d.choice.consumers
	d.mu.Unlock()
	var out []*jetstream.ConsumerInfo
	offline := map[string]bool{}
	l := st.ListConsumers(ctx)
	for ci := range l.Info() {
		if name, off := watch.OfflineConsumer(ci); off {
			if name == "" {
				continue
			}
			ci.Name = name
			offline[name] = true
		}
		if len(want) > 0 && !slices.Contains(want, ci.Name) {
			continue
		}
		out = append(out, ci)
	}
	if err := l.Err(); err != nil {
		return nil, nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Name < out[j].Name
	})
	return out, offline, nil
}

// chooseStream picks the stream to show: the one the watch control named,
// else the one a consumer was last added on, else the liveliest stream
// with consumers, else the liveliest stream. It reports false when the
// broker could not be asked.
func (d *driver) chooseStream(ctx context.Context) bool {
	d.mu.Lock()
	choice := d.choice
	d.mu.Unlock()
	var infos []*jetstream.StreamInfo
	l := d.js.ListStreams(ctx)
	for si := range l.Info() {
		infos = append(infos, si)
	}
	if err := l.Err(); err != nil {
		d.failed(err)
		return false
	}
	snap := &d.t.snap
	snap.Others = snap.Others[:0]
	pick := ""
	var best *jetstream.StreamInfo
	for _, si := range infos {
		name := si.Config.Name
		snap.Others = append(snap.Others, name)
		switch {
		case choice.stream != "":
			if name == choice.stream {
				pick = name
			}
		case isSystemStream(name):
		case name == d.hint:
			pick = name
		case best == nil,
			si.State.Consumers > 0 && best.State.Consumers == 0,
			(si.State.Consumers > 0) == (best.State.Consumers > 0) && watch.Lively(si).After(watch.Lively(best)):
			best = si
		}
	}
	if pick == "" && choice.stream == "" && best != nil {
		pick = best.Config.Name
	}
	sort.Strings(snap.Others)
	snap.Auto = choice.stream == ""
	if pick != snap.Stream {
		d.switchTo(pick)
	}
	switch {
	case pick == "" && choice.stream != "":
		snap.Problem = "stream " + choice.stream + " is gone: watch STREAM picks another, watch alone picks for you"
	case pick == "" && len(infos) == 0:
		snap.Problem = noStream
	case pick == "":
		snap.Problem = "only key-value and object streams here: watch STREAM shows one anyway"
	}
	return true
}

// switchTo starts showing another stream (or none).
func (d *driver) switchTo(stream string) {
	snap := &d.t.snap
	*snap = Snapshot{ServerUp: snap.ServerUp, Auto: snap.Auto, Others: snap.Others, Story: snap.Story, Stream: stream, Subj: map[uint64]string{}}
	d.streamInfo = nil
	d.t.born = nil
	d.dropTaps()
	if stream == "" {
		return
	}
	// Pull requests for any of its consumers, and what is published to it.
	if sub, err := d.nc.ChanSubscribe("$JS.API.CONSUMER.MSG.NEXT."+stream+".*", d.Msgs()); err == nil {
		d.subs = append(d.subs, sub)
	}
	d.tapped = stream
}

// tapSubjects listens to what the stream captures, to hear publishes;
// subjects that would catch the scene's own requests are left out.
func (d *driver) tapSubjects(subjects []string) {
	for _, subj := range subjects {
		if strings.HasPrefix(subj, "$") || strings.HasPrefix(subj, "_") || strings.HasPrefix(subj, "*") || subj == ">" {
			continue
		}
		// News of publishes, not their contents: under a flood most are
		// dropped here, and a look follows anyway.
		if sub, err := d.nc.Subscribe(subj, func(*nats.Msg) { d.poke() }); err == nil {
			_ = sub.SetPendingLimits(64, 64<<10)
			d.subs = append(d.subs, sub)
		}
	}
}

// retap listens on each consumer's ack subject (both forms the server
// uses), and stops listening for consumers that are gone, so that an ack
// sent to a removed consumer still gets the server's "no responders".
func (d *driver) retap(infos []*jetstream.ConsumerInfo) (added bool) {
	stream := d.t.snap.Stream
	live := map[string]bool{}
	for _, ci := range infos {
		live[ci.Name] = true
		if _, ok := d.ackSubs[ci.Name]; ok || ci.Config.AckPolicy == jetstream.AckNonePolicy {
			continue
		}
		var subs []*nats.Subscription
		for _, subj := range []string{"$JS.ACK." + stream + "." + ci.Name + ".>", "$JS.ACK.*.*." + stream + "." + ci.Name + ".>"} {
			if sub, err := d.nc.ChanSubscribe(subj, d.Msgs()); err == nil {
				subs = append(subs, sub)
			}
		}
		d.ackSubs[ci.Name] = subs
		added = true
	}
	for name, subs := range d.ackSubs {
		if !live[name] {
			for _, sub := range subs {
				_ = sub.Unsubscribe()
			}
			delete(d.ackSubs, name)
		}
	}
	return added
}

func (d *driver) dropTaps() {
	for _, sub := range d.subs {
		_ = sub.Unsubscribe()
	}
	d.subs = nil
	for name, subs := range d.ackSubs {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
		delete(d.ackSubs, name)
	}
	d.tapped = ""
}

// readStream takes the stream's state, the subjects of its newest
// messages, and which subjects it holds.
func (d *driver) readStream(ctx context.Context, st jetstream.Stream, info *jetstream.StreamInfo) {
	snap := &d.t.snap
	old := d.streamInfo
	if old != nil && !old.Created.Equal(info.Created) {
		// Deleted and added again under the same name: a new log.
		d.switchTo(snap.Stream)
		old = nil
	}
	if old == nil || !slices.Equal(old.Config.Subjects, info.Config.Subjects) {
		// Re-listen to what it captures.
		for i := len(d.subs) - 1; i >= 1; i-- {
			_ = d.subs[i].Unsubscribe()
		}
		if len(d.subs) > 1 {
			d.subs = d.subs[:1]
		}
		d.tapSubjects(info.Config.Subjects)
		_ = d.nc.FlushTimeout(time.Second)
	}
	d.streamInfo = info
	s := info.State
	changed := old == nil || old.State.LastSeq != s.LastSeq || old.State.Msgs != s.Msgs || old.State.FirstSeq != s.FirstSeq
	snap.Subjects = slices.Clone(info.Config.Subjects)
	snap.FirstSeq, snap.LastSeq, snap.Msgs = s.FirstSeq, s.LastSeq, s.Msgs
	for seq := range snap.Subj {
		if seq < s.FirstSeq || seq > s.LastSeq {
			delete(snap.Subj, seq)
		}
	}
	// The subjects of the newest messages and of those between each
	// consumer's ack floor and cursor, each looked up once.
	want := map[uint64]bool{}
	if s.LastSeq > 0 {
		for seq := max(s.FirstSeq, s.LastSeq-min(s.LastSeq-1, window-1)); seq <= s.LastSeq; seq++ {
			want[seq] = true
		}
	}
	for _, c := range snap.Consumers {
		for seq := max(c.AckFloor+1, s.FirstSeq); seq <= c.Delivered && len(want) < 2*window; seq++ {
			want[seq] = true
		}
	}
	for seq := range want {
		if _, ok := snap.Subj[seq]; ok {
			continue
		}
		m, err := st.GetMsg(ctx, seq)
		switch {
		case err == nil:
			snap.Subj[seq] = m.Subject
		case errors.Is(err, jetstream.ErrMsgNotFound):
			snap.Subj[seq] = "" // deleted: known to be absent
		}
	}
	if changed && s.NumSubjects <= maxHeld {
		if full, err := st.Info(ctx, jetstream.WithSubjectFilter(">")); err == nil {
			snap.Held = full.State.Subjects
			if snap.Held == nil {
				snap.Held = map[string]uint64{}
			}
		}
	} else if s.NumSubjects > maxHeld {
		snap.Held = nil
	}
}

// noMatch reports a filter that matches none of the subjects the stream
// holds (a typo in --filter is silent otherwise).
func noMatch(c *Consumer, snap *Snapshot) bool {
	if len(c.Filters) == 0 || len(snap.Held) == 0 {
		return false
	}
	for subj := range snap.Held {
		if matches(c.Filters, subj) {
			return false
		}
	}
	return true
}

// failed says why the broker could not be asked.
func (d *driver) failed(err error) {
	snap := &d.t.snap
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, nats.ErrNoResponders) && d.nc.IsConnected():
		snap.Problem = "JetStream is off: nats-server -js turns it on"
		if !d.jsOff {
			// Nobody answers these subjects now: listening would hide the
			// server's "no responders" from the learner's commands.
			d.dropTaps()
			d.streamInfo = nil
		}
		d.jsOff = true
		d.structure = true
	case errors.Is(err, jetstream.ErrStreamNotFound):
		d.structure = true
		d.switchTo("")
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrNoResponders), errors.Is(err, context.DeadlineExceeded):
		// Down or restarting: the next look tells.
		d.structure = true
	default:
		snap.Problem = err.Error()
		d.structure = true
	}
}

// backFromRestart tells, after the server came back, whether each
// consumer's cursor and ack floor are where they were.
func (d *driver) backFromRestart(now time.Time) {
	if d.beforeDown == nil {
		return
	}
	before := d.beforeDown
	d.beforeDown = nil
	for _, c := range d.t.snap.Consumers {
		b, ok := before[c.Name]
		if !ok {
			continue
		}
		if b[0] == c.Delivered && b[1] == c.AckFloor {
			kept := fmt.Sprintf("%s kept its place across the restart: cursor"+text.NoBreak+"%d, ack floor"+text.NoBreak+"%d", c.Name, c.Delivered, c.AckFloor)
			d.t.sayIn(now, false, kept+" (stored with the stream)", kept)
		} else {
			d.t.say(now, false, "%s after the restart: cursor"+text.NoBreak+"%d, ack floor"+text.NoBreak+"%d (was"+text.NoBreak+"%d and"+text.NoBreak+"%d)", c.Name, c.Delivered, c.AckFloor, b[0], b[1])
		}
	}
}
