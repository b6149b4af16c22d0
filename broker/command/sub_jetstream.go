package command

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// runJetStream reads messages from the stream that stores them: through an
// ordered consumer (limits streams), a durable consumer (--durable), or
// direct gets (work-queue and interest streams, where a consumer would
// take the messages away, and --direct).
func (s *subCmd) runJetStream(c *Call, nc *nats.Conn, sk *subSink) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	filter := s.firstSubjectOr("")
	if s.stream == "" {
		if s.stream, err = s.streamFor(c, js, filter); err != nil {
			return err
		}
	}
	ctx, cancel := c.Timeout()
	st, err := js.Stream(ctx, s.stream)
	cancel()
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return c.unknownStream(s.stream)
	}
	if errors.Is(err, jetstream.ErrInvalidStreamName) {
		return usageErrorf("%q is not a valid stream name: names cannot hold spaces, dots, * or > (for example ORDERS)", s.stream)
	}
	if err != nil {
		return c.jsError(err)
	}
	cfg := st.CachedInfo().Config
	if filter != "" && len(cfg.Subjects) > 0 && !collidesAny(filter, cfg.Subjects) {
		return usageErrorf("stream %s stores %s, so it holds nothing on %q: subscribe to one of those subjects", s.stream, strings.Join(cfg.Subjects, ", "), filter)
	}
	switch {
	case s.durable != "":
		return s.runDurable(c, js, st, sk)
	case s.direct || cfg.Retention == jetstream.WorkQueuePolicy || cfg.Retention == jetstream.InterestPolicy:
		return s.runDirect(c, nc, js, st, filter, sk)
	}
	return s.runOrdered(c, nc, st, filter, sk)
}

// streamFor finds the one stream that stores subject.
func (s *subCmd) streamFor(c *Call, js jetstream.JetStream, subject string) (string, error) {
	ctx, cancel := c.Timeout()
	defer cancel()
	var names []string
	l := js.StreamNames(ctx, jetstream.WithStreamListSubject(subject))
	for n := range l.Name() {
		names = append(names, n)
	}
	if err := l.Err(); err != nil {
		return "", c.jsError(err)
	}
	sort.Strings(names)
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", c.noStreamFor(js, subject, s.streamFlags())
	}
	return "", usageErrorf("%q is stored by several streams (%s): choose one with --stream NAME", subject, strings.Join(names, ", "))
}

// streamFlags names the flags that made sub read a stream, for hints.
func (s *subCmd) streamFlags() string {
	flags := s.deliverFlags()
	if s.jetstream {
		flags = append(flags, "--jetstream")
	}
	if s.direct {
		flags = append(flags, "--direct")
	}
	if len(flags) == 0 {
		return "the stream flags"
	}
	return strings.Join(flags, " ")
}

// noStreamFor explains that no stream stores subject, and what does exist;
// flags are what to drop for live messages instead.
func (c *Call) noStreamFor(js jetstream.JetStream, subject, flags string) error {
	ctx, cancel := c.Timeout()
	defer cancel()
	var captures []string
	l := js.ListStreams(ctx)
	for info := range l.Info() {
		captures = append(captures, fmt.Sprintf("%s stores %s", info.Config.Name, strings.Join(info.Config.Subjects, ", ")))
	}
	if err := l.Err(); err != nil {
		return c.jsError(err)
	}
	if len(captures) == 0 {
		return fmt.Errorf("no stream found with subject %s: there are no streams yet, so nothing was stored; create one with stream add EVENTS --subjects %q --defaults, or drop %s to receive live messages", subject, suggestFilter(subject), flags)
	}
	sort.Strings(captures)
	return fmt.Errorf("no stream found with subject %s (%s): subscribe to a stored subject, or drop %s to receive live messages", subject, strings.Join(captures, "; "), flags)
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
	case s.deliverNew:
		c.Statusf("Subscribing to subject %s for new messages %s", subject, suffix)
	case s.since != "":
		c.Statusf("Subscribing to subject %s since %s %s", subject, humanDuration(s.sinceDur), suffix)
	case s.lastPerSubject:
		c.Statusf("Subscribing to subject %s for last message per subject %s", subject, suffix)
	default:
		c.Statusf("Subscribing to subject %s from first received message %s", subject, suffix)
	}
}

// deliverOpts are the ordered consumer's start options.
func (s *subCmd) deliverOpts(c *Call) []nats.SubOpt {
	switch {
	case s.startSeq > 0:
		return []nats.SubOpt{nats.StartSequence(s.startSeq)}
	case s.last:
		return []nats.SubOpt{nats.DeliverLast()}
	case s.deliverNew:
		return []nats.SubOpt{nats.DeliverNew()}
	case s.since != "":
		return []nats.SubOpt{nats.StartTime(c.Now().Add(-s.sinceDur))}
	case s.lastPerSubject:
		return []nats.SubOpt{nats.DeliverLastPerSubject()}
	}
	return []nats.SubOpt{nats.DeliverAll()}
}

// runOrdered replays through an ordered consumer: the server pushes with
// flow control, the client checks the order and recreates the consumer on
// a gap; nothing to acknowledge. The client library's push subscription
// (about 420k msg/s in process) outpaces its pull Consume (about 290k/s).
func (s *subCmd) runOrdered(c *Call, nc *nats.Conn, st jetstream.Stream, filter string, sk *subSink) error {
	shown := filter
	if shown == "" {
		shown = ">"
	}
	s.startStatus(c, shown)
	ljs, err := nc.JetStream(nats.MaxWait(c.S.timeout))
	if err != nil {
		return err
	}
	opts := append(s.deliverOpts(c), nats.OrderedConsumer(), nats.BindStream(s.stream))
	if s.headersOnly || s.subjectsOnly {
		opts = append(opts, nats.HeadersOnly())
	}
	if filter == "" && s.lastPerSubject {
		filter = ">" // the server wants a filter for last-per-subject
	}
	sub, err := ljs.Subscribe(filter, sk.ordered, opts...)
	if err != nil {
		return c.consumerError(err)
	}
	defer sub.Unsubscribe()
	c.listen(shown, "")
	if s.terminate {
		// -T on a stream with nothing to deliver ends now: no message will
		// come to say pending is 0.
		if info, err := sub.ConsumerInfo(); err == nil && info.NumPending == 0 && info.Delivered.Consumer == 0 {
			s.nothingToRead(c, shown)
			sk.finish(nil)
		}
	}
	c.Ready()
	return s.await(c, sk)
}

// nothingToRead says why -T ended without a message.
func (s *subCmd) nothingToRead(c *Call, subject string) {
	if s.deliverNew {
		c.Statusf("Nothing to read: --new waits for messages stored from now on, and -T ends at once")
		return
	}
	switch {
	case s.startSeq > 0:
		c.Statusf("Nothing to read: stream %s holds no messages on %s from sequence %d on", s.stream, subject, s.startSeq)
	case s.since != "":
		c.Statusf("Nothing to read: stream %s holds no messages on %s stored in the last %s", s.stream, subject, humanDuration(s.sinceDur))
	default:
		c.Statusf("Nothing to read: stream %s holds no messages on %s", s.stream, subject)
	}
}

// consumerError explains why a consumer could not be made.
func (c *Call) consumerError(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return fmt.Errorf("the server refused the consumer: %s", apiErr.Description)
	}
	var legacyErr nats.JetStreamError
	if errors.As(err, &legacyErr) && legacyErr.APIError() != nil {
		return fmt.Errorf("the server refused the consumer: %s", legacyErr.APIError().Description)
	}
	return c.jsError(err)
}

// pullBatch is how many messages a durable consumer may hold in the client;
// --count lowers it so that few messages wait unprinted when sub stops.
const pullBatch = 500

// runDurable reads through a named consumer, created when missing. As the
// real CLI does, a new one is created with a name and no durable name, and
// without acks: the server treats it as ephemeral and removes it once it has
// been idle for its inactive threshold (5s), however "durable" the flag
// sounds. An existing consumer is read as it is configured.
func (s *subCmd) runDurable(c *Call, js jetstream.JetStream, st jetstream.Stream, sk *subSink) error {
	ctx, cancel := c.Timeout()
	defer cancel()
	cons, err := st.Consumer(ctx, s.durable)
	if errors.Is(err, jetstream.ErrNotPullConsumer) {
		return s.runPushDurable(c, js, sk)
	}
	var info *jetstream.ConsumerInfo
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		s.startStatus(c, ">")
		cfg := jetstream.ConsumerConfig{Name: s.durable, AckPolicy: jetstream.AckNonePolicy, FilterSubject: ">", HeadersOnly: s.headersOnly || s.subjectsOnly}
		s.consumerStart(c, &cfg)
		if cons, err = st.CreateConsumer(ctx, cfg); err != nil {
			return c.consumerError(err)
		}
		info = cons.CachedInfo()
	case errors.Is(err, jetstream.ErrInvalidConsumerName):
		return usageErrorf("%q is not a valid consumer name: names cannot hold spaces, dots, * or > (for example NEW)", s.durable)
	case err != nil:
		return c.jsError(err)
	default:
		if info, err = cons.Info(ctx); err != nil {
			return c.jsError(err)
		}
		c.Statusf("Subscribing to JetStream Stream %q using existing pull consumer %q", s.stream, s.durable)
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
	c.listen(filterOf(info), "")
	if s.terminate && info.NumPending == 0 && info.NumAckPending == 0 {
		// Neither new messages nor ones handed back to redeliver.
		s.nothingToRead(c, filterOf(info))
		sk.finish(nil)
	}
	c.Ready()
	return s.await(c, sk)
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
	c.Statusf("Push consumers are deprecated: for new consumers use consumer add --pull")
	ack := info.Config.AckPolicy != jetstream.AckNonePolicy
	cc, err := pc.Consume(func(m jetstream.Msg) { sk.pulled(m, ack) })
	if err != nil {
		return c.consumerError(err)
	}
	defer drainConsumer(c, sk, cc)
	c.listen(filterOf(info), "")
	if s.terminate && info.NumPending == 0 && info.NumAckPending == 0 {
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
	case <-time.After(c.S.timeout):
	}
}

// consumerStart sets where a new durable consumer starts.
func (s *subCmd) consumerStart(c *Call, cfg *jetstream.ConsumerConfig) {
	switch {
	case s.startSeq > 0:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, s.startSeq
	case s.last:
		cfg.DeliverPolicy = jetstream.DeliverLastPolicy
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

// waitOrDone sleeps d unless the job stops or the sink is done first.
func waitOrDone(c *Call, sk *subSink, wake <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.Ctx.Done():
		return false
	case <-sk.done:
		return false
	case <-wake:
		return true
	case <-t.C:
		return true
	}
}
