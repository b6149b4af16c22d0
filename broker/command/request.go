package command

import (
	"bufio"
	"context"
	"errors"
	"math"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go"

	"natslab/broker/text"
)

func init() {
	register(&natsCommand{name: "request", aliases: []string{"req"}, summary: "Send a request and print the replies", build: buildRequest})
	examples["request"] = `req svc.time 'what time is it?'`
}

// reqCmd is natscli's request: what the line asked for.
type reqCmd struct {
	subject      string
	body         string
	bodyIsSet    bool
	wait         bool
	raw          bool
	headers      []string
	count        int
	replies      int
	replyTimeout time.Duration
	waitEmpty    bool
	translate    string
	forceStdin   bool
	sendOn       string
	templates    bool
}

func buildRequest(app *fisk.Application, c *Call) {
	r := &reqCmd{}
	cmd := app.Command("request", "Sends a request and waits for the reply of whoever listens on the subject (see reply)").Alias("req").Action(act(c, r.run))
	cmd.Arg("subject", "Subject a service listens on, like svc.time").Required().StringVar(&r.subject)
	cmd.Arg("body", "Request body; may use templates like {{Count}}").IsSetByUser(&r.bodyIsSet).StringVar(&r.body)
	cmd.Flag("wait", "Waits for a reply (the only way the real CLI works)").Short('w').Default("true").Hidden().BoolVar(&r.wait)
	cmd.Flag("raw", "Prints only the reply bodies").Short('r').UnNegatableBoolVar(&r.raw)
	cmd.Flag("header", "Adds a header in K:V form; repeat for more").Short('H').StringsVar(&r.headers)
	cmd.Flag("count", "Number of requests to send, one after the other").Default("1").IntVar(&r.count)
	cmd.Flag("replies", "Replies to wait for per request; 0 collects them all until --timeout").Default("1").IntVar(&r.replies)
	cmd.Flag("reply-timeout", "How long to wait for each further reply, beyond the average so far").Default("300ms").DurationVar(&r.replyTimeout)
	cmd.Flag("wait-for-empty", "Collects replies until one has an empty body").UnNegatableBoolVar(&r.waitEmpty)
	cmd.Flag("translate", "Pipes each reply body through this command before printing it").StringVar(&r.translate)
	cmd.Flag("force-stdin", "Reads the body from standard input, which the lab leaves empty").UnNegatableBoolVar(&r.forceStdin)
	cmd.Flag("send-on", "When to send what standard input holds: eof or newline").Default("eof").EnumVar(&r.sendOn, "newline", "eof")
	cmd.Flag("templates", "Expand templates in the body and subject").Default("true").BoolVar(&r.templates)
}

// run is natscli's requestAction.
func (r *reqCmd) run(c *Call) error {
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	if r.count < 1 {
		r.count = math.MaxInt16
	}
	if r.waitEmpty {
		r.replies = math.MaxInt16
	}
	pub := newPublisher(c, r.subject, r.body, r.bodyIsSet, r.headers, r.count, r.raw, r.templates, r.sendOn)
	defer pub.stop()
	// A stream that captures the subject answers a request with its
	// acknowledgement, as it does a JetStream publish: the stream's
	// consumers count the message a moment later (see awaitStored).
	defer c.awaitStored()
	if pub.useStdin {
		c.Statusf("Reading payload from STDIN")
		c.Notef("the lab gives commands no standard input, so the body is empty: put it on the line, for example req %s 'hello'", r.subject)
		body, nothing := pub.stdinBody()
		if nothing {
			return nil
		}
		r.body = body
	}
	var tr *translator
	if r.translate != "" {
		tr = newTranslator(r.translate, c.timeout)
	}
	out := &msgPrinter{w: bufio.NewWriter(c.Out), ctx: c.Ctx, translate: tr}
	return r.doReq(c, nc, pub, out)
}

// doReq is natscli's: each request, then its replies, until enough came,
// one came empty, or none came within the wait.
func (r *reqCmd) doReq(c *Call, nc *nats.Conn, pub *publisher, out *msgPrinter) error {
	logOutput := !r.raw && pub.progress == nil
	// Each request's inbox goes when its replies are done, and however the
	// job ends (stopped while replies may still come, no responders, an
	// error), before the job says it ended: nothing keeps listening on the
	// shared connection.
	var s *nats.Subscription
	defer func() {
		if s != nil {
			withdraw(c, nc, s)
		}
	}()
	for i := 1; i <= r.count; i++ {
		body, subj := pub.parseTemplates(c, r.body, i)
		if logOutput {
			c.Statusf("Sending request on %q", subj)
		}
		msg, err := pub.prepareMsg(c, subj, "", []byte(body), i)
		if err != nil {
			return err
		}
		msg.Reply = nc.NewRespInbox()
		s, err = nc.SubscribeSync(msg.Reply)
		if err != nil {
			return c.publishError(err, msg)
		}
		if err := nc.PublishMsg(msg); err != nil {
			return c.publishError(err, msg)
		}
		if pub.progress != nil {
			pub.progress.Increment()
		}
		start := time.Now()
		timeout := c.timeout
		rc := 0
		var rttAg time.Duration
		for {
			ctx, cancel := context.WithTimeout(c.Ctx, timeout)
			m, err := s.NextMsgWithContext(ctx)
			cancel()
			if err != nil {
				if c.Ctx.Err() != nil {
					return c.Ctx.Err()
				}
				if errors.Is(err, nats.ErrNoResponders) {
					c.Statusf("No responders are available")
					c.Notef("nobody subscribes to %q; start a service with: reply %s 'answer'", subj, subj)
					return nil
				}
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
					if rc == 0 && c.refusedPublish(subj) {
						c.Notef("the server does not allow this user to publish to %q, so the request never reached a responder (the real CLI then says nothing more)", subj)
					} else if rc == 0 {
						c.Notef("no reply on %q within %s: something subscribes there (else: no responders), but no answer came back in time; the responder may be slow (try a longer --timeout), may not answer at all, or its answer was lost on the way (one not allowed to publish to the reply subject looks the same); the real CLI then says nothing", subj, c.timeout)
					}
					break
				}
				return c.publishError(err, msg)
			}
			rtt := time.Since(start)
			switch {
			case r.raw:
				out.body(m.Data, m.Subject)
			case logOutput:
				c.Statusf("Received with rtt %v", rtt)
				if len(m.Header) > 0 {
					for k, v := range text.Headers(m.Header) {
						c.Statusf("%s: %s", k, v)
					}
					c.Statusf("")
				}
				out.body(m.Data, m.Subject)
			}
			out.w.Flush()
			rc++
			if r.replies > 0 && rc == r.replies {
				break
			}
			if r.replies > 0 && len(m.Data) == 0 {
				break
			}
			if r.replies == 0 {
				timeout = c.timeout - time.Since(start)
			} else {
				rttAg += rtt
				timeout = rttAg/time.Duration(rc) + r.replyTimeout
			}
		}
		withdraw(c, nc, s)
	}
	return nil
}
