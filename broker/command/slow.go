package command

import (
	"errors"
	"sync"

	"github.com/nats-io/nats.go"

	"natslab/broker/text"
)

// Slow consumers. nats.go keeps a subscription's messages in a buffer
// until its callback takes them; a subscriber that prints slower than
// messages arrive fills it, and nats.go drops what does not fit and calls
// the subscription slow. natscli's sub says nothing about it (its error
// handler passes over ErrSlowConsumer): only the [#n] numbers jump. The lab
// keeps that, says what happened in a note, counts the drops for jobs, and
// keeps the buffer small enough that a flood into the pane cannot take the
// machine's memory.

// The most a sub's buffer holds: nats.go's defaults (512Ki messages, 64
// MiB) let one flooded sub grow by hundreds of megabytes.
const (
	subPendingMsgs  = 128 * 1024
	subPendingBytes = 32 << 20
)

// boundPending caps a subscription's buffer (see subPendingMsgs).
func boundPending(sub *nats.Subscription) {
	_ = sub.SetPendingLimits(subPendingMsgs, subPendingBytes)
}

// watchSlow says once, in a note, that a subscription on nc could not keep
// up, the first time nats.go reports it.
func (c *Call) watchSlow(nc *nats.Conn) {
	var once sync.Once
	onAsyncError(nc, func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) {
			once.Do(func() {
				c.Notef("slow consumer: messages arrive faster than this subscriber takes them, so the client library drops what its buffer cannot hold (the [#n] numbers skip them); jobs counts the drops")
			})
		}
	})
}

// countDrops lets the job count what subs drop; the returned function
// keeps the final count, and says it in a note when any were dropped: call
// it before the subscriptions go.
func (c *Call) countDrops(subs []*nats.Subscription) (final func()) {
	count := func() uint64 {
		var n uint64
		for _, sub := range subs {
			if d, err := sub.Dropped(); err == nil && d > 0 {
				n += uint64(d)
			}
		}
		return n
	}
	c.Job.mu.Lock()
	c.Job.drops = count
	c.Job.mu.Unlock()
	return func() {
		n := count()
		c.Job.mu.Lock()
		c.Job.drops, c.Job.dropped = nil, n
		received := c.Job.received
		c.Job.mu.Unlock()
		if n > 0 {
			c.Notef("%s: %d of %s dropped: the subscriber could not keep up (a slow consumer)", c.Job.Line, n, text.Count(n+received, "message", "messages"))
		}
	}
}

// Dropped is how many messages the job's subscriptions dropped because
// they could not keep up (a slow consumer).
func (j *Job) Dropped() uint64 {
	j.mu.Lock()
	drops, dropped := j.drops, j.dropped
	j.mu.Unlock()
	if drops != nil {
		return drops()
	}
	return dropped
}
