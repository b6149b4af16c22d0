package command

import (
	"context"
	"errors"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
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
	// Before the subscriptions, so that what push consumers deliver to them
	// comes after.
	pushed := s.pushers(c)
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
	for _, subj := range s.subjects {
		if note := literalNote(subj); note != "" {
			c.Notef("%s", note)
		}
	}
	c.listen(strings.Join(s.subjects, " "), s.queue)
	c.settleWith(func(ctx context.Context) error {
		if err := connBarrier(ctx, nc); err != nil {
			return err
		}
		if err := pushed.through(ctx, c, s.subjects); err != nil {
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
		return explain(err, "%s", unreachableNote)
	}
	return err
}

// pushFloors are the push consumers that deliver to a sub's subjects (a
// consumer added with --target), each with the last stream sequence it
// had delivered before the sub began: nothing of that is on its way to
// the sub.
type pushFloors map[[2]string]uint64

// pushers lists the push consumers delivering to the sub's subjects now,
// as the lab's servers report them, with no request a lesson's check
// would count as traffic; nil where the lab cannot look (a deployment
// elsewhere). Several servers (a cluster) may each report a consumer:
// the highest delivery counts.
func (s *subCmd) pushers(c *Call) pushFloors {
	ms := c.S.dep.Monitors()
	if len(ms) == 0 {
		return nil
	}
	out := pushFloors{}
	for _, m := range ms {
		for _, ci := range pushConsumers(m, s.subjects) {
			k := [2]string{ci.Stream, ci.Name}
			out[k] = max(out[k], ci.Delivered.Stream)
		}
	}
	return out
}

// pushConsumers are the push consumers m reports whose deliver subject
// one of subjects matches.
func pushConsumers(m *broker.Monitor, subjects []string) []*server.ConsumerInfo {
	jsz, err := m.Jsz(&server.JSzOptions{Accounts: true, Streams: true, Consumer: true, Config: true})
	if err != nil {
		return nil
	}
	var out []*server.ConsumerInfo
	for _, acc := range jsz.AccountDetails {
		for _, st := range acc.Streams {
			for _, ci := range st.Consumer {
				if ci != nil && ci.Config != nil && ci.Config.DeliverSubject != "" && collidesAny(ci.Config.DeliverSubject, subjects) {
					out = append(out, ci)
				}
			}
		}
	}
	return out
}

// through is a sub's barrier for push consumers: a push consumer delivers
// on its own once a subscription shows interest, and says what it has
// delivered only in its state. It returns once every push consumer
// delivering to subjects (those there when the sub began, and any added
// since) has nothing left to deliver, as every server reporting it says,
// and the last it delivered has been gone through by one of the
// session's subs.
func (p pushFloors) through(ctx context.Context, c *Call, subjects []string) error {
	if p == nil {
		return nil
	}
	return c.settleWhen(ctx, func(context.Context) (bool, error) {
		for _, m := range c.S.dep.Monitors() {
			for _, ci := range pushConsumers(m, subjects) {
				k := [2]string{ci.Stream, ci.Name}
				if ci.NumPending > 0 || (ci.Delivered.Consumer > 0 && max(p[k], c.S.consumedUpTo(k[0], k[1])) < ci.Delivered.Stream) {
					return false, nil
				}
			}
		}
		return true, nil
	})
}
