package core

import (
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// The scene learns of a publish from its tap and of deliveries from the
// server's counters, a moment later and without saying which message went
// where. flow pairs them up for the picture: each delivery the server
// counted leaves the server behind a publish its subscription matches, in
// order, so a burst of six to a queue group reads as six messages dealt
// out, not six at once. The counts on screen never depend on this.

// maxRecent is how many publishes the scene remembers for its picture.
const maxRecent = 6

// maxDue bounds the deliveries waiting for a publish, per consumer.
const maxDue = 64

// arrival is a publish reaching the server.
type arrival struct {
	id      uint64
	subject string
	at      time.Time // when the message reaches the server on screen
	heard   bool      // some subscription besides the tap could receive it
}

// debt is what one consumer (a plain subscription, or a whole queue group)
// was delivered that is not on screen yet.
type debt struct {
	filter string
	cursor uint64 // the next arrival to look at
	due    []due
}

type due struct {
	member string // the subscription that got it
	since  time.Time
}

type flow struct {
	pubFree  time.Time
	free     map[string]*time.Time // each row's delivery wire is free from then
	arrivals []arrival
	next     uint64
	debts    map[string]*debt
}

func (f *flow) init() {
	f.pubFree = time.Time{}
	f.free = map[string]*time.Time{}
	f.arrivals = nil
	f.debts = map[string]*debt{}
}

// consumerOf is who takes each matching message once: a plain
// subscription itself, or its queue group (a group is a name on a subject).
func consumerOf(s Sub) string {
	if s.Queue == "" {
		return "sub " + s.Key
	}
	return "queue " + s.Queue + " " + s.Subject
}

func (f *flow) arrive(a arrival) {
	a.id = f.next
	f.next++
	f.arrivals = append(f.arrivals, a)
}

func (f *flow) owe(consumer, filter, member string, now time.Time) {
	d := f.debts[consumer]
	if d == nil {
		d = &debt{filter: filter, cursor: f.next}
		// A new consumer follows the publishes of the last moment, not
		// ones from before it existed.
		for _, a := range f.arrivals {
			if !a.at.Before(now.Add(-defaultTiming.owe)) {
				d.cursor = a.id
				break
			}
		}
		f.debts[consumer] = d
	}
	if len(d.due) < maxDue {
		d.due = append(d.due, due{member: member, since: now})
	}
}

// forget drops what was owed to a subscription that is gone.
func (f *flow) forget(member string) {
	delete(f.free, member)
	for _, d := range f.debts {
		keep := d.due[:0]
		for _, x := range d.due {
			if x.member != member {
				keep = append(keep, x)
			}
		}
		d.due = keep
	}
}

// keep forgets the consumers that are gone.
func (f *flow) keep(live map[string]bool) {
	for c := range f.debts {
		if !live[c] {
			delete(f.debts, c)
		}
	}
}

func (f *flow) rowFree(member string) *time.Time {
	p := f.free[member]
	if p == nil {
		p = new(time.Time)
		f.free[member] = p
	}
	return p
}

// waiting reports whether deliveries wait for their publish.
func (f *flow) waiting() bool {
	for _, d := range f.debts {
		if len(d.due) > 0 {
			return true
		}
	}
	return false
}

// match starts each owed delivery: behind the next publish its consumer
// matches, or on its own once it has waited t.owe for one.
func (f *flow) match(now time.Time, t timing, start func(member string, at time.Time)) {
	keep := f.arrivals[:0]
	for _, a := range f.arrivals {
		if a.at.After(now.Add(-t.keep)) {
			keep = append(keep, a)
		}
	}
	clear(f.arrivals[len(keep):])
	f.arrivals = keep
	for _, d := range f.debts {
		for len(d.due) > 0 {
			found := false
			for _, a := range f.arrivals {
				if a.id < d.cursor {
					continue
				}
				d.cursor = a.id + 1
				if server.SubjectMatchesFilter(a.subject, d.filter) {
					start(d.due[0].member, later(a.at, now))
					d.due = d.due[1:]
					found = true
					break
				}
			}
			if !found {
				break
			}
		}
		for len(d.due) > 0 && now.Sub(d.due[0].since) >= t.owe {
			start(d.due[0].member, now)
			d.due = d.due[1:]
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
