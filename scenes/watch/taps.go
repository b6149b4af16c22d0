package watch

import (
	"github.com/nats-io/nats.go"
)

// Taps are a driver's subscriptions on a set of subjects, all on one
// connection and into one channel, so that what they hear comes in the
// order the server sent it. A tap only listens: the stream or responder
// on the subject answers as if it were not there.
type Taps struct {
	nc                *nats.Conn
	ch                chan *nats.Msg
	maxMsgs, maxBytes int // each subscription's bounds in nats.go: past them it drops (and counts)
	subs              map[string]*nats.Subscription
}

// NewTaps makes taps on nc into ch, each subscription holding at most
// maxMsgs and maxBytes before it drops.
func NewTaps(nc *nats.Conn, ch chan *nats.Msg, maxMsgs, maxBytes int) *Taps {
	return &Taps{nc: nc, ch: ch, maxMsgs: maxMsgs, maxBytes: maxBytes, subs: map[string]*nats.Subscription{}}
}

// Set makes the taps exactly the given subjects; the server has the
// change before it returns. Not safe for concurrent use: the driver's
// lock guards it.
func (t *Taps) Set(subjects []string) {
	want := map[string]bool{}
	for _, s := range subjects {
		want[s] = true
	}
	changed := false
	for s, sub := range t.subs {
		if !want[s] {
			_ = sub.Unsubscribe()
			delete(t.subs, s)
			changed = true
		}
	}
	for s := range want {
		if t.subs[s] != nil {
			continue
		}
		sub, err := t.nc.ChanSubscribe(s, t.ch)
		if err != nil {
			continue
		}
		_ = sub.SetPendingLimits(t.maxMsgs, t.maxBytes)
		t.subs[s] = sub
		changed = true
	}
	if changed {
		_ = t.nc.Flush()
	}
}

// Dropped is how many messages the taps dropped for want of room.
func (t *Taps) Dropped() uint64 {
	var n uint64
	for _, s := range t.subs {
		n += Dropped(s)
	}
	return n
}

// Dropped is how many messages sub dropped for want of room (nats.go's
// count), 0 for no subscription or one already gone.
func Dropped(sub *nats.Subscription) uint64 {
	if sub == nil {
		return 0
	}
	n, err := sub.Dropped()
	if err != nil || n < 0 {
		return 0
	}
	return uint64(n)
}
