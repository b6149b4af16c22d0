package command

import (
	"context"
	"errors"
	"strings"

	"github.com/nats-io/nats.go"
)

// runCore subscribes to live messages: what is published from now on,
// shared out within a queue group when --queue is given.
func (s *subCmd) runCore(c *Call, nc *nats.Conn, sk *subSink) error {
	if !s.raw && s.dump == "" || s.inbox {
		if s.ack {
			c.Statusf("Subscribing on %s with acknowledgement of JetStream messages %s", s.subjects[0], s.statusSuffix())
		} else {
			c.Statusf("Subscribing on %s %s", strings.Join(s.subjects, ", "), s.statusSuffix())
		}
	}
	var subs []*nats.Subscription
	defer func() {
		for _, sub := range subs {
			sub.Unsubscribe()
		}
	}()
	for _, subj := range s.subjects {
		var sub *nats.Subscription
		var err error
		if s.queue == "" {
			sub, err = nc.Subscribe(subj, sk.core)
		} else {
			sub, err = nc.QueueSubscribe(subj, s.queue, sk.core)
		}
		if err != nil {
			return subscribeError(subj, err)
		}
		if s.count > 0 && len(s.subjects) == 1 && len(s.ignore) == 0 {
			// The server stops after exactly that many, so in a queue group
			// the next message goes to another member, not to us to drop.
			sub.AutoUnsubscribe(int(s.count))
		}
		boundPending(sub)
		subs = append(subs, sub)
	}
	// Drops are counted until the subscriptions go (deferred before them).
	defer c.countDrops(subs)()
	// Once the server has the interest, a message published next is ours.
	if err := nc.Flush(); err != nil {
		if last := nc.LastError(); last != nil {
			// The server's refusal that closed the connection (a subject
			// it does not accept), as the real CLI reports it.
			err = last
		}
		return subscribeError(s.subjects[0], err)
	}
	if err := nc.LastError(); err != nil {
		return subscribeError(s.subjects[0], err)
	}
	c.listen(strings.Join(s.subjects, " "), s.queue)
	c.settleWith(func(ctx context.Context) error {
		if err := connBarrier(ctx, nc); err != nil {
			return err
		}
		sk.flushNow()
		return nil
	})
	c.Ready()
	return s.await(c, sk)
}

// subscribeError adds the lab's note to a refused subscription; the real
// CLI prints nats.go's error as it is.
func subscribeError(subject string, err error) error {
	switch {
	case strings.Contains(strings.ToLower(err.Error()), "permissions violation"):
		return explain(err, "the server does not allow this user to subscribe to %q", subject)
	case errors.Is(err, nats.ErrBadSubject), strings.Contains(err.Error(), "Invalid Subject"):
		if note := subjectNote(subject, true); note != "" {
			return explain(err, "%s", note)
		}
		return explain(err, "%q is not a subject NATS accepts", subject)
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting):
		return explain(err, "the server is not reachable right now (is it restarting? try again in a moment)")
	}
	return err
}
