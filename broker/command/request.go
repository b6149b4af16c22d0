package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go"

	"natslab/broker/text"
)

func init() {
	register(&natsCommand{name: "request", aliases: []string{"req"}, summary: "Send a request and print the replies", build: buildRequest})
	examples["request"] = `req svc.time 'what time is it?'`
}

type reqCmd struct {
	subject      string
	body         string
	raw          bool
	headers      []string
	count        int
	replies      int
	replyTimeout time.Duration
	waitEmpty    bool
	translate    string
	templates    bool
	timeout      time.Duration
	forceStdin   bool
	sendOn       string
}

func buildRequest(app *fisk.Application, c *Call) {
	r := &reqCmd{}
	cmd := app.Command("request", "Sends a request and waits for the reply of whoever listens on the subject (see reply)").Alias("req").Action(act(c, r.run))
	cmd.Arg("subject", "Subject a service listens on, like svc.time").Required().StringVar(&r.subject)
	cmd.Arg("body", "Request body; may use templates like {{Count}}").StringVar(&r.body)
	cmd.Flag("raw", "Prints only the reply bodies").Short('r').UnNegatableBoolVar(&r.raw)
	cmd.Flag("header", "Adds a header in K:V form; repeat for more").PlaceHolder("K:V").Short('H').StringsVar(&r.headers)
	cmd.Flag("count", "Number of requests to send, one after the other").Default("1").IntVar(&r.count)
	cmd.Flag("replies", "Replies to wait for per request; 0 collects them all until --timeout").Default("1").IntVar(&r.replies)
	cmd.Flag("reply-timeout", "How long to wait for each further reply, beyond the average so far").Default("300ms").DurationVar(&r.replyTimeout)
	cmd.Flag("wait-for-empty", "Collects replies until one has an empty body").UnNegatableBoolVar(&r.waitEmpty)
	cmd.Flag("translate", "Pipes each reply body through this command before printing it").PlaceHolder("COMMAND").StringVar(&r.translate)
	cmd.Flag("templates", "Expand templates in the body and subject").Default("true").BoolVar(&r.templates)
	cmd.Flag("timeout", "How long to wait for the first reply").Default(c.S.timeout.String()).DurationVar(&r.timeout)
	cmd.Flag("force-stdin", "Reads the body from standard input (not in the lab)").Hidden().UnNegatableBoolVar(&r.forceStdin)
	cmd.Flag("send-on", "When to send standard input (not in the lab)").Hidden().Default("eof").EnumVar(&r.sendOn, "newline", "eof")
}

func (r *reqCmd) run(c *Call) error {
	if r.forceStdin || r.sendOn != "eof" {
		return usageErrorf("the lab has no standard input to read: put the body on the line, for example: req %s 'hello'", r.subject)
	}
	if r.timeout <= 0 {
		return usageErrorf("--timeout must be more than 0, like 2s")
	}
	if r.replies < 0 {
		return usageErrorf("--replies must be 0 (all until --timeout) or more, got %d", r.replies)
	}
	p := &pubCmd{subject: r.subject, body: r.body, headers: r.headers, count: r.count, templates: r.templates}
	pp, err := p.prepare()
	if err != nil {
		return err
	}
	var tr *translator
	if r.translate != "" {
		if tr, err = newTranslator(r.translate, c.S.timeout); err != nil {
			return err
		}
	}
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	out := &msgPrinter{w: bufio.NewWriter(c.Out), ctx: c.Ctx, translate: tr}
	for i := 1; i <= r.count; i++ {
		m, err := pp.message(i, "", c.Now())
		if err != nil {
			return err
		}
		done, err := r.one(c, nc, m, out)
		if err != nil || done {
			return err
		}
	}
	return nil
}

// one sends one request and prints its replies; done means stop sending.
func (r *reqCmd) one(c *Call, nc *nats.Conn, m *nats.Msg, out *msgPrinter) (done bool, err error) {
	if !r.raw {
		c.Statusf("Sending request on %q", m.Subject)
	}
	m.Reply = nc.NewRespInbox()
	sub, err := nc.SubscribeSync(m.Reply)
	if err != nil {
		return true, publishError(err)
	}
	defer sub.Unsubscribe()
	start := time.Now()
	if err := nc.PublishMsg(m); err != nil {
		return true, publishError(err)
	}
	replies, want := 0, r.replies
	if r.waitEmpty {
		want = 1 << 15
	}
	timeout := r.timeout
	var rtts time.Duration
	for {
		ctx, cancel := context.WithTimeout(c.Ctx, timeout)
		reply, err := sub.NextMsgWithContext(ctx)
		cancel()
		switch {
		case errors.Is(err, nats.ErrNoResponders):
			c.Statusf("No responders are available")
			c.Notef("nobody subscribes to %q; start a service with: reply %s 'answer'", m.Subject, m.Subject)
			return true, nil
		case err != nil && c.Ctx.Err() != nil:
			return true, c.Ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
			if replies == 0 {
				return true, fmt.Errorf("no reply on %q within %s: a service listens there but did not answer in time; try a longer --timeout", m.Subject, r.timeout)
			}
			return false, nil
		case err != nil:
			return true, publishError(err)
		}
		rtt := time.Since(start)
		r.print(c, reply, rtt, out)
		replies++
		if want > 0 && (replies == want || len(reply.Data) == 0) {
			return false, nil
		}
		if want == 0 {
			// Collecting all: whatever is left of the overall timeout.
			timeout = r.timeout - time.Since(start)
		} else {
			rtts += rtt
			timeout = rtts/time.Duration(replies) + r.replyTimeout
		}
		if timeout <= 0 {
			return false, nil
		}
	}
}

// print shows a reply as the real CLI does: the round trip and headers as
// status lines, then the body.
func (r *reqCmd) print(c *Call, m *nats.Msg, rtt time.Duration, out *msgPrinter) {
	if !r.raw {
		c.Statusf("Received with rtt %v", rtt)
		if len(m.Header) > 0 {
			for k, v := range text.Headers(m.Header) {
				c.Statusf("%s: %s", k, v)
			}
			c.Statusf("")
		}
	}
	out.body(m.Data, m.Subject, "")
	out.w.Flush()
}
