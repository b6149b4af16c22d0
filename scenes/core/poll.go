package core

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/scenes/kit"
)

// Who subscribes, and how many messages each subscription got, comes from
// the server itself (Connz with subscription details, in process): a sub in
// the command pane, a real nats CLI in another terminal, a program of the
// learner's all show up. The counts are the server's; what moved since the
// last look becomes one event per delivered message for the scene to
// animate (a bounded number per look: the counts stay exact).
const (
	idlePoll   = 400 * time.Millisecond // how soon a new subscriber shows up
	settlePoll = 15 * time.Millisecond  // after a publish, before counting deliveries
	minGap     = 40 * time.Millisecond  // at most this often, whatever a flood does
	perLook    = 24                     // delivery events per subscription per look
	maxSubs    = 512                    // subscriptions kept in the list
)

// discovery is what the poller knows; guarded by driver.mu.
type discovery struct {
	subs []Sub
	seen map[string]int64 // the server's count at the last look
	base map[string]int64 // the count the scene's numbers start from
	// fresh: the next look is the first since the scene opened or its watch
	// changed, and what subscriptions already had then is not news.
	fresh bool
}

func (c *discovery) init() {
	c.subs = nil
	c.seen = map[string]int64{}
	c.base = map[string]int64{}
	c.fresh = true
}

// rebase makes every count start again from now.
func (c *discovery) rebase() {
	for k, n := range c.seen {
		c.base[k] = n
	}
	// A new slice: snapshots share the old one.
	subs := make([]Sub, len(c.subs))
	for i, s := range c.subs {
		s.Msgs = 0
		subs[i] = s
	}
	c.subs = subs
}

func (d *driver) runPoller() {
	if !d.dep.Own() {
		return // nothing to ask: the picture says why
	}
	timer := time.NewTimer(idlePoll)
	defer timer.Stop()
	last := time.Now()
	for {
		changed := d.dep.Changed()
		select {
		case <-d.Ctx.Done():
			return
		case <-changed:
		case <-d.kick:
			wait := max(settlePoll, minGap-time.Since(last))
			select {
			case <-d.Ctx.Done():
				return
			case <-time.After(wait):
			}
		case <-timer.C:
		}
		d.poll()
		last = time.Now()
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(idlePoll)
	}
}

// relevant reports whether a subscription belongs in the picture: it could
// receive what the scene watches, and it is not the lab's plumbing (reply
// inboxes, $JS and $SYS subjects) unless the scene watches those.
func relevant(subject, watch string) bool {
	for _, p := range []string{"_INBOX.", "$"} {
		if strings.HasPrefix(subject, p) && !strings.HasPrefix(watch, p) {
			return false
		}
	}
	return server.SubjectsCollide(subject, watch)
}

// poll asks the servers who subscribes and announces what changed.
func (d *driver) poll() {
	d.mu.Lock()
	watch, gen := d.watch, d.gen
	d.mu.Unlock()
	type found struct {
		sub  Sub
		raw  int64
		node int
	}
	var all []found
	// The lab's server, or each node of its cluster: a client may be on any.
	for node, ns := range d.dep.Monitors() {
		cz, err := ns.Connz(&server.ConnzOptions{Subscriptions: true, SubscriptionsDetail: true, Limit: 1 << 14})
		if err != nil {
			continue
		}
		boot := ns.ID()
		for _, ci := range cz.Conns {
			if strings.HasPrefix(ci.Name, WatcherPrefix) {
				continue
			}
			for _, sd := range ci.SubsDetail {
				if !relevant(sd.Subject, watch) {
					continue
				}
				all = append(all, found{
					sub:  Sub{Key: boot + "/" + strconv.FormatUint(ci.Cid, 10) + "/" + sd.Sid, Cid: ci.Cid, Sid: sd.Sid, Name: ci.Name, Subject: sd.Subject, Queue: sd.Queue},
					raw:  sd.Msgs,
					node: node,
				})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.node != b.node {
			return a.node < b.node
		}
		if a.sub.Cid != b.sub.Cid {
			return a.sub.Cid < b.sub.Cid
		}
		return sidLess(a.sub.Sid, b.sub.Sid)
	})
	if len(all) > maxSubs {
		all = all[:maxSubs]
	}

	type delivered struct {
		key, subject string
		n            int64
	}
	var got []delivered
	var events []kit.Event
	d.mu.Lock()
	if gen != d.gen {
		d.mu.Unlock()
		return // the watch changed meanwhile: this look is about the old one
	}
	c := &d.disc
	first := c.fresh
	c.fresh = false
	live := make(map[string]bool, len(all))
	subs := make([]Sub, 0, len(all))
	changed := len(all) != len(c.subs)
	for i, f := range all {
		k := f.sub.Key
		live[k] = true
		prev, known := c.seen[k]
		if !known {
			if first {
				c.base[k] = f.raw
			}
			prev = c.base[k]
			if !first {
				events = append(events, kit.Event{Kind: kit.ClientUp, Client: k, Subject: f.sub.Subject})
			}
		}
		if n := min(f.raw-prev, perLook); n > 0 {
			got = append(got, delivered{k, f.sub.Subject, n})
		}
		c.seen[k] = f.raw
		f.sub.Msgs = uint64(max(f.raw-c.base[k], 0))
		subs = append(subs, f.sub)
		if !changed && c.subs[i] != f.sub {
			changed = true
		}
	}
	for k := range c.seen {
		if !live[k] {
			delete(c.seen, k)
			delete(c.base, k)
			events = append(events, kit.Event{Kind: kit.ClientDown, Client: k})
		}
	}
	// Which of a burst each subscription got, the server does not say: the
	// deliveries are dealt out in turn (a queue group's members alternate),
	// and the numbers are the server's.
	for more := true; more; {
		more = false
		for i := range got {
			if got[i].n > 0 {
				events = append(events, kit.Event{Kind: kit.Delivered, Client: got[i].key, Subject: got[i].subject})
				got[i].n--
				more = more || got[i].n > 0
			}
		}
	}
	for _, e := range events {
		d.feed.Send(e)
	}
	c.subs = subs
	d.mu.Unlock()

	if changed || len(events) > 0 {
		d.feed.Poke()
	}
}

// sidLess orders subscription ids as numbers (nats.go numbers them).
func sidLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
