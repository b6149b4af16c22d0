package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/text"
)

func init() {
	register(&natsCommand{name: "publish", aliases: []string{"pub"}, summary: "Publish a message, or many", build: buildPub})
	examples["publish"] = `pub greet "Hello NATS!"`
}

// pubCmd is natscli's pub: what the line asked for. Scheduled messages
// and atomic batches are the real CLI's to run (the lab declares neither).
type pubCmd struct {
	subject    string
	body       string
	bodyIsSet  bool
	replyTo    string
	headers    []string
	count      int
	forceStdin bool
	jetstream  bool
	quiet      bool
	sleep      time.Duration
	jitter     time.Duration
	sendOn     string
	templates  bool

	lastPub time.Time
	// earlier is the shared connection's last error when the line began:
	// one from an earlier line, which natscli, on a connection of its
	// own, never sees.
	earlier error
}

func buildPub(app *fisk.Application, c *Call) {
	p := &pubCmd{}
	cmd := app.Command("publish", "Publishes a message to a subject; with --jetstream, waits for a stream to store it").Alias("pub").Action(act(c, p.run))
	cmd.Arg("subject", "Subject to publish to, like orders.created").Required().StringVar(&p.subject)
	cmd.Arg("body", "Message body; may use templates like {{Count}}").IsSetByUser(&p.bodyIsSet).StringVar(&p.body)
	cmd.Flag("reply", "Reply subject to send with the message").PlaceHolder("SUBJECT").StringVar(&p.replyTo)
	cmd.Flag("header", "Adds a header in K:V form; repeat for more").PlaceHolder("K:V").Short('H').StringsVar(&p.headers)
	cmd.Flag("count", "Number of messages to publish").Default("1").IntVar(&p.count)
	cmd.Flag("force-stdin", "Read the body from standard input, which the lab leaves empty").UnNegatableBoolVar(&p.forceStdin)
	cmd.Flag("jetstream", "Publish to JetStream and wait for the stream's acknowledgement").Short('J').UnNegatableBoolVar(&p.jetstream)
	cmd.Flag("jitter", "Adds a random delay up to this long between messages, on top of --sleep").PlaceHolder("DURATION").DurationVar(&p.jitter)
	cmd.Flag("quiet", "Print nothing when all goes well").Short('q').UnNegatableBoolVar(&p.quiet)
	cmd.Flag("send-on", "When to send what standard input holds: eof or newline").Default("eof").EnumVar(&p.sendOn, "newline", "eof")
	cmd.Flag("sleep", "Pause between messages").DurationVar(&p.sleep)
	cmd.Flag("templates", "Expand templates in the body and subject").Default("true").BoolVar(&p.templates)
}

// publisher is natscli's Publisher, shared by pub and request: the body,
// subject and header templates, standard input, and the progress bar.
type publisher struct {
	subject, body *msgTemplate
	headers       []string
	headerTmpl    map[string]*msgTemplate
	templates     bool
	useStdin      bool
	sendOnNewLine bool
	progress      *progressBar
}

// newPublisher is natscli's NewPublisher. The lab gives commands no
// standard input: a line without a body reads an empty one, as the real
// CLI does from a pipe that holds nothing.
func newPublisher(c *Call, subject, body string, bodyIsSet bool, headers []string, count int, raw, templates bool, sendOn string) *publisher {
	p := &publisher{subject: newTemplate(subject), body: newTemplate(body), headers: headers, headerTmpl: map[string]*msgTemplate{},
		templates: templates, useStdin: !bodyIsSet, sendOnNewLine: sendOn == "newline"}
	if count > progressMin && !raw {
		p.progress = newProgressBar(c.Out, count)
	}
	return p
}

// stop ends the progress bar, if any, once its last frame is drawn.
func (p *publisher) stop() {
	if p.progress != nil {
		p.progress.Stop()
	}
}

// stdinBody is what standard input gives: nothing, and end of file. With
// --send-on newline there is then nothing to send at all.
func (p *publisher) stdinBody() (body string, nothing bool) {
	return "", p.sendOnNewLine
}

// parseTemplates is natscli's ParseTemplates: the body and subject of
// message i, with the real CLI's line for a template that fails (which it
// then sends as typed).
func (p *publisher) parseTemplates(c *Call, body string, i int) (string, string) {
	if !p.templates {
		return body, p.subject.text
	}
	if body != p.body.text {
		p.body = newTemplate(body)
	}
	now := c.Now()
	b, berr := p.body.expand(i, "", now)
	s, serr := p.subject.expand(i, "", now)
	if berr != nil {
		c.Statusf("Could not parse body template: %s", berr)
		c.Notef("templates look like {{Count}}, {{TimeStamp}}, {{ID}} or {{Random 5 10}}; the body was sent as typed")
	}
	if serr != nil {
		c.Statusf("Could not parse subject template: %s", serr)
	}
	return b, s
}

// prepareMsg is natscli's PrepareMsg: the message with its headers, each
// K:V, whose values may be templates.
func (p *publisher) prepareMsg(c *Call, subj, replyTo string, body []byte, seq int) (*nats.Msg, error) {
	msg := nats.NewMsg(subj)
	msg.Reply = replyTo
	msg.Data = body
	if err := p.addHeaders(c, msg.Header, seq, ""); err != nil {
		return nil, err
	}
	return msg, nil
}

// addHeaders is natscli's parseStringsToHeader.
func (p *publisher) addHeaders(c *Call, h nats.Header, seq int, request string) error {
	for _, hdr := range p.headers {
		k, v, ok := strings.Cut(hdr, ":")
		if !ok {
			return explain(fmt.Errorf("invalid header %q", hdr), "headers are K:V, for example -H Nats-Msg-Id:ord-1")
		}
		t := p.headerTmpl[hdr]
		if t == nil {
			t = newTemplate(strings.TrimSpace(v))
			p.headerTmpl[hdr] = t
		}
		val, err := t.expand(seq, request, c.Now())
		if err != nil {
			return fmt.Errorf("failed to parse Header template for %s: %s", k, err)
		}
		h.Add(strings.TrimSpace(k), val)
	}
	return nil
}

// pause is natscli's pauseBetweenPublishes: publishes --sleep (plus up to
// --jitter) apart, counted from when the previous one began.
func (p *pubCmd) pause(ctx context.Context) error {
	defer func() { p.lastPub = time.Now() }()
	if p.lastPub.IsZero() {
		return ctx.Err()
	}
	d := p.sleep
	if p.jitter > 0 {
		d += rand.N(p.jitter)
	}
	st := d - time.Since(p.lastPub)
	if st <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(st)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// run is natscli's publishAction.
func (p *pubCmd) run(c *Call) error {
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	p.earlier = nc.LastError()
	if p.count < 1 {
		p.count = 1
	}
	pub := newPublisher(c, p.subject, p.body, p.bodyIsSet, p.headers, p.count, false, p.templates, p.sendOn)
	defer pub.stop()
	for _, h := range p.headers {
		if k, _, ok := strings.Cut(h, ":"); ok {
			if note := headerCaseNote(strings.TrimSpace(k)); note != "" {
				c.Notef("%s", note)
			}
		}
	}
	if pub.useStdin && !p.quiet {
		c.Statusf("Reading payload from STDIN")
		c.Notef("the lab gives commands no standard input, so the body is empty: put it on the line, for example pub %s 'hello'", p.subject)
	}
	if pub.useStdin {
		body, nothing := pub.stdinBody()
		if nothing {
			return nil
		}
		p.body = body
	}
	if p.jetstream {
		return p.publishJetStream(c, nc, pub)
	}
	return p.publishCore(c, nc, pub)
}

// publishCore is natscli's publishNatsMsg.
func (p *pubCmd) publishCore(c *Call, nc *nats.Conn, pub *publisher) error {
	for i := 1; i <= p.count; i++ {
		body, subj := pub.parseTemplates(c, p.body, i)
		msg, err := pub.prepareMsg(c, subj, p.replyTo, []byte(body), i)
		if err != nil {
			return err
		}
		if err := p.pause(c.Ctx); err != nil {
			return err
		}
		c.S.emit(Event{Kind: Published, Job: c.Job.ID, Line: c.Job.Line, Subject: subj})
		if err := nc.PublishMsg(msg); err != nil {
			return c.publishError(err, msg)
		}
		nc.Flush()
		if err := nc.LastError(); err != nil && err != p.earlier {
			if errors.Is(err, nats.ErrPermissionViolation) {
				c.printViolation(err)
			}
			return c.publishError(err, msg)
		}
		if pub.progress != nil {
			pub.progress.Increment()
		} else if !p.quiet {
			c.Statusf("Published %d bytes to %q", len(body), subj)
		}
		if i == 1 {
			if note := publishNote(subj); note != "" {
				c.Notef("%s", note)
			}
		}
	}
	c.awaitStored()
	return nil
}

// awaitStored waits until the lab's servers have stored what their streams
// took in and told their consumers of it (a stream acknowledges a
// JetStream publish before that): the real CLI's next command is a
// process started later, which never finds a stream still storing the
// last publish or a consumer not yet counting it; the lab's next line may
// come at once.
func (c *Call) awaitStored() {
	c.awaitDrained((*broker.Monitor).StreamIngest)
}

// awaitDrained waits, up to the call's timeout, until every one of the
// lab's servers says it has nothing left of the work that pending counts.
func (c *Call) awaitDrained(pending func(*broker.Monitor) int) {
	ms := c.S.dep.Monitors()
	broker.WaitFor(c.timeout, func() bool {
		for _, m := range ms {
			if pending(m) > 0 {
				return false
			}
		}
		return true
	})
}

// jsPublishWindow is how many JetStream publishes are on their way at
// once: one, as the real CLI publishes, each waiting for its
// acknowledgement.
const jsPublishWindow = 1

// publishJetStream is natscli's doJetstream: one request at a time, each
// waiting for the stream's acknowledgement.
func (p *pubCmd) publishJetStream(c *Call, nc *nats.Conn, pub *publisher) error {
	var first, last uint64
	var stream string
	for i := 1; i <= p.count; i++ {
		if err := p.pause(c.Ctx); err != nil {
			return err
		}
		body, subj := pub.parseTemplates(c, p.body, i)
		msg, err := pub.prepareMsg(c, subj, p.replyTo, []byte(body), i)
		if err != nil {
			return err
		}
		if pub.progress == nil && !p.quiet {
			c.Statusf("Published %d bytes to %q", len(body), subj)
		}
		ctx, cancel := c.Timeout()
		resp, err := nc.RequestMsgWithContext(ctx, msg)
		cancel()
		if err != nil {
			return storedSoFar(c.jsPublishError(err, msg), i-1, p.count, stream, first, last, sentWhenFailed(err))
		}
		ack, err := jsm.ParsePubAck(resp)
		if err != nil {
			by := c.refused(subj, resp, err)
			return storedSoFar(c.refusalNote(err, msg, by), i-1, p.count, stream, first, last, noneInFlight)
		}
		if first == 0 {
			first = ack.Sequence
		}
		last, stream = ack.Sequence, ack.Stream
		if pub.progress != nil {
			pub.progress.Increment()
		} else if !p.quiet {
			line := fmt.Sprintf("Stored in Stream: %s Sequence: %s", ack.Stream, human(ack.Sequence))
			if ack.Domain != "" {
				line += fmt.Sprintf(" Domain: %q", ack.Domain)
			}
			if ack.Duplicate {
				line += " Duplicate: true"
			}
			if ack.Value != "" {
				line += fmt.Sprintf(" Counter Value: %s", ack.Value)
			}
			c.Statusf("%s", line)
		}
	}
	c.awaitStored()
	return nil
}

// refused tells the observer that a stream answered a JetStream publish
// with an error, and returns that stream: the answer names it (a PubAck
// with its error). "" when the answer names none.
func (c *Call) refused(subject string, resp *nats.Msg, err error) (stream string) {
	var answer struct {
		Stream string `json:"stream"`
		Error  *struct {
			ErrCode uint16 `json:"err_code"`
		} `json:"error"`
	}
	if json.Unmarshal(resp.Data, &answer) != nil || answer.Error == nil || answer.Stream == "" {
		return ""
	}
	c.S.emit(Event{Kind: PublishRefused, Job: c.Job.ID, Line: c.Job.Line, Subject: subject, Stream: answer.Stream, Err: err, Code: answer.Error.ErrCode})
	return answer.Stream
}

// JetStream's refusals of a publish for a stream's limits (nats errors ls).
const (
	pubErrCodeTooLarge = 10054 // message size exceeds maximum allowed
	pubErrCodeLimit    = 10077 // maximum messages, bytes or messages per subject exceeded (discard new)
)

// refusalNote adds the lab's note to a stream's refusal of msg: which of
// the stream's limits it met, read from the stream, and what to type
// instead.
func (c *Call) refusalNote(err error, msg *nats.Msg, stream string) error {
	code := apiErrorCode(err)
	if stream == "" || (code != pubErrCodeTooLarge && code != pubErrCodeLimit) {
		return c.explainAPI(err)
	}
	defer c.labAsks()() // what follows asks only for the note
	mgr, merr := c.manager()
	if merr != nil {
		return err
	}
	st, lerr := mgr.LoadStream(stream)
	if lerr != nil {
		return err
	}
	cfg := st.Configuration()
	if code == pubErrCodeTooLarge {
		n, with := msgSize(msg), ""
		if len(msg.Header) > 0 {
			with = " with its headers"
		}
		if cfg.MaxMsgSize > 0 && int64(n) > int64(cfg.MaxMsgSize) {
			return explain(err, "stream %s takes messages of at most %s (its --max-msg-size), and this one is %s%s: publish a smaller one, or lift the limit (stream edit %s --max-msg-size=-1 --force; the server's max_payload, %s, still holds)", stream, size(cfg.MaxMsgSize), size(n), with, stream, size(c.maxPayload()))
		}
		return explain(err, "the message is %s%s, and the server takes at most %s in one message (its max_payload): publish a smaller one", size(n), with, size(c.maxPayload()))
	}
	room := fmt.Sprintf("or let the stream remove its oldest messages instead (stream edit %s --discard old --force)", stream)
	switch desc := err.Error(); {
	case strings.Contains(desc, "per subject"):
		held := "as many messages"
		if info, ierr := st.Information(api.JSApiStreamInfoRequest{SubjectsFilter: msg.Subject}); ierr == nil {
			held = text.Count(int(info.State.Subjects[msg.Subject]), "message", "messages")
		}
		return explain(err, "stream %s holds %s on %s, and its --max-msgs-per-subject is %d; with --discard-per-subject it refuses more on that subject: make room (stream purge %s --subject %s --force), raise the limit (stream edit %s --max-msgs-per-subject N --force), or let it remove the subject's oldest instead (stream edit %s --no-discard-per-subject --force)",
			stream, held, msg.Subject, cfg.MaxMsgsPer, stream, msg.Subject, stream, stream)
	case strings.Contains(desc, "bytes"):
		state, serr := st.State()
		if serr != nil {
			return err
		}
		if state.Msgs == 0 {
			return explain(err, "stream %s is empty, and its --max-bytes is %s: this message, stored with its subject and headers, is larger than that alone: publish a smaller one, or raise the limit (stream edit %s --max-bytes SIZE --force)",
				stream, size(cfg.MaxBytes), stream)
		}
		return explain(err, "stream %s stores %s in %s, and its --max-bytes is %s: this message, stored with its subject and headers, would go past that, and with --discard new the stream refuses it: make room (stream purge %s --force), raise the limit (stream edit %s --max-bytes SIZE --force), %s",
			stream, size(state.Bytes), text.Count(int(state.Msgs), "message", "messages"), size(cfg.MaxBytes), stream, stream, room)
	case strings.Contains(desc, "messages"):
		state, serr := st.State()
		if serr != nil {
			return err
		}
		return explain(err, "stream %s holds %s, and its --max-msgs is %d; with --discard new it refuses new messages once full: make room (stream purge %s --force), raise the limit (stream edit %s --max-msgs N --force), %s",
			stream, text.Count(int(state.Msgs), "message", "messages"), cfg.MaxMsgs, stream, stream, room)
	}
	return err
}

// publishError adds the lab's note to a failed core publish: the real
// CLI prints nats.go's error as it is.
func (c *Call) publishError(err error, msg *nats.Msg) error {
	switch {
	case controlLine(msg) > server.MAX_CONTROL_LINE_SIZE:
		// The server closes the connection on a protocol line it cannot
		// take: nats.go reports that, or the closed connection after it.
		return explain(err, "the subject, reply subject and headers' sizes travel on one protocol line, which the server caps at %d bytes (its max_control_line): the subject here is %s long", server.MAX_CONTROL_LINE_SIZE, size(len(msg.Subject)))
	case errors.Is(err, nats.ErrMaxPayload):
		return explain(err, "the message is %s with its headers; the server takes at most %s (its max_payload): publish something smaller", size(msgSize(msg)), size(c.maxPayload()))
	case errors.Is(err, nats.ErrBadSubject), errors.Is(err, nats.ErrInvalidMsg):
		return explain(err, "%s", subjectNote(msg.Subject, false))
	case errors.Is(err, nats.ErrDisconnected):
		return explain(err, "the connection to the server was lost on the way (the server stopped or restarted); the client reconnects by itself: publish again")
	case errors.Is(err, nats.ErrReconnectBufExceeded), errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting):
		return explain(err, "the server is not reachable right now, so nothing was published (is it restarting? try again in a moment)")
	}
	return err
}

// controlLine is the length of the protocol line that carries msg: PUB
// subject reply size, or HPUB subject reply header-size total-size.
func controlLine(msg *nats.Msg) int {
	n := len("PUB  ") + len(msg.Subject) + len(msg.Reply) + len(strconv.Itoa(msg.Size())) + len("\r\n")
	if len(msg.Header) > 0 {
		n += len("H ") + len(strconv.Itoa(msg.Size()))
	}
	return n
}

// msgSize is the size of a message as max_payload counts it: its body and
// headers.
func msgSize(msg *nats.Msg) int {
	n := len(msg.Data)
	if len(msg.Header) > 0 {
		for k, vs := range msg.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		n += len("NATS/1.0\r\n\r\n")
	}
	return n
}

// maxPayload is the most the server accepts in one message.
func (c *Call) maxPayload() int64 {
	nc, err := c.Conn()
	if err != nil {
		return 0
	}
	return nc.MaxPayload()
}

// jsPublishError adds the lab's note to a failed JetStream publish: above
// all the common case where no stream captures the subject, which the real
// CLI reports as nats.go's "no responders available for request".
func (c *Call) jsPublishError(err error, msg *nats.Msg) error {
	noAck := errors.Is(err, nats.ErrNoResponders)
	timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
	if timedOut {
		err = nats.ErrTimeout // what the real CLI's request returns
	}
	defer c.labAsks()() // what follows asks only for the notes
	if (noAck || timedOut) && c.Ctx.Err() == nil {
		// A stream that captures the subject but cannot store (no leader,
		// no quorum): the real CLI's line, and what happened (failover.go).
		if why, ok := c.streamTrouble(msg.Subject); ok {
			if timedOut && why == c.jetStreamOffNote() {
				why += "; " + waitedNote(strconv.Quote(msg.Subject))
			}
			return explain(err, "%s", why)
		}
	}
	if noAck {
		if note := c.noStreamCapturesNote(msg.Subject); note != "" {
			return explain(err, "%s", note)
		}
	}
	if timedOut && c.Ctx.Err() == nil {
		if note := c.heardButUnstoredNote(msg.Subject); note != "" {
			return explain(err, "%s", note)
		}
	}
	if timedOut {
		return explain(err, "no acknowledgement from JetStream within %s: the stream may be unavailable", c.timeout)
	}
	return c.publishError(err, msg)
}

// heardButUnstoredNote explains a JetStream publish that timed out where
// no stream captures its subject: a plain subscriber there received it,
// so the server had a responder and did not say "no responders", but
// only a stream acknowledges. "" when a stream does capture it (or
// JetStream does not say).
func (c *Call) heardButUnstoredNote(subject string) string {
	mgr, err := c.manager()
	if err != nil || !mgr.IsJetStreamEnabled() {
		return ""
	}
	if names, err := mgr.StreamNames(&jsm.StreamNamesFilter{Subject: subject}); err != nil || len(names) > 0 {
		return ""
	}
	if m := c.S.dep.Monitor(); m != nil && m.Interest(subject) == 0 {
		return "" // nobody there either: the wait was something else
	}
	note := c.noStreamCapturesNote(subject)
	if note == "" {
		return ""
	}
	return note + "; " + waitedNote("it")
}

// waitedNote says why a JetStream publish to subject that no stream
// stores waits out its timeout instead of hearing "no responders".
func waitedNote(subject string) string {
	return "it waited because something subscribes to " + subject + ": a subscriber receives the message but never acknowledges, only a stream does"
}

// noStreamCapturesNote says why a JetStream publish to subject went
// nowhere: no stream captures it, and which streams capture what.
func (c *Call) noStreamCapturesNote(subject string) string {
	mgr, err := c.manager()
	if err != nil {
		return ""
	}
	if !mgr.IsJetStreamEnabled() {
		return c.jetStreamOffNote()
	}
	streams, _, _, err := mgr.Streams(nil)
	if err != nil {
		// A listing that failed says nothing about which streams exist.
		return fmt.Sprintf("no acknowledgement from JetStream for %q, and it does not list its streams right now (%v): its servers may be electing a leader, or too few run for a quorum", subject, err)
	}
	var captures []string
	for _, st := range streams {
		captures = append(captures, captureNote(st))
	}
	if len(captures) == 0 {
		return fmt.Sprintf("no stream captures %q, and there are no streams yet: create one with stream add EVENTS --subjects %q --defaults, or publish without --jetstream", subject, suggestFilter(subject))
	}
	return fmt.Sprintf("no stream captures %q (%s): add its subject to a stream, or publish without --jetstream", subject, strings.Join(captures, "; "))
}

// captureNote says what a stream captures: a mirror or a stream that
// only sources others captures no subjects, it copies.
func captureNote(st *jsm.Stream) string { return st.Name() + " " + capturing(st, false) }

// capturing is what a stream captures, as a verb ("captures orders.>",
// "mirrors ORDERS, capturing no subjects"), or with ing its participle
// ("capturing orders.>", "mirroring ORDERS, capturing no subjects").
func capturing(st *jsm.Stream, ing bool) string {
	verb := func(s, ed string) string {
		if ing {
			return ed
		}
		return s
	}
	if subjects := st.Subjects(); len(subjects) > 0 {
		return verb("captures ", "capturing ") + strings.Join(subjects, ", ")
	}
	if st.IsMirror() {
		return verb("mirrors ", "mirroring ") + st.Mirror().Name + ", capturing no subjects"
	}
	var from []string
	for _, src := range st.Sources() {
		from = append(from, src.Name)
	}
	if len(from) > 0 {
		return verb("copies from ", "copying from ") + joinAnd(from) + ", capturing no subjects"
	}
	return verb("captures", "capturing") + " no subjects"
}

// suggestFilter turns orders.new into "orders.>".
func suggestFilter(subject string) string {
	if i := strings.Index(subject, "."); i > 0 {
		return subject[:i] + ".>"
	}
	return subject
}

// jetStreamOff is err, the library's error as the real CLI prints it, with
// the lab's note that JetStream is switched off, and how to switch it on.
func (c *Call) jetStreamOff(err error) error { return explain(err, "%s", c.jetStreamOffNote()) }

// jetStreamOffNote says JetStream is switched off, and how to switch it on.
func (c *Call) jetStreamOffNote() string {
	if c.S.dep.Own() {
		return "JetStream is off on the lab's server: turn it on with nats-server -js"
	}
	return "JetStream is not enabled for this account on the server the lab is connected to"
}
