package kvwatch

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// settleAfter is how long after a write was heard a look that finds it
// unstored counts as the server's refusal (it stores within milliseconds).
const settleAfter = 150 * time.Millisecond

// poll asks the broker about the buckets (when something about them
// changed) and the watched bucket's stream and changed keys.
func (d *driver) poll() {
	d.lastPoll = time.Now()
	d.looks.Add(1)
	if !d.serverUp && !d.nc.IsConnected() {
		return
	}
	ctx, cancel := context.WithTimeout(d.Ctx, 2*time.Second)
	defer cancel()
	if d.structure || d.snap.Bucket == "" {
		if !d.chooseBucket(ctx) {
			return
		}
		d.structure = false
	}
	if d.snap.Bucket == "" {
		return
	}
	if err := d.readBucket(ctx); err != nil {
		d.failed(err)
		return
	}
	d.snap.Problem = ""
	d.resolve()
}

// chooseBucket picks the bucket to show: the one watch named, else the
// one last added, else the one written to last.
func (d *driver) chooseBucket(ctx context.Context) bool {
	d.mu.Lock()
	choice := d.choice
	d.mu.Unlock()
	var infos []*jetstream.StreamInfo
	l := d.js.ListStreams(ctx)
	for si := range l.Info() {
		if strings.HasPrefix(si.Config.Name, "KV_") {
			infos = append(infos, si)
		}
	}
	if err := l.Err(); err != nil {
		d.failed(err)
		return false
	}
	d.snap.Buckets = d.snap.Buckets[:0]
	pick := ""
	var best *jetstream.StreamInfo
	for _, si := range infos {
		name := strings.TrimPrefix(si.Config.Name, "KV_")
		d.snap.Buckets = append(d.snap.Buckets, name)
		switch {
		case choice != "":
			if name == choice {
				pick = name
			}
		case name == d.hint:
			pick = name
		case best == nil || watch.Lively(si).After(watch.Lively(best)):
			best = si
		}
	}
	if pick == "" && choice == "" && best != nil {
		pick = strings.TrimPrefix(best.Config.Name, "KV_")
	}
	sort.Strings(d.snap.Buckets)
	d.snap.Auto = choice == ""
	if pick != d.snap.Bucket {
		d.switchTo(pick)
	}
	switch {
	case pick == "" && choice != "":
		d.snap.Problem = "bucket " + choice + " is gone: watch BUCKET picks another, watch alone picks for you"
	case pick == "":
		d.snap.Problem = noBucket
	}
	return true
}

// switchTo starts showing another bucket (or none), listening to its writes.
func (d *driver) switchTo(bucket string) {
	d.snap = Snapshot{ServerUp: d.snap.ServerUp, Auto: d.snap.Auto, Buckets: d.snap.Buckets, Bucket: bucket}
	d.untap()
	clear(d.dirty)
	clear(d.counts)
	if bucket == "" {
		return
	}
	d.snap.Stream = "KV_" + bucket
	if sub, err := d.nc.ChanSubscribe("$KV."+bucket+".>", d.Msgs()); err == nil {
		d.tap = sub
		_ = d.nc.FlushTimeout(time.Second)
	}
	d.events = append(d.events, kit.Event{Kind: kit.Changed, Note: "bucket"})
}

// readBucket reads the bucket's stream and the latest entry of each key
// written since the last look.
func (d *driver) readBucket(ctx context.Context) error {
	prefix := "$KV." + d.snap.Bucket + "."
	st, err := d.js.Stream(ctx, d.snap.Stream)
	if err != nil {
		return err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return err
	}
	s := info.State
	d.snap.Subjects = slices.Clone(info.Config.Subjects)
	d.snap.History = info.Config.MaxMsgsPerSubject
	d.snap.TTL = info.Config.MaxAge
	d.snap.Msgs, d.snap.FirstSeq, d.snap.LastSeq = s.Msgs, s.FirstSeq, s.LastSeq
	d.snap.Watchers = 0
	if s.Consumers > 0 {
		// A watch is a consumer a client receives from: one made with
		// consumer add reads nothing while nobody pulls or subscribes,
		// and the lesson's check does not count it either.
		for ci := range st.ListConsumers(ctx).Info() {
			if ci.PushBound {
				d.snap.Watchers++
			}
		}
	}
	if len(s.Subjects) > maxKeys {
		// Too many keys to show each: only those written while watching.
		s.Subjects = nil
	}
	seen := map[string]bool{}
	for subj, n := range s.Subjects {
		key := strings.TrimPrefix(subj, prefix)
		seen[key] = true
		if d.counts[key] != n {
			d.dirty[key] = true
		}
		d.counts[key] = n
	}
	if s.Subjects != nil {
		for key := range d.counts {
			if !seen[key] {
				delete(d.counts, key)
				d.dirty[key] = true
			}
		}
	}
	// The tap hears a write before the stream has stored it (on a cluster,
	// before its replicas agree): a key is read again at each look until
	// its writes are settled, so that resolve never judges by a read made
	// before the store.
	for _, ch := range d.snap.Changes {
		if !ch.resolved {
			d.dirty[ch.Key] = true
		}
	}
	for key := range d.dirty {
		m, err := st.GetLastMsgForSubject(ctx, prefix+key)
		switch {
		case err == nil:
			k := Key{Name: key, Value: string(m.Data), Rev: m.Sequence, Op: "put", Kept: d.counts[key]}
			switch m.Header.Get("KV-Operation") {
			case "DEL":
				k.Op, k.Value = "del", ""
			case "PURGE":
				k.Op, k.Value = "purge", ""
			}
			if old := d.snap.key(key); old != nil {
				if old.Rev != k.Rev {
					d.events = append(d.events, kit.Event{Kind: kit.Stored, Subject: key, Seq: k.Rev, Note: k.Op})
				}
				*old = k
			} else {
				d.snap.Keys = append(d.snap.Keys, k)
				d.events = append(d.events, kit.Event{Kind: kit.Stored, Subject: key, Seq: k.Rev, Note: k.Op})
			}
		case errors.Is(err, jetstream.ErrMsgNotFound):
			d.snap.Keys = slices.DeleteFunc(d.snap.Keys, func(k Key) bool { return k.Name == key })
		default:
			return err
		}
		delete(d.dirty, key)
	}
	for i := range d.snap.Keys {
		d.snap.Keys[i].Kept = d.counts[d.snap.Keys[i].Name]
	}
	sort.Slice(d.snap.Keys, func(i, j int) bool { return d.snap.Keys[i].Name < d.snap.Keys[j].Name })
	return nil
}

// resolve settles the writes heard, key by key, once the newest write to
// a key is settleAfter old: the key's latest entry is the last write the
// server stored; those after it were refused (the server compares a
// compare-and-set's expected revision with the key's, and stores nothing
// when they differ); those before it were stored and written over. When a
// key's revision did not move, nothing was stored.
func (d *driver) resolve() {
	byKey := map[string][]int{}
	var order []string
	for i, ch := range d.snap.Changes {
		if ch.resolved {
			continue
		}
		if _, ok := byKey[ch.Key]; !ok {
			order = append(order, ch.Key)
		}
		byKey[ch.Key] = append(byKey[ch.Key], i)
	}
	for _, key := range order {
		idx := byKey[key]
		if time.Since(d.snap.Changes[idx[len(idx)-1]].wall) < settleAfter {
			continue
		}
		var final Key
		if k := d.snap.key(key); k != nil {
			final = *k
		}
		base := d.snap.Changes[idx[0]].Was
		last := -1
		if final.Rev > base {
			for n := len(idx) - 1; n >= 0; n-- {
				if matches(d.snap.Changes[idx[n]], final) {
					last = n
					break
				}
			}
		}
		for n, i := range idx {
			ch := &d.snap.Changes[i]
			ch.resolved = true
			switch {
			case n == last:
				ch.Rev = final.Rev
			case last < 0 && final.Rev == base:
				d.refuse(ch, base)
			case n > last && last >= 0:
				d.refuse(ch, final.Rev)
			case n == 0 && ch.Expected >= 0 && uint64(ch.Expected) != base:
				d.refuse(ch, base)
			}
			// Otherwise stored, and written over since (its revision is gone
			// unless the bucket keeps history).
		}
	}
}

// matches reports whether a key's entry is what a write wrote.
func matches(ch Change, k Key) bool {
	kind := ch.Op
	if kind == "update" || kind == "create" {
		kind = "put"
	}
	return k.Op == kind && k.Value == ch.Value
}

// refuse marks a write the server did not store; at is the key's revision
// it met.
func (d *driver) refuse(ch *Change, at uint64) {
	ch.Refused = true
	ch.Was = at
	switch {
	case ch.Expected > 0 && at == 0:
		ch.Why = "the key does not exist"
	case ch.Expected == 0:
		ch.Why = "the key exists, at revision " + u(at)
	case ch.Expected > 0:
		ch.Why = "the key is at revision " + u(at) + ", not " + u(uint64(ch.Expected))
	default:
		ch.Why = "the server did not store it"
	}
	d.events = append(d.events, kit.Event{Kind: kit.Lost, Subject: ch.Key, Seq: uint64(ch.ID)})
}

func (d *driver) failed(err error) {
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, nats.ErrNoResponders) && d.nc.IsConnected():
		d.snap.Problem = "JetStream is off: nats-server -js turns it on"
		d.untap()
		d.snap.Bucket = ""
		d.structure = true
	case errors.Is(err, jetstream.ErrStreamNotFound):
		d.structure = true
		d.switchTo("")
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrNoResponders), errors.Is(err, context.DeadlineExceeded):
		d.structure = true // down or restarting: the next look tells
	default:
		d.snap.Problem = err.Error()
		d.structure = true
	}
}

func u(n uint64) string { return strconv.FormatUint(n, 10) }
