package command

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/jsm.go"
	"github.com/nats-io/nats.go"
)

// consumer next for a consumer the lab could not look at first. natscli
// never needs that look: it loads the consumer (and ignores a failure),
// pulls anyway, and only when no message comes loads it again, to say why.
// Where the lab's look failed, it takes natscli's steps instead, so that a
// user the server refuses part of the JetStream API meets each refusal
// natscli meets, in its order, each printed as natscli's error handler
// prints it; a consumer or stream that is not there answers the pull at
// once (no responders) and the second load says so.

func (x *consumerCmd) nextUnseen(c *Call, pullWait time.Duration, lookErr error) error {
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	var cons *jsm.Consumer
	if x.refused(c, x.streamInfoSubject()) || x.refused(c, x.infoSubject()) {
		// natscli's first load, which the lab's look (of other requests,
		// and quiet) did not stand for: its refusal is printed.
		cons, _ = mgr.LoadConsumer(x.stream, x.consumer)
	}
	for i := 0; i < x.count; i++ {
		m, err := x.pullPlain(c, nc, pullWait)
		if err != nil {
			return err
		}
		if m == nil || m.Header.Get("Status") == "503" {
			if cons == nil {
				if cons, err = mgr.LoadConsumer(x.stream, x.consumer); err != nil {
					err = fatalIf(err, "could not load consumer %q", x.consumer)
					if x.refused(c, x.infoSubject()) {
						return explain(err, "%s", x.refusedNote(c))
					}
					return lookNote(err, lookErr)
				}
			}
			if !cons.IsPullMode() {
				return fmt.Errorf("consumer %q is not a Pull consumer", x.consumer)
			}
		}
		if m == nil {
			if why := x.refusedNote(c); why != "" {
				return explain(errNoMessage, "%s", why)
			}
			return errNoMessage
		}
		meta, merr := m.Metadata()
		x.printMsg(c, m, meta)
		if m.Reply == "" && m.Header.Get("Status") != "" {
			deliver := ""
			if cons != nil {
				deliver = cons.DeliverySubject()
			}
			if err := x.cannotSettle(c, m, deliver); err != nil {
				return err
			}
			continue
		}
		x.countReceived(c, m, meta, merr)
		// Settled as natscli settles it: sent, with no wait for a
		// confirmation the user may not be let to receive.
		if err := x.settle(c, nc, m, false); err != nil {
			return err
		}
		if merr == nil {
			c.S.consumed(meta.Stream, meta.Consumer, meta.Sequence.Stream)
		}
		c.handled()
	}
	return nil
}

func (x *consumerCmd) streamInfoSubject() string {
	return "$JS.API.STREAM.INFO." + x.stream
}

func (x *consumerCmd) infoSubject() string {
	return fmt.Sprintf("$JS.API.CONSUMER.INFO.%s.%s", x.stream, x.consumer)
}

func (x *consumerCmd) nextSubject() string {
	return fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", x.stream, x.consumer)
}

func (x *consumerCmd) refused(c *Call, subject string) bool { return c.refusedPublish(subject) }

// refusedNote says which of natscli's requests for consumer next the
// server refused this user ("" when none): the pull itself, or the load of
// the consumer that would say why nothing came.
func (x *consumerCmd) refusedNote(c *Call) string {
	info, next := x.refused(c, x.infoSubject()), x.refused(c, x.nextSubject())
	switch {
	case next && info:
		return fmt.Sprintf("the server's permissions for this user refuse it the pull (a publish to %s) and the look at consumer %s (%s): no message can come; connect as a user allowed both", x.nextSubject(), x.consumer, x.infoSubject())
	case next:
		return fmt.Sprintf("the server's permissions for this user refuse it the pull (a publish to %s): no message can come; connect as a user allowed to publish there", x.nextSubject())
	case info:
		return fmt.Sprintf("no message came, and the server's permissions for this user refuse it the look at consumer %s that would say why (a publish to %s): the consumer may have nothing left to deliver, or not be there", x.consumer, x.infoSubject())
	}
	return ""
}

// pullPlain is natscli's pull: one request for one message, then a wait of
// up to timeout for what answers it, a message or a status in its place
// (503: nobody serves the pull); nil when nothing came.
func (x *consumerCmd) pullPlain(c *Call, nc *nats.Conn, timeout time.Duration) (*nats.Msg, error) {
	inbox := nats.NewInbox()
	msgs := make(chan *nats.Msg, 8)
	sub, err := nc.ChanSubscribe(inbox, msgs)
	if err != nil {
		return nil, c.jsError(err)
	}
	defer sub.Unsubscribe()
	body, _ := json.Marshal(nextRequest{Batch: 1, Expires: timeout})
	if err := nc.PublishRequest(x.nextSubject(), inbox, body); err != nil {
		return nil, fatalIf(c.jsError(err), "could not request next message")
	}
	_ = nc.FlushTimeout(c.timeout)
	c.Ready()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-c.Ctx.Done():
			withdraw(c, nc, sub)
			return nil, c.Ctx.Err()
		case <-t.C:
			return nil, nil
		case m := <-msgs:
			switch m.Header.Get("Status") {
			case "100", "404", "408":
				// A heartbeat, or the pull expiring as the wait ends.
				if len(m.Data) == 0 {
					continue
				}
			}
			return m, nil
		}
	}
}
