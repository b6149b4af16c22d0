package command

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/choria-io/fisk"
	shellquote "github.com/kballard/go-shellquote"
	"github.com/nats-io/nats.go"

	"natslab/broker/text"
)

func init() {
	register(&natsCommand{name: "reply", summary: "Answer requests: a tiny service", build: buildReply})
	examples["reply"] = `reply svc.time 'it is {{Time}}'`
}

// defaultReplyQueue is the real CLI's queue group for reply, so that
// several repliers share the requests.
const defaultReplyQueue = "NATS-RPLY-22"

type replyCmd struct {
	subject string
	body    string
	echo    bool
	command string
	queue   string
	sleep   time.Duration
	headers []string
	count   uint
}

func buildReply(app *fisk.Application, c *Call) {
	r := &replyCmd{}
	cmd := app.Command("reply", "Answers every request on a subject: with a body (templates like {{Request}} and {{Count}}), an echo, or a command's output").Action(act(c, r.run))
	cmd.Arg("subject", "Subject to answer on; wildcards allowed").Required().StringVar(&r.subject)
	cmd.Arg("body", "Reply body; {{Request}} is the request's body, {{Count}} the reply number").StringVar(&r.body)
	cmd.Flag("echo", "Replies with the request itself, headers and all").UnNegatableBoolVar(&r.echo)
	cmd.Flag("command", "Replies with the output of this command, run per request ({{Request}}, and {{0}}, {{1}}… for the subject's tokens)").PlaceHolder("COMMAND").StringVar(&r.command)
	cmd.Flag("queue", "Queue group: repliers in one group share the requests").Short('q').Default(defaultReplyQueue).StringVar(&r.queue)
	cmd.Flag("sleep", "Waits a random time up to this long before each reply").PlaceHolder("MAX").DurationVar(&r.sleep)
	cmd.Flag("header", "Adds a header in K:V form to each reply; repeat for more").PlaceHolder("K:V").Short('H').StringsVar(&r.headers)
	cmd.Flag("count", "Stops after this many requests").UintVar(&r.count)
}

// run is natscli's reply: it answers every request until --count requests
// were answered or the job is stopped, then drains and exits, as the real
// CLI does (which then exits with status 1).
func (r *replyCmd) run(c *Call) error {
	if r.body == "" && r.command == "" && !r.echo {
		c.Statusf("No body or command supplied, enabling echo mode")
		r.echo = true
	}
	var command []string
	if r.command != "" {
		var err error
		if command, err = shellquote.Split(r.command); err != nil || len(command) == 0 {
			return explain(fmt.Errorf("could not parse command: %v", err), "--command is a command line, for example --command 'date -u'")
		}
	}
	nc, err := c.connectJob("natslab reply " + r.subject)
	if err != nil {
		return err
	}
	defer c.closeJob(nc)
	// The real CLI ignores a refused subscription: it says it listens,
	// and waits for requests that cannot come.
	sub, err := nc.QueueSubscribeSync(r.subject, r.queue)
	if err != nil {
		c.Notef("%s", ErrorNote(subscribeError(r.subject, err)))
		c.Statusf("Listening on %q in group %q", r.subject, r.queue)
		c.Ready()
		<-c.Ctx.Done()
		c.Statusf("\nDraining...")
		c.Statusf("Exiting")
		return c.Ctx.Err()
	}
	if r.count > 0 {
		// The server stops sending after that many; others in the group get the rest.
		sub.AutoUnsubscribe(int(r.count))
	}
	nc.Flush()
	if err := nc.LastError(); err != nil {
		return subscribeError(r.subject, err)
	}
	c.listen(r.subject, r.queue)
	c.Statusf("Listening on %q in group %q", r.subject, r.queue)
	// Its barrier: once the PONG is back, every request routed to it is
	// in the subscription; then each taken (Delivered) has been answered.
	var answered atomic.Uint64
	c.settleWith(func(ctx context.Context) error {
		if err := nc.FlushWithContext(ctx); err != nil {
			return err
		}
		return c.settleWhen(ctx, func(context.Context) (bool, error) {
			// A subscription --count ended is gone: the job ends with
			// its last answer.
			if n, _, err := sub.Pending(); err != nil || n > 0 {
				return false, nil
			}
			taken, err := sub.Delivered()
			return err == nil && uint64(taken) <= answered.Load(), nil
		})
	})
	c.Ready()
	body := newTemplate(r.body)
	pub := &publisher{headers: r.headers, headerTmpl: map[string]*msgTemplate{}}
	for i := 0; r.count == 0 || uint(i) < r.count; i++ {
		m, err := sub.NextMsgWithContext(c.Ctx)
		if err != nil {
			if c.Ctx.Err() != nil {
				break
			}
			return subscribeError(r.subject, err)
		}
		if err := r.answer(c, m, i, body, pub, command); err != nil {
			return err
		}
		answered.Add(1)
		c.handled()
	}
	nc.Flush()
	c.Statusf("\nDraining...")
	// The real CLI drains its connection; nothing is left to hand to this
	// subscription, which no longer takes requests, so draining it is
	// unsubscribing it (closeJob then waits for the server to have it).
	sub.Unsubscribe()
	c.Statusf("Exiting")
	if c.Ctx.Err() != nil {
		return c.Ctx.Err() // stopped on purpose
	}
	return errSilent
}

// answer prints request number i and replies to it, as natscli's handler
// does.
func (r *replyCmd) answer(c *Call, m *nats.Msg, i int, body *msgTemplate, pub *publisher, command []string) error {
	c.received(m.Subject, "", 0)
	c.Statusf("[#%d] Received on subject %q:", i, m.Subject)
	for k, v := range text.Headers(m.Header) {
		c.Statusf("%s: %s", k, v)
	}
	fmt.Fprintf(c.Out, "\n%s\n", m.Data)

	if r.sleep > 0 {
		t := time.NewTimer(time.Duration(rand.Int64N(int64(r.sleep))))
		select {
		case <-c.Ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
	reply := nats.NewMsg(m.Reply)
	if len(r.headers) > 0 {
		if err := pub.addHeaders(c, reply.Header, i, ""); err != nil {
			// The real CLI sends no reply then, and says nothing.
			c.Notef("no reply sent: %s", err)
			return nil
		}
	}
	switch {
	case r.echo:
		for k, vs := range m.Header {
			for _, v := range vs {
				reply.Header.Add(k, v)
			}
		}
		reply.Header.Add("NATS-Reply-Counter", strconv.Itoa(i))
		reply.Data = m.Data
	case command != nil:
		reply.Data = r.runCommand(c, m, i, command)
	default:
		text, err := body.expand(i, string(m.Data), c.Now())
		if err != nil {
			c.Statusf("Could not parse body template: %s", err)
		}
		reply.Data = []byte(text)
	}
	if err := m.RespondMsg(reply); err != nil {
		c.Statusf("Could not publish reply: %s", err)
		if errors.Is(err, nats.ErrMsgNoReply) {
			c.Notef("this message was published, not sent as a request, so there is nobody to answer (try: req %s 'hello')", m.Subject)
		}
	}
	return nil
}

// runCommand runs --command for one request and returns its output. Each
// word of the command line is expanded on its own ({{Request}}, {{Count}},
// {{0}}, {{1}}… for the subject's tokens), so a request can never add
// arguments or reach a shell. What it prints is the real CLI's, which
// expands the line as one template: one error when that template does not
// parse (and then no word is expanded), and the line as written, quotes
// and all, when the command fails. It is killed when the job stops or
// after the session's timeout, when a requester would have given up anyway.
func (r *replyCmd) runCommand(c *Call, m *nats.Msg, i int, command []string) []byte {
	tokens := strings.Split(m.Subject, ".")
	subjectTokens := func(s string) string {
		for t, tok := range tokens {
			s = strings.ReplaceAll(s, "{{"+strconv.Itoa(t)+"}}", tok)
		}
		return s
	}
	now := c.Now()
	line, err := newTemplate(subjectTokens(r.command)).expand(i, string(m.Data), now)
	expand := err == nil
	if err != nil {
		c.Statusf("Could not parse command template: %s", err)
	}
	args := make([]string, len(command))
	for n, word := range command {
		word = subjectTokens(word)
		if expand {
			if w, err := newTemplate(word).expand(i, string(m.Data), now); err == nil {
				word = w
			}
		}
		args[n] = word
	}
	ctx, cancel := context.WithTimeout(c.Ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "NATS_REQUEST_SUBJECT="+m.Subject, "NATS_REQUEST_BODY="+string(m.Data))
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.Statusf("Command %q failed to run: %s", line, err)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The real CLI would wait for it; its line says only how it ended.
			c.Notef("the command ran longer than %s, so the lab stopped it", c.timeout)
		}
	}
	return out
}
