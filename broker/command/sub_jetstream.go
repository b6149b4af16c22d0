package command

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// runJetStream reads messages from the stream that stores them: through a
// consumer of its own (limits streams), a durable consumer (--durable), or
// direct gets (work-queue and interest streams, where a consumer would
// take the messages away, and --direct).
func (s *subCmd) runJetStream(c *Call, nc *nats.Conn, sk *subSink) error {
	if _, err := c.jsHelper(); err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	filter := s.firstSubjectOr("")
	if s.stream == "" {
		ctx, cancel := c.Timeout()
		s.stream, err = js.StreamNameBySubject(ctx, filter)
		cancel()
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return explain(fmt.Errorf("no stream found with subject: %s", filter), "%s", c.noStreamForNote(js, filter, s.streamFlags()))
		}
		if err != nil {
			return c.jsError(err)
		}
	}
	ctx, cancel := c.Timeout()
	st, err := js.Stream(ctx, s.stream)
	cancel()
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		mgr, merr := c.manager()
		if merr == nil {
			if names, lerr := mgr.StreamNames(nil); lerr == nil {
				return explain(err, "%s", streamChoiceNote(s.stream, names))
			}
		}
		return err
	}
	if errors.Is(err, jetstream.ErrInvalidStreamName) {
		return explain(err, "stream names cannot hold spaces, dots, * or > (for example ORDERS)")
	}
	if err != nil {
		return c.jsError(err)
	}
	if s.direct && s.durable != "" {
		return explain(errors.New("cannot use direct get when a durable name is supplied"), "--direct reads without a consumer, so it cannot go with --durable: drop one of them")
	}
	cfg := st.CachedInfo().Config
	s.direct = s.durable == "" && (s.direct || cfg.Retention == jetstream.WorkQueuePolicy || cfg.Retention == jetstream.InterestPolicy)
	if s.direct && !cfg.AllowDirect {
		return explain(fmt.Errorf("cannot enable direct gets: allow_direct is not set to true for stream %s", s.stream),
			"a %s stream is read without a consumer, by direct gets, so that reading takes nothing away; allow them with stream edit %s --allow-direct --force", strings.ToLower(cfg.Retention.String()), s.stream)
	}
	if filter != "" && len(cfg.Subjects) > 0 && !collidesAny(filter, cfg.Subjects) {
		c.Notef("stream %s stores %s, so it holds nothing on %q", s.stream, strings.Join(cfg.Subjects, ", "), filter)
	}
	if s.since != "" {
		if _, err := s.sinceDuration(); err != nil {
			return err
		}
	}
	switch {
	case s.durable != "":
		return s.runDurable(c, js, st, sk)
	case s.direct:
		return s.runDirect(c, nc, js, st, filter, sk)
	}
	return s.runEphemeral(c, nc, st, filter, sk)
}

// streamFlags names the flags that made sub read a stream, for notes.
func (s *subCmd) streamFlags() string {
	flags := s.deliverFlags()
	if s.direct {
		flags = append(flags, "--direct")
	}
	if len(flags) == 0 {
		return "the stream flags"
	}
	return strings.Join(flags, " ")
}

// noStreamForNote says that no stream stores subject, and what does exist;
// flags are what to drop for live messages instead.
func (c *Call) noStreamForNote(js jetstream.JetStream, subject, flags string) string {
	ctx, cancel := c.Timeout()
	defer cancel()
	var captures []string
	l := js.ListStreams(ctx)
	for info := range l.Info() {
		captures = append(captures, fmt.Sprintf("%s stores %s", info.Config.Name, strings.Join(info.Config.Subjects, ", ")))
	}
	if len(captures) == 0 {
		return fmt.Sprintf("there are no streams yet, so nothing was stored; create one with stream add EVENTS --subjects %q --defaults, or drop %s to receive live messages", suggestFilter(subject), flags)
	}
	sort.Strings(captures)
	return fmt.Sprintf("%s: subscribe to a stored subject, or drop %s to receive live messages", strings.Join(captures, "; "), flags)
}

func collidesAny(subject string, subjects []string) bool {
	for _, s := range subjects {
		if server.SubjectsCollide(subject, s) {
			return true
		}
	}
	return false
}

// startStatus is the real CLI's line saying where a consumer starts.
func (s *subCmd) startStatus(c *Call, subject string) {
	suffix := s.statusSuffix()
	switch {
	case s.startSeq > 0:
		c.Statusf("Subscribing to subject %s starting at sequence %d %s", subject, s.startSeq, suffix)
	case s.last:
		c.Statusf("Subscribing to subject %s from last received message %s", subject, suffix)
	case s.all:
		c.Statusf("Subscribing to subject %s from first received message %s", subject, suffix)
	case s.deliverNew:
		c.Statusf("Subscribing to subject %s for new messages %s", subject, suffix)
	case s.since != "":
		c.Statusf("Subscribing to subject %s since %s %s", subject, human(s.sinceDur), suffix)
	case s.lastPerSubject:
		c.Statusf("Subscribing to subject %s for last message per subject %s", subject, suffix)
	}
}

// runEphemeral reads as natscli does: through a consumer of its own, made
// for this read (a name the client library makes up, no durable name, no
// acks, filtered on the subject or on ">"), pulled from. Like any
// ephemeral consumer, the server removes it once it has been idle for 5s
// after the read ends. A user the server refuses the pull
// ($JS.API.CONSUMER.MSG.NEXT.…) gets natscli's error, and no message.
func (s *subCmd) runEphemeral(c *Call, nc *nats.Conn, st jetstream.Stream, filter string, sk *subSink) error {
	if filter == "" {
		filter = ">"
	}
	s.startStatus(c, filter)
	cfg := jetstream.ConsumerConfig{AckPolicy: jetstream.AckNonePolicy, HeadersOnly: s.headersOnly || s.subjectsOnly, FilterSubject: filter}
	s.consumerStart(c, &cfg)
	ctx, cancel := c.Timeout()
	cons, err := st.CreateConsumer(ctx, cfg)
	cancel()
	if err != nil {
		return c.consumerError(fmt.Errorf("failed to create consumer: %w", err))
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { sk.pulled(m, false) }, s.ephemeralPull(nc))
	if err != nil {
		return c.consumerError(err)
	}
	defer stopConsumer(c, sk, cc)
	if err := c.endOnViolation(nc); err != nil {
		if errors.Is(err, nats.ErrPermissionViolation) {
			c.Notef("the server refuses this user the pull (a publish to %s): the nats CLI reads a stream by pulling from a consumer, so it stops here, and no message comes", pullSubjectOf(cons))
		}
		return err
	}
	c.listen(filter, "")
	c.settleWith(func(ctx context.Context) error { return sk.settled(ctx, cons.Info) })
	if info := cons.CachedInfo(); s.terminate && info.NumPending == 0 && info.Delivered.Consumer == 0 {
		// -T on a stream with nothing to deliver ends now: no message will
		// come to say pending is 0.
		s.nothingToRead(c, filter)
		sk.finish(nil)
	}
	c.Ready()
	return s.await(c, sk)
}

// ephemeralPullBytes is how many bytes of messages a consumer of sub's own
// may have in flight to the client; ephemeralPullSlack is room for the
// subject and reply a delivery carries beyond the server's max_payload.
const (
	ephemeralPullBytes = 8 << 20
	ephemeralPullSlack = 64 << 10
)

// ephemeralPull is how a consumer of sub's own is pulled from. natscli
// pulls 500 messages at a time (nats.go's default) and asks for more once
// half of them are handled; a replay of many small messages then often
// waits for the next batch, more so on a busy machine. A byte budget keeps
// many more small messages in flight and bounds what the client holds
// whatever their size; it must take the largest message the server
// accepts, as the server never delivers a message larger than a pull's
// max_bytes. Nothing is acknowledged, so what was fetched and not shown
// when the sub ends goes with the consumer. With --count the pull asks for
// no more than the count, and at most 500, as natscli's does.
func (s *subCmd) ephemeralPull(nc *nats.Conn) jetstream.PullConsumeOpt {
	if s.count > 0 {
		return jetstream.PullMaxMessages(int(min(s.count, pullBatch)))
	}
	return jetstream.PullMaxBytes(max(ephemeralPullBytes, int(nc.MaxPayload())+ephemeralPullSlack))
}

// pullSubjectOf is where a pull from cons is published.
func pullSubjectOf(cons jetstream.Consumer) string {
	info := cons.CachedInfo()
	return fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", info.Stream, info.Name)
}

// stopConsumer stops an ephemeral consumer's deliveries: nothing is
// acknowledged, so what was fetched and not shown is simply dropped.
func stopConsumer(c *Call, sk *subSink, cc jetstream.ConsumeContext) {
	sk.stop()
	cc.Stop()
	select {
	case <-cc.Closed():
	case <-time.After(c.timeout):
	}
}

// nothingToRead ends -T where there is nothing to read, with a note: the
// real CLI keeps waiting there (its -T acts on a message that says none
// is left, and none comes).
func (s *subCmd) nothingToRead(c *Call, subject string) {
	const waits = "; the real CLI would wait here for a message that never comes, the lab ends"
	switch {
	case s.deliverNew:
		c.Notef("--new waits for messages stored from now on, so -T has nothing to end on%s", waits)
	case s.startSeq > 0:
		c.Notef("stream %s holds no messages on %s from sequence %d on%s", s.stream, subject, s.startSeq, waits)
	case s.since != "":
		c.Notef("stream %s holds no messages on %s stored in the last %s%s", s.stream, subject, human(s.sinceDur), waits)
	default:
		c.Notef("stream %s holds no messages on %s%s", s.stream, subject, waits)
	}
}

// consumerError adds the lab's note to the server's refusal of a consumer.
func (c *Call) consumerError(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return explain(err, "the server refused the consumer: %s", apiErr.Description)
	}
	return c.jsError(err)
}

// pullBatch is how many messages a durable consumer may hold in the
// client; --count lowers it, so that few messages are fetched past the
// count. (The real CLI fetches 500 and prints those it already holds when
// --count is reached, as many as the timing gives: the lab stops at the
// count.)
const pullBatch = 500

// runDurable reads through a named consumer, created when missing. As the
// real CLI does, a new one is created with a name and no durable name, and
// without acks: the server treats it as ephemeral and removes it once it has
// been idle for its inactive threshold (5s), however "durable" the flag
// sounds. An existing consumer is read as it is configured.
func (s *subCmd) runDurable(c *Call, js jetstream.JetStream, st jetstream.Stream, sk *subSink) error {
	ctx, cancel := c.Timeout()
	defer cancel()
	s.startStatus(c, ">")
	sk.consumer = s.durable
	cons, err := st.Consumer(ctx, s.durable)
	if errors.Is(err, jetstream.ErrNotPullConsumer) {
		return s.runPushDurable(c, js, sk)
	}
	var info *jetstream.ConsumerInfo
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		cfg := jetstream.ConsumerConfig{Name: s.durable, AckPolicy: jetstream.AckNonePolicy, HeadersOnly: s.headersOnly || s.subjectsOnly, FilterSubject: ">"}
		s.consumerStart(c, &cfg)
		if cons, err = st.CreateConsumer(ctx, cfg); err != nil {
			return c.consumerError(fmt.Errorf("failed to create durable consumer %q: %w", s.durable, err))
		}
		if info, err = cons.Info(ctx); err != nil {
			return fmt.Errorf("error fetching consumer info: %w", err)
		}
	case errors.Is(err, jetstream.ErrInvalidConsumerName):
		return explain(fmt.Errorf("error loading durable consumer %q: %w", s.durable, err), "consumer names cannot hold spaces, dots, * or > (for example NEW)")
	case err != nil:
		return c.jsError(fmt.Errorf("error loading durable consumer %q: %w", s.durable, err))
	default:
		if info, err = cons.Info(ctx); err != nil {
			return fmt.Errorf("error fetching consumer info: %w", err)
		}
		c.Statusf("Subscribing to JetStream Stream %q using existing pull consumer %q", s.stream, s.durable)
	}
	if len(info.Config.FilterSubjects) > 1 {
		return explain(errors.New("cannot subscribe to multi filter consumers"), "consumer %s filters on %s; read it with consumer next %s %s", s.durable, strings.Join(info.Config.FilterSubjects, ", "), s.stream, s.durable)
	}
	ack := info.Config.AckPolicy != jetstream.AckNonePolicy
	batch := pullBatch
	if s.count > 0 && int(s.count) < batch {
		batch = int(s.count)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { sk.pulled(m, ack) }, jetstream.PullMaxMessages(batch))
	if err != nil {
		return c.consumerError(err)
	}
	defer drainConsumer(c, sk, cc)
	if err := c.endOnViolation(js.Conn()); err != nil {
		if errors.Is(err, nats.ErrPermissionViolation) {
			c.Notef("the server refuses this user the pull (a publish to %s): no message can come", pullSubjectOf(cons))
		}
		return err
	}
	return s.follow(c, sk, info, cons.Info)
}

// runPushDurable reads through an existing push consumer.
func (s *subCmd) runPushDurable(c *Call, js jetstream.JetStream, sk *subSink) error {
	ctx, cancel := c.Timeout()
	defer cancel()
	pc, err := js.PushConsumer(ctx, s.stream, s.durable)
	if err != nil {
		return c.consumerError(err)
	}
	info, err := pc.Info(ctx)
	if err != nil {
		return c.jsError(err)
	}
	c.Statusf("Subscribing to JetStream Stream %q using existing push consumer %q", s.stream, s.durable)
	c.Statusf("Detected push consumer %q on stream %q — push consumers are deprecated and will be removed in a future release. Please update to use a pull-based consumer.", s.durable, s.stream)
	if len(info.Config.FilterSubjects) > 1 {
		return explain(errors.New("cannot subscribe to multi filter consumers"), "consumer %s filters on %s", s.durable, strings.Join(info.Config.FilterSubjects, ", "))
	}
	ack := info.Config.AckPolicy != jetstream.AckNonePolicy
	cc, err := pc.Consume(func(m jetstream.Msg) { sk.pulled(m, ack) })
	if err != nil {
		return c.consumerError(err)
	}
	defer drainConsumer(c, sk, cc)
	if err := c.endOnViolation(js.Conn()); err != nil {
		return err
	}
	return s.follow(c, sk, info, pc.Info)
}

// follow reads through a durable consumer whose deliveries have started
// (info: the consumer before they did), until the sink has what it wants
// or the job stops.
func (s *subCmd) follow(c *Call, sk *subSink, info *jetstream.ConsumerInfo, latest func(context.Context) (*jetstream.ConsumerInfo, error)) error {
	c.listen(filterOf(info), "")
	sk.floor(info.Delivered.Stream)
	c.settleWith(func(ctx context.Context) error { return sk.settled(ctx, latest) })
	if s.terminate && info.NumPending == 0 && info.NumAckPending == 0 {
		// Neither new messages nor ones handed back to redeliver.
		s.nothingToRead(c, filterOf(info))
		sk.finish(nil)
	}
	c.Ready()
	return s.await(c, sk)
}

// drainConsumer stops a durable consumer's deliveries, letting the
// messages already fetched reach the sink, which hands them back.
func drainConsumer(c *Call, sk *subSink, cc jetstream.ConsumeContext) {
	sk.stop()
	cc.Drain()
	select {
	case <-cc.Closed():
	case <-time.After(c.timeout):
	}
}

// consumerStart sets where a new durable consumer starts.
func (s *subCmd) consumerStart(c *Call, cfg *jetstream.ConsumerConfig) {
	switch {
	case s.startSeq > 0:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, s.startSeq
	case s.last:
		cfg.DeliverPolicy = jetstream.DeliverLastPolicy
	case s.all:
		cfg.DeliverPolicy = jetstream.DeliverAllPolicy
	case s.deliverNew:
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
	case s.since != "":
		t := c.Now().Add(-s.sinceDur)
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &t
	case s.lastPerSubject:
		cfg.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
	default:
		cfg.DeliverPolicy = jetstream.DeliverAllPolicy
	}
}

// filterOf is what a consumer reads, for the job list.
func filterOf(info *jetstream.ConsumerInfo) string {
	switch {
	case len(info.Config.FilterSubjects) > 0:
		return strings.Join(info.Config.FilterSubjects, " ")
	case info.Config.FilterSubject != "":
		return info.Config.FilterSubject
	}
	return ">"
}
