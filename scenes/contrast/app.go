package contrast

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes/kit"
)

// The JetStream app fetches one message at a time while a backlog is small,
// taking d.pace over each, so a replay drains visibly, message by message,
// with the broker's own pending count on every step. A large backlog (a
// flood) is fetched in batches sized to drain in about drainSteps steps,
// and past maxPacedBatch without pauses at all. With nothing pending the
// app waits for new messages with one pull request for up to liveBatch of
// them, as a real app would, instead of one per message: each pull request
// is a subscription, a request and an unsubscribe for the broker to handle.
const (
	drainSteps    = 20
	maxBatch      = 1000
	maxPacedBatch = 50
	liveBatch     = 100
	fetchWait     = 5 * time.Second
)

// batchFor is how many messages the app asks for when the broker last said
// pending (known: whether it has said anything yet).
func batchFor(pending uint64, known bool) int {
	if known && pending == 0 {
		return liveBatch
	}
	if pending <= drainSteps {
		return 1
	}
	return int(min((pending+drainSteps-1)/drainSteps, maxBatch))
}

// runApp is the JetStream app: while online it fetches from its durable
// consumer and acks what it gets; offline it does nothing at all, which is
// the point: the stream keeps the messages and the consumer's pending
// count climbs.
func (d *driver) runApp() {
	for {
		d.mu.Lock()
		for !(d.js.Online && d.js.Ready) && d.Ctx.Err() == nil {
			d.cond.Wait()
		}
		if d.Ctx.Err() != nil {
			d.mu.Unlock()
			return
		}
		cons := d.cons
		batch := batchFor(d.js.Pending, d.js.Known)
		ctx, cancel := context.WithTimeout(d.Ctx, fetchWait)
		d.fetching, d.stopFetch = true, cancel
		d.mu.Unlock()

		n, err := d.fetch(ctx, cons, batch)
		cancel()
		d.mu.Lock()
		d.fetching, d.stopFetch = false, nil
		d.cond.Broadcast()
		backlog := d.js.Pending
		d.mu.Unlock()

		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			d.appFailed(err)
			if !d.Sleep(250 * time.Millisecond) {
				return
			}
			continue
		}
		if n > 0 && backlog > 0 && batch <= maxPacedBatch {
			if !d.Sleep(d.pace) {
				return
			}
		}
	}
}

func (d *driver) fetch(ctx context.Context, cons jetstream.Consumer, batch int) (int, error) {
	b, err := cons.Fetch(batch, jetstream.FetchContext(ctx))
	if err != nil {
		return 0, err
	}
	n := 0
	for m := range b.Messages() {
		d.received(m)
		n++
	}
	return n, b.Error()
}

// received counts a message the app got, takes the consumer's pending count
// from its metadata (the broker's number, free with each message), and acks it.
func (d *driver) received(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		d.feed.Send(kit.Event{Kind: kit.Delivered, Subject: m.Subject(), Client: jsApp})
	} else {
		d.mu.Lock()
		d.feed.Send(kit.Event{Kind: kit.Delivered, Subject: m.Subject(), Seq: md.Sequence.Stream, Pending: md.NumPending, Client: jsApp})
		if md.Sequence.Consumer >= d.consumerSeq {
			d.consumerSeq = md.Sequence.Consumer
			d.js.Pending, d.js.Known = md.NumPending, true
			d.js.Delivered = max(d.js.Delivered, md.Sequence.Stream)
		}
		d.mu.Unlock()
	}
	d.jsReceived.Add(1)
	_ = m.Ack()
}

// appFailed handles a fetch that failed: a consumer or stream that went
// away is looked for again (the consumer is recreated: it is the scene's
// own; the stream is not: someone removed it on purpose).
func (d *driver) appFailed(err error) {
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound), errors.Is(err, jetstream.ErrConsumerDeleted),
		errors.Is(err, jetstream.ErrStreamNotFound), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		_ = d.ensure(false)
	default:
		d.kickPoll()
	}
}

// jsOffline stops the app fetching and waits until no pull request of its
// is left on the server, so nothing is delivered to an app that is away.
func (d *driver) jsOffline() {
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.ClientDown, Client: jsApp})
	d.js.Online = false
	if d.stopFetch != nil {
		d.stopFetch()
	}
	for d.fetching {
		d.cond.Wait()
	}
	d.mu.Unlock()
	// The fetch's unsubscribe reaches the server before we return; the
	// server then drops the pull request for want of interest.
	_ = d.jsNC.Flush()
	d.kickPoll()
}

func (d *driver) jsOnline() {
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.ClientUp, Client: jsApp})
	d.js.Online = true
	d.cond.Broadcast()
	d.mu.Unlock()
	d.kickPoll()
}
