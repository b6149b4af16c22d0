package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func init() {
	register(&natsCommand{name: "publish", aliases: []string{"pub"}, summary: "Publish a message, or many", build: buildPub})
	examples["publish"] = `pub greet "Hello NATS!"`
}

// progressThreshold is where the real CLI stops printing a line per message
// (it shows a progress bar instead; the lab prints one summary).
const progressThreshold = 20

// jsPublishWindow bounds asynchronous JetStream publishes in flight.
const jsPublishWindow = 256

type pubCmd struct {
	subject   string
	body      string
	bodyIsSet bool
	replyTo   string
	headers   []string
	count     int
	jetstream bool
	quiet     bool
	sleep     time.Duration
	jitter    time.Duration
	templates bool
}

func buildPub(app *fisk.Application, c *Call) {
	p := &pubCmd{}
	cmd := app.Command("publish", "Publishes a message to a subject; with --jetstream, waits for a stream to store it").Alias("pub").Action(act(c, p.run))
	cmd.Arg("subject", "Subject to publish to, like orders.created").Required().StringVar(&p.subject)
	cmd.Arg("body", "Message body; may use templates like {{Count}}").IsSetByUser(&p.bodyIsSet).StringVar(&p.body)
	cmd.Flag("reply", "Reply subject to send with the message").PlaceHolder("SUBJECT").StringVar(&p.replyTo)
	cmd.Flag("header", "Adds a header in K:V form; repeat for more").PlaceHolder("K:V").Short('H').StringsVar(&p.headers)
	cmd.Flag("count", "Number of messages to publish").Default("1").IntVar(&p.count)
	cmd.Flag("jetstream", "Publish to JetStream and wait for the stream's acknowledgement").Short('J').UnNegatableBoolVar(&p.jetstream)
	cmd.Flag("jitter", "Adds a random delay up to this long between messages, on top of --sleep").PlaceHolder("DURATION").DurationVar(&p.jitter)
	cmd.Flag("quiet", "Print nothing when all goes well").Short('q').UnNegatableBoolVar(&p.quiet)
	cmd.Flag("sleep", "Pause between messages").PlaceHolder("DURATION").DurationVar(&p.sleep)
	cmd.Flag("templates", "Expand templates in the body and subject").Default("true").BoolVar(&p.templates)
}

type preparedPub struct {
	subject *msgTemplate
	body    *msgTemplate
	headers []headerTemplate
}

type headerTemplate struct {
	key string
	val *msgTemplate
}

func (p *pubCmd) prepare() (*preparedPub, error) {
	if p.count < 1 {
		return nil, usageErrorf("--count must be 1 or more, got %d", p.count)
	}
	if p.sleep < 0 || p.jitter < 0 {
		return nil, usageErrorf("--sleep and --jitter cannot be negative")
	}
	pp := &preparedPub{}
	var err error
	subj, body := p.subject, p.body
	if !p.templates {
		subj, body = escapeTemplate(subj), escapeTemplate(body)
	}
	if pp.subject, err = compileTemplate(subj); err != nil {
		return nil, err
	}
	if pp.subject.t == nil {
		if err := validateSubject(p.subject, false); err != nil {
			return nil, err
		}
	}
	if pp.body, err = compileTemplate(body); err != nil {
		return nil, err
	}
	if p.replyTo != "" {
		if err := validateSubject(p.replyTo, false); err != nil {
			return nil, err
		}
	}
	for _, h := range p.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("invalid header %q: headers are K:V, for example -H Nats-Msg-Id:ord-1", h)
		}
		vt, err := compileTemplate(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		pp.headers = append(pp.headers, headerTemplate{key: strings.TrimSpace(k), val: vt})
	}
	return pp, nil
}

// escapeTemplate makes text render literally through compileTemplate.
func escapeTemplate(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return `{{"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"}}`
}

// message builds message number i (counting from 1).
func (pp *preparedPub) message(i int, replyTo string, now time.Time) (*nats.Msg, error) {
	subj, err := pp.subject.expand(i, "", now)
	if err != nil {
		return nil, err
	}
	if pp.subject.t != nil {
		if err := validateSubject(subj, false); err != nil {
			return nil, err
		}
	}
	body, err := pp.body.expand(i, "", now)
	if err != nil {
		return nil, err
	}
	m := &nats.Msg{Subject: subj, Reply: replyTo, Data: []byte(body)}
	if len(pp.headers) > 0 {
		m.Header = nats.Header{}
		for _, h := range pp.headers {
			v, err := h.val.expand(i, "", now)
			if err != nil {
				return nil, err
			}
			m.Header.Add(h.key, v)
		}
	}
	return m, nil
}

func (p *pubCmd) pause(ctx context.Context, i int) error {
	if i == 1 || (p.sleep == 0 && p.jitter == 0) {
		return ctx.Err()
	}
	d := p.sleep
	if p.jitter > 0 {
		d += time.Duration(rand.Int64N(int64(p.jitter)))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (p *pubCmd) run(c *Call) error {
	pp, err := p.prepare()
	if err != nil {
		return err
	}
	for _, h := range pp.headers {
		if note := headerCaseNote(h.key); note != "" {
			c.Notef("%s", note)
		}
	}
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	if p.jetstream {
		if p.count > progressThreshold && p.sleep == 0 && p.jitter == 0 {
			return p.runJetStreamAsync(c, nc, pp)
		}
		return p.runJetStream(c, nc, pp)
	}
	return p.runCore(c, nc, pp)
}

func (p *pubCmd) runCore(c *Call, nc *nats.Conn, pp *preparedPub) error {
	perMessage := p.count <= progressThreshold && !p.quiet
	start := time.Now()
	var bytes int
	var subject string
	for i := 1; i <= p.count; i++ {
		if err := p.pause(c.Ctx, i); err != nil {
			return err
		}
		m, err := pp.message(i, p.replyTo, c.Now())
		if err != nil {
			return err
		}
		if err := nc.PublishMsg(m); err != nil {
			return publishError(err)
		}
		bytes += len(m.Data)
		subject = m.Subject
		if perMessage {
			if err := nc.Flush(); err != nil {
				return publishError(err)
			}
			c.Statusf("Published %d bytes to %q", len(m.Data), m.Subject)
		}
	}
	if err := nc.FlushTimeout(c.S.timeout); err != nil {
		return publishError(err)
	}
	if err := nc.LastError(); err != nil {
		return publishError(err)
	}
	if !perMessage && !p.quiet {
		c.Statusf("Published %s messages (%s) to %q in %s", human(p.count), size(bytes), subject, humanDuration(time.Since(start)))
	}
	return nil
}

func (p *pubCmd) runJetStream(c *Call, nc *nats.Conn, pp *preparedPub) error {
	perMessage := p.count <= progressThreshold && !p.quiet
	var first, last uint64
	var stream string
	for i := 1; i <= p.count; i++ {
		if err := p.pause(c.Ctx, i); err != nil {
			return err
		}
		m, err := pp.message(i, p.replyTo, c.Now())
		if err != nil {
			return err
		}
		ctx, cancel := c.Timeout()
		resp, err := nc.RequestMsgWithContext(ctx, m)
		cancel()
		if err != nil {
			return storedSoFar(c.jsPublishError(m.Subject, err), i-1, p.count, stream, first, last, sentWhenFailed(err))
		}
		ack, err := parsePubAck(resp)
		if err != nil {
			return storedSoFar(err, i-1, p.count, stream, first, last, noneInFlight)
		}
		if first == 0 {
			first = ack.Sequence
		}
		last, stream = ack.Sequence, ack.Stream
		if perMessage {
			c.Statusf("Published %d bytes to %q", len(m.Data), m.Subject)
			msg := fmt.Sprintf("Stored in Stream: %s Sequence: %s", ack.Stream, human(ack.Sequence))
			if ack.Domain != "" {
				msg += fmt.Sprintf(" Domain: %q", ack.Domain)
			}
			if ack.Duplicate {
				msg += " Duplicate: true"
			}
			c.Statusf("%s", msg)
		} else if !p.quiet && i == p.count {
			c.Statusf("Published %s messages to %q, stored in Stream: %s Sequences: %s - %s", human(p.count), m.Subject, ack.Stream, human(first), human(last))
		}
	}
	return nil
}

// runJetStreamAsync publishes many messages with a bounded window of acks in
// flight: far faster than one request at a time, and every ack is checked.
func (p *pubCmd) runJetStreamAsync(c *Call, nc *nats.Conn, pp *preparedPub) error {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(jsPublishWindow), jetstream.WithPublishAsyncTimeout(c.S.timeout))
	if err != nil {
		return err
	}
	start := time.Now()
	var bytes int
	var subject, stream string
	var first, last uint64
	var failed error
	stored := 0
	collect := func(f jetstream.PubAckFuture) bool {
		select {
		case ack := <-f.Ok():
			stored++
			if first == 0 || ack.Sequence < first {
				first = ack.Sequence
			}
			if ack.Sequence > last {
				last = ack.Sequence
			}
			stream = ack.Stream
			return true
		case err := <-f.Err():
			if failed == nil {
				failed = c.jsPublishError(f.Msg().Subject, err)
			}
			return false
		}
	}
	pending := make([]jetstream.PubAckFuture, 0, jsPublishWindow)
	drain := func() {
		for _, fut := range pending {
			collect(fut)
		}
		pending = pending[:0]
	}
	for i := 1; i <= p.count && failed == nil; i++ {
		if err := c.Ctx.Err(); err != nil {
			drain()
			return err
		}
		m, err := pp.message(i, p.replyTo, c.Now())
		if err != nil {
			drain()
			return err
		}
		fut, err := js.PublishMsgAsync(m)
		if err != nil {
			drain()
			if failed == nil {
				failed = c.jsPublishError(m.Subject, err)
			}
			return storedSoFar(failed, stored, p.count, stream, first, last, windowInFlight)
		}
		pending = append(pending, fut)
		bytes += len(m.Data)
		subject = m.Subject
		if len(pending) == cap(pending) {
			drain()
		}
	}
	drain()
	if failed != nil {
		return storedSoFar(failed, stored, p.count, stream, first, last, windowInFlight)
	}
	if !p.quiet {
		c.Statusf("Published %s messages (%s) to %q in %s", human(p.count), size(bytes), subject, humanDuration(time.Since(start)))
		c.Statusf("Stored in Stream: %s Sequences: %s - %s", stream, human(first), human(last))
	}
	return nil
}

// pubAck is the stream's answer to a JetStream publish.
type pubAck struct {
	Stream    string `json:"stream"`
	Sequence  uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Domain    string `json:"domain,omitempty"`
	Error     *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error,omitempty"`
}

func parsePubAck(m *nats.Msg) (*pubAck, error) {
	var ack pubAck
	if err := json.Unmarshal(m.Data, &ack); err != nil {
		return nil, fmt.Errorf("the server's reply is not a publish acknowledgement: %q", string(m.Data))
	}
	if ack.Error != nil {
		return nil, fmt.Errorf("the stream refused the message: %s (%d)", ack.Error.Description, ack.Error.ErrCode)
	}
	if ack.Stream == "" {
		return nil, fmt.Errorf("the server's reply is not a publish acknowledgement: %q", string(m.Data))
	}
	return &ack, nil
}

// publishError explains a core publish failure.
func publishError(err error) error {
	switch {
	case errors.Is(err, nats.ErrReconnectBufExceeded), errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting):
		return fmt.Errorf("the server is not reachable right now, so nothing was published (is it restarting? try again in a moment)")
	case errors.Is(err, nats.ErrMaxPayload):
		return fmt.Errorf("the message is larger than the server's max payload: publish something smaller")
	}
	return err
}

// jsPublishError explains a failed JetStream publish: above all the common
// case where no stream captures the subject, which the real CLI reports as
// "no responders available for request".
func (c *Call) jsPublishError(subject string, err error) error {
	noAck := errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
	timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
	if (noAck || timedOut) && c.Ctx.Err() == nil {
		// A stream that captures the subject but cannot store (no leader,
		// no quorum): the real CLI's line, and what happened (failover.go).
		if why, ok := c.streamTrouble(subject); ok {
			if timedOut {
				err = nats.ErrTimeout // what the real CLI's request returns
			}
			return explain(err, "%s", why)
		}
	}
	if noAck {
		return c.noStreamCaptures(subject)
	}
	if errors.Is(err, nats.ErrDisconnected) {
		return explain(err, "the connection to the server was lost on the way (the server stopped or restarted); the client reconnects by itself: publish again")
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return fmt.Errorf("no acknowledgement from JetStream within %s: the stream may be unavailable", c.S.timeout)
	}
	return publishError(err)
}

// noStreamCaptures says why a JetStream publish to subject went nowhere.
func (c *Call) noStreamCaptures(subject string) error {
	js, err := c.JS()
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, nats.ErrNoResponders) {
			return c.jetStreamOff()
		}
	}
	var captures []string
	names := js.ListStreams(ctx)
	for info := range names.Info() {
		captures = append(captures, fmt.Sprintf("%s captures %s", info.Config.Name, strings.Join(info.Config.Subjects, ", ")))
	}
	if err := names.Err(); err != nil {
		// An empty list that failed says nothing about which streams exist.
		return fmt.Errorf("no acknowledgement from JetStream for %q, and it does not list its streams right now (%v): its servers may be electing a leader, or too few run for a quorum", subject, err)
	}
	if len(captures) == 0 {
		return fmt.Errorf("no stream captures %q, and there are no streams yet: create one with stream add EVENTS --subjects %q --defaults, or publish without --jetstream", subject, suggestFilter(subject))
	}
	return fmt.Errorf("no stream captures %q (%s): add its subject to a stream, or publish without --jetstream", subject, strings.Join(captures, "; "))
}

// suggestFilter turns orders.new into "orders.>".
func suggestFilter(subject string) string {
	if i := strings.Index(subject, "."); i > 0 {
		return subject[:i] + ".>"
	}
	return subject
}

// jetStreamOff explains that JetStream is switched off, and how to switch it on.
func (c *Call) jetStreamOff() error { return errors.New(c.jetStreamOffNote()) }

// jetStreamOffNote says JetStream is switched off, and how to switch it on.
func (c *Call) jetStreamOffNote() string {
	if c.S.dep.Own() {
		return "JetStream is off on the lab's server: turn it on with nats-server -js"
	}
	return "JetStream is not enabled for this account on the server the lab is connected to"
}
