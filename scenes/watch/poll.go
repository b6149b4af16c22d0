package watch

import (
	"context"
	"sync"
	"time"
)

// Kick asks a driver's poller for a look. Kicks coalesce: one waiting is
// as good as many, and kicking never blocks (NATS callbacks kick).
type Kick chan struct{}

// NewKick makes a kick.
func NewKick() Kick { return make(Kick, 1) }

// Poke kicks.
func (k Kick) Poke() {
	select {
	case k <- struct{}{}:
	default:
	}
}

// Poll looks (poll) when kicked and when next says, from the end of the
// last look, but never sooner than min after the last one began, however
// hard a flood kicks; until the scene closes. The first look is first
// after the start, unless a kick comes before.
func (l *Life) Poll(kick Kick, min, first time.Duration, poll func(), next func() time.Duration) {
	l.Go(func() {
		var last time.Time
		timer := time.NewTimer(first)
		defer timer.Stop()
		for {
			select {
			case <-l.Ctx.Done():
				return
			case <-kick:
			case <-timer.C:
			}
			if gap := min - time.Since(last); gap > 0 {
				select {
				case <-l.Ctx.Done():
					return
				case <-time.After(gap):
				}
			}
			last = time.Now()
			poll()
			timer.Reset(next())
		}
	})
}

// Looks bounds each look a poller takes at the broker, and lets a server
// going down end the one in flight at once, rather than leave it waiting
// for an answer that died with the server.
type Looks struct {
	mu   sync.Mutex
	stop context.CancelFunc
}

// Begin starts a look under parent, for at most timeout.
func (k *Looks) Begin(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	k.mu.Lock()
	k.stop = cancel
	k.mu.Unlock()
	return ctx, cancel
}

// Abort ends the look in flight, if any: its answer will never come.
func (k *Looks) Abort() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stop != nil {
		k.stop()
	}
}

// Busy is a poller's kick that also keeps its looks quick for a while:
// news (a tap hearing a publish) says more is about to change (a stream
// stores the message a moment later), so the poller looks at a quick pace
// for a while after it, and at its idle pace otherwise. Safe from any
// goroutine.
type Busy struct {
	Kick Kick // the poller waits on it (Life.Poll)

	mu   sync.Mutex
	till time.Time
}

// NewBusy makes a busy kick, not busy yet.
func NewBusy() *Busy { return &Busy{Kick: NewKick()} }

// Poke asks for a look now, and quick looks for linger after it.
func (b *Busy) Poke(linger time.Duration) {
	b.Linger(linger)
	b.Kick.Poke()
}

// Linger keeps the looks quick for d from now, without asking for one.
func (b *Busy) Linger(d time.Duration) {
	b.mu.Lock()
	b.till = time.Now().Add(d)
	b.mu.Unlock()
}

// Pace is quick while the looks are to be quick, else idle.
func (b *Busy) Pace(quick, idle time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Now().Before(b.till) {
		return quick
	}
	return idle
}
