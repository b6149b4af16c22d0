package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// consumer next: pull messages one at a time from a pull consumer, print
// them as natscli does, and acknowledge (or not) each one. With --count it
// runs for a while, so it marks itself ready once its first pull is in
// place and stops when its job is stopped.

func (x *consumerCmd) next(c *Call) error {
	if x.count < 1 {
		// natscli pulls --count times: not at all, and says nothing.
		c.Notef("--count %d pulls no message: give 1 or more", x.count)
		return nil
	}
	// natscli's order: the pull's subject (valid names), the flags, then
	// the consumer, loaded once the pull found nothing to answer it.
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	if _, err := mgr.NextSubject(x.stream, x.consumer); err != nil {
		why := validStreamName(x.stream)
		if why == nil {
			why = validConsumerName(x.consumer)
		}
		return noteOf(fatalIf(err, "could not request next message"), why)
	}
	if x.term {
		if !x.ackNextSet {
			x.ackNext = false
		}
		if x.ackNext || x.nak {
			return explain(errors.New("can not both Acknowledge and Terminate message"), "--term settles the message itself: drop --ack and --nak")
		}
	}
	// natscli looks the consumer up with jsm.go (at least half a second),
	// and waits for the pull's answer for --timeout itself.
	pullWait := c.timeout
	c.timeout = jsmTimeout(c.timeout)
	if pullWait <= 0 {
		// natscli's pull expires at once and it waits for nothing: it
		// loads the consumer to say why, and there is no message.
		cons, err := mgr.LoadConsumer(x.stream, x.consumer)
		if err != nil {
			return fatalIf(err, "could not load consumer %q", x.consumer)
		}
		if !cons.IsPullMode() {
			return fmt.Errorf("consumer %q is not a Pull consumer", x.consumer)
		}
		return explain(errNoMessage, "--timeout %s leaves the pull no time to wait for a message: give a positive one, like --timeout 5s", pullWait)
	}
	// The lab's own look at the consumer, by other requests than the real
	// CLI's (which pulls, then loads the consumer to say why nothing came).
	quiet := c.labAsks()
	ci, err := c.consumerInfo(x.stream, x.consumer)
	quiet()
	if err != nil {
		return x.nextUnseen(c, pullWait, err)
	}
	// A consumer without acks has nothing to acknowledge: sending one would
	// only wait for a reply that never comes.
	ackable := ci.Config.AckPolicy != jetstream.AckNonePolicy
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	// Its barrier: the consumer has nothing left to deliver, and what it
	// delivered last has been printed and settled here or by another of
	// the session's readers.
	floor := ci.Delivered.Stream
	c.settleWith(func(ctx context.Context) error {
		info := func(context.Context) (*jetstream.ConsumerInfo, error) { return c.consumerInfo(x.stream, x.consumer) }
		return c.consumerBarrier(ctx, info, func() uint64 { return max(floor, c.S.consumedUpTo(x.stream, x.consumer)) })
	})
	if x.ackDelay < 0 {
		// natscli pauses only for a --wait above zero: below, it acknowledges at once.
		c.Notef("--wait %s is below zero, so there is no pause before acknowledging", x.ackDelay)
	}
	for i := 0; i < x.count; i++ {
		m, err := x.pullOne(c, nc, pullWait)
		if err != nil {
			return err
		}
		meta, merr := m.Metadata()
		x.printMsg(c, m, meta)
		if m.Reply == "" && m.Header.Get("Status") != "" {
			// The server's answer in place of a message, which natscli
			// prints as one, then cannot settle.
			if err := x.cannotSettle(c, m, ci.Config.DeliverSubject); err != nil {
				return err
			}
			continue
		}
		// Counted once shown, so whoever watches the job sees it printed.
		x.countReceived(c, m, meta, merr)
		if err := x.settle(c, nc, m, ackable); err != nil {
			return err
		}
		if !ackable && m.Reply != "" && (x.ackNext || x.nak || x.term) && i == 0 {
			c.Notef("consumer %s takes no acknowledgements (ack policy none): the server counted the message done as it delivered it, and ignores the %s", x.consumer, x.settleKind())
		}
		if ackable && m.Reply != "" && !x.ackNext && !x.nak && !x.term && i == x.count-1 {
			c.Notef("%s", unackedNote(x.consumer, ci.Config, meta, merr, x.count))
		}
		if merr == nil {
			c.S.consumed(meta.Stream, meta.Consumer, meta.Sequence.Stream)
		}
		c.handled()
	}
	return nil
}

// unackedNote says what becomes of messages next left unacknowledged
// (--no-ack) on a consumer that wants acks: the server delivers them
// again once the ack wait has passed, unless that was the last delivery
// --max-deliver allows.
func unackedNote(consumer string, cfg jetstream.ConsumerConfig, meta *nats.MsgMetadata, merr error, count int) string {
	what := "the message was"
	if count > 1 {
		what = "the messages were"
	}
	if merr == nil && cfg.MaxDeliver > 0 && meta.NumDelivered >= uint64(cfg.MaxDeliver) {
		return fmt.Sprintf("%s not acknowledged (--no-ack), and that was the last delivery consumer %s allows (--max-deliver %d): the server will not deliver it again", what, consumer, cfg.MaxDeliver)
	}
	wait := cfg.AckWait
	if len(cfg.BackOff) > 0 && merr == nil {
		wait = cfg.BackOff[min(int(meta.NumDelivered), len(cfg.BackOff))-1]
	}
	return fmt.Sprintf("%s not acknowledged (--no-ack): consumer %s waits %s for an acknowledgement, then delivers again what has none", what, consumer, wait)
}

// cannotSettle is natscli's failure to settle a status the server sent in
// place of a message (a push consumer's "409 Consumer is push based"): it
// has no reply subject to answer on. With --no-ack there is nothing to do.
func (x *consumerCmd) cannotSettle(c *Call, m *nats.Msg, deliverSubject string) error {
	why := fmt.Sprintf("the server answered the pull with status %s (%s), not a message", m.Header.Get("Status"), m.Header.Get("Description"))
	if d := deliverSubject; d != "" {
		why = fmt.Sprintf("consumer %s is a push consumer (it delivers to %s), and next pulls: the server answered with status %s, not a message; subscribe to %s instead, or add a pull consumer with consumer add %s NAME --pull --defaults",
			x.consumer, d, m.Header.Get("Status"), d, x.stream)
	}
	switch {
	case x.term:
		return explain(fmt.Errorf("could not Terminate message: %w", nats.ErrMsgNoReply), "%s", why)
	case x.ackNext || x.nak:
		return explain(fmt.Errorf("could not Acknowledge message: %w", nats.ErrMsgNoReply), "%s", why)
	}
	c.Notef("%s", why)
	return nil
}

// settleKind is what next sends to settle each message, as the server reads it.
func (x *consumerCmd) settleKind() string {
	switch {
	case x.term:
		return "+TERM"
	case x.nak:
		return "-NAK"
	}
	return "+ACK"
}

// nextRequest is the JetStream pull request body.
type nextRequest struct {
	Batch   int           `json:"batch"`
	Expires time.Duration `json:"expires,omitempty"`
}

// pullOne asks the consumer for one message and waits up to timeout for it.
// If the server restarts meanwhile (the lab's restart), the pull it held is
// gone, so the request is made again once the connection is back.
func (x *consumerCmd) pullOne(c *Call, nc *nats.Conn, timeout time.Duration) (*nats.Msg, error) {
	inbox := nats.NewInbox()
	msgs := make(chan *nats.Msg, 8)
	sub, err := nc.ChanSubscribe(inbox, msgs)
	if err != nil {
		return nil, c.jsError(err)
	}
	defer sub.Unsubscribe()
	reconnected := nc.StatusChanged(nats.CONNECTED)
	defer nc.RemoveStatusListener(reconnected)

	deadline := time.Now().Add(timeout)
	subj := x.nextSubject()
	request := func() error {
		body, _ := json.Marshal(nextRequest{Batch: 1, Expires: time.Until(deadline)})
		if err := nc.PublishRequest(subj, inbox, body); err != nil {
			return c.jsError(err)
		}
		return c.jsError(nc.FlushTimeout(c.timeout))
	}
	if err := request(); err != nil {
		return nil, err
	}
	c.Ready()
	ctx, cancel := context.WithDeadline(c.Ctx, deadline)
	defer cancel()
	var retry <-chan time.Time
	jsOff := false
	for {
		select {
		case <-ctx.Done():
			if c.Ctx.Err() != nil {
				withdraw(c, nc, sub)
				return nil, c.Ctx.Err()
			}
			if jsOff {
				// natscli loads the consumer to say why: it cannot.
				return nil, c.jetStreamOff(fmt.Errorf("could not load consumer %q: %w", x.consumer, nats.ErrNoResponders))
			}
			return nil, x.noMessage(c, timeout)
		case <-reconnected:
			retry = time.After(0)
		case <-retry:
			retry, jsOff = nil, false
			if err := request(); err != nil {
				retry = time.After(250 * time.Millisecond)
			}
		case m := <-msgs:
			status := m.Header.Get("Status")
			if status == "" || len(m.Data) > 0 {
				return m, nil
			}
			switch status {
			case "100": // heartbeat
				continue
			case "404", "408":
				if time.Until(deadline) > 100*time.Millisecond {
					continue // an earlier request of ours expiring after a restart
				}
				return nil, x.noMessage(c, timeout)
			case "409":
				switch m.Header.Get("Description") {
				case "Server Shutdown":
					// The pull is gone with the old server: it is made
					// again when the connection is back (reconnected, above).
					continue
				case "Leadership Change":
					// A new consumer leader in a cluster: ask it.
					retry = time.After(50 * time.Millisecond)
					continue
				case "Consumer is push based":
					// natscli prints this answer as a message.
					return m, nil
				}
			case "503":
				// No JetStream behind the API: off, or still starting after a restart.
				jsOff = true
				retry = time.After(250 * time.Millisecond)
				continue
			}
			// Any other answer in place of a message (409 Exceeded
			// MaxWaiting, …): natscli prints it as one.
			return m, nil
		}
	}
}

// withdraw takes back a pull still waiting at the server when its job is
// stopped: without interest in its inbox the server drops the pull instead
// of delivering the next message into the void, where it would wait out
// the ack wait. The unsubscribe only leaves with the connection's next
// write, so the round trip after it makes sure the server has it before
// the job ends and the learner publishes again (the real CLI's process
// exits, and its connection with it). A request's inbox goes the same way.
func withdraw(c *Call, nc *nats.Conn, sub *nats.Subscription) {
	if sub.Unsubscribe() != nil || !nc.IsConnected() {
		return // no pull left: the server dropped it with the connection
	}
	_ = nc.FlushTimeout(c.timeout)
}

// noMessage is the real CLI's line for an empty pull, with the lab's note
// on why, from the consumer's own numbers and what its stream holds.
func (x *consumerCmd) noMessage(c *Call, timeout time.Duration) error {
	if why := x.refusedNote(c); why != "" {
		return explain(errNoMessage, "%s", why)
	}
	ci, err := c.consumerInfo(x.stream, x.consumer)
	if err != nil {
		return errNoMessage
	}
	within := "within " + human(timeout)
	cfg := ci.Config
	switch {
	case cfg.MaxAckPending > 0 && ci.NumAckPending >= cfg.MaxAckPending:
		return explain(errNoMessage, "nothing came %s: consumer %s has %s messages awaiting acknowledgement, its maximum (--max-pending), so delivery is paused until some are acknowledged", within, x.consumer, human(ci.NumAckPending))
	case ci.NumPending == 0 && ci.NumAckPending > 0:
		return explain(errNoMessage, "nothing came %s: consumer %s has no new messages; %s delivered but unacknowledged come back once their %s ack wait runs out", within, x.consumer, human(ci.NumAckPending), human(cfg.AckWait))
	case ci.NumPending == 0:
		if why := stallNote(c, ci); why != "" {
			return explain(errNoMessage, "nothing came %s: %s", within, why)
		}
		return explain(errNoMessage, "nothing came %s: consumer %s has delivered everything (0 unprocessed messages); publish more to its stream %s", within, x.consumer, x.stream)
	}
	return explain(errNoMessage, "nothing came %s: consumer %s still has %s unprocessed messages (waiting pulls %s); try again", within, x.consumer, human(ci.NumPending), human(ci.NumWaiting))
}

// countReceived counts a message the job was given, by its stream and
// sequence where its metadata says them.
func (x *consumerCmd) countReceived(c *Call, m *nats.Msg, meta *nats.MsgMetadata, metaErr error) {
	if metaErr == nil {
		c.received(m.Subject, meta.Stream, meta.Sequence.Stream)
	} else {
		c.received(m.Subject, x.stream, 0)
	}
}

// printMsg prints one message the way natscli's consumer next does.
func (x *consumerCmd) printMsg(c *Call, m *nats.Msg, meta *nats.MsgMetadata) {
	w := c.Out
	if x.raw {
		fmt.Fprintln(w, string(m.Data))
		return
	}
	if meta == nil {
		if m.Reply == "" {
			fmt.Fprintf(w, "--- subject: %s\n", m.Subject)
		} else {
			fmt.Fprintf(w, "--- subject: %s reply: %s\n", m.Subject, m.Reply)
		}
	} else {
		fmt.Fprintf(w, "[%s] subj: %s / tries: %d / cons seq: %d / str seq: %d / pending: %s\n",
			c.Now().Format("15:04:05"), m.Subject, meta.NumDelivered, meta.Sequence.Consumer, meta.Sequence.Stream, human(meta.NumPending))
	}
	if len(m.Header) > 0 {
		fmt.Fprint(w, "\nHeaders:\n\n")
		// Sorted, where natscli's order is random.
		for k, v := range text.Headers(m.Header) {
			fmt.Fprintf(w, "  %s: %s\n", k, v)
		}
		fmt.Fprint(w, "\nData:\n\n")
	}
	fmt.Fprintf(w, "\n%s\n", m.Data)
}

// settle acknowledges, naks or terminates the message as asked, and waits
// for the server to confirm it, so the next command sees the new state.
// natscli settles whatever the consumer's ack policy and says so: to a
// consumer that takes no acks (ackable false) the lab sends it too, but
// waits for no confirmation, which would never come.
func (x *consumerCmd) settle(c *Call, nc *nats.Conn, m *nats.Msg, ackable bool) error {
	if m.Reply == "" {
		return nil
	}
	if x.term {
		if err := x.sendAck(c, nc, m, "+TERM", ackable); err != nil {
			return err
		}
		fmt.Fprint(c.Out, "\nTerminated message\n")
	}
	if !x.ackNext && !x.nak {
		return nil
	}
	var delay time.Duration
	if x.ackDelay > 0 {
		delay = rand.N(x.ackDelay)
		t := time.NewTimer(delay)
		select {
		case <-c.Ctx.Done():
			t.Stop()
			return c.Ctx.Err()
		case <-t.C:
		}
	}
	kind, neg := "+ACK", ""
	if x.nak {
		kind, neg = "-NAK", "Negative "
	}
	if err := x.sendAck(c, nc, m, kind, ackable); err != nil {
		return err
	}
	if x.raw {
		return nil
	}
	if delay > 0 {
		fmt.Fprintf(c.Out, "\n%sAcknowledged message after %s delay\n\n", neg, delay)
	} else {
		fmt.Fprintf(c.Out, "\n%sAcknowledged message\n\n", neg)
	}
	return nil
}

func (x *consumerCmd) sendAck(c *Call, nc *nats.Conn, m *nats.Msg, kind string, confirmed bool) error {
	// natscli's words for the settling that failed.
	what := "Acknowledge"
	if kind == "+TERM" {
		what = "Terminate"
	}
	if !confirmed {
		// As natscli sends it: published, and flushed to the server.
		if err := nc.Publish(m.Reply, []byte(kind)); err != nil {
			return fmt.Errorf("could not %s message: %w", what, c.jsError(err))
		}
		_ = nc.FlushTimeout(c.timeout)
		return nil
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if _, err := nc.RequestWithContext(ctx, m.Reply, []byte(kind)); err != nil {
		if c.Ctx.Err() != nil {
			return c.Ctx.Err()
		}
		// The lab waits for the server's confirmation, so says which
		// answer did not come.
		return explain(fmt.Errorf("could not %s message: %w", what, c.jsError(err)), "the server did not confirm the %s", kind)
	}
	return nil
}
