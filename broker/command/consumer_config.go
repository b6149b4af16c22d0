package command

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go/jetstream"
)

// Turning consumer add/edit flags into a consumer configuration. Where the
// real CLI would prompt, the lab takes the default and says which ones it
// took, so nothing ever waits for input.

// ackWaitFlag is the ack wait given with --wait or --ack-wait, if any.
func (x *consumerCmd) ackWaitFlag() (time.Duration, bool) {
	if x.ackWaitSet {
		return x.ackWait, true
	}
	return x.ackWait2, x.ackWait2Set
}

// validConsumerName explains what is wrong with a consumer name.
func validConsumerName(name string) error {
	if strings.ContainsAny(name, ".*> \t\n/\\") {
		return usageErrorf("%q is not a valid consumer name: names cannot hold dots, spaces, *, >, / or \\ (for example worker or orders-processor)", name)
	}
	return nil
}

// wouldAsk is the real CLI's refusal, where it has no terminal, to ask for
// what consumer add was not given, in the order it asks (natscli's
// prepareConfig); nil when the line gives all it needs.
func (x *consumerCmd) wouldAsk() error {
	ask := func(prefix string, refusal error, flag string) error {
		note := "the real CLI asks for this here, and has no terminal to ask in: give " + flag
		if prefix != "could not request delivery target" {
			note += ", or add --defaults to take the defaults for everything not given"
		}
		return explain(fatalIf(refusal, "%s", prefix), "%s", note)
	}
	push := x.target != ""
	if !x.pull && !push {
		return ask("could not request delivery target", errNoPrompt, "--pull for a pull consumer, or --target SUBJECT for a push consumer")
	}
	if x.defaults {
		return nil
	}
	ackNone := x.ack == "none"
	switch {
	case push && !x.deliverGroupSet:
		return ask("could not request delivery group", errNoPrompt, "--deliver-group GROUP (or --deliver-group '' for none)")
	case x.deliver == "":
		return ask("could not request start policy", errNoPrompt, "--deliver all (or new, last, a sequence, a time ago)")
	case x.ack == "":
		return ask("could not ask acknowledgement policy", errNoPrompt, "--ack explicit (or all, none)")
	case x.replay == "":
		return ask("could not ask replay policy", errNoPrompt, "--replay instant (or original)")
	case len(x.filters) == 0:
		return ask("could not ask for filtering subject", errNoPrompt, "--filter SUBJECT (or --filter '' for all)")
	case !ackNone && !x.maxDeliverSet:
		return ask("could not ask for maximum allowed deliveries", errNoPrompt, "--max-deliver N (-1 for no limit)")
	case !ackNone && !x.maxPendingSet:
		return ask("could not ask for maximum outstanding acknowledgements", errNoPrompt, "--max-pending N")
	case push && !x.heartbeatSet:
		return ask("could not ask for idle heartbeat", errNoPrompt, "--heartbeat DURATION")
	case push && !x.flowControlSet:
		return ask("could not ask flow control", errNoConfirm, "--flow-control or --no-flow-control")
	case !x.headersSet:
		return ask("could not ask headers only", errNoConfirm, "--headers-only or --no-headers-only")
	case !ackNone && x.backoff == "":
		return explain(errNoConfirm, "the real CLI asks whether to add a retry backoff policy here, and has no terminal to ask in: give --backoff none (or linear), or add --defaults to take the defaults for everything not given")
	}
	return nil
}

// newConfig builds the configuration of a new consumer, from a line that
// gives all the real CLI would ask for (wouldAsk).
func (x *consumerCmd) newConfig(now time.Time) (cfg jetstream.ConsumerConfig, err error) {
	if err := x.wouldAsk(); err != nil {
		return cfg, err
	}
	if x.ephemeral {
		cfg.Name = x.consumer
	} else {
		cfg.Durable = x.consumer
	}
	cfg.Description = x.description

	switch {
	case x.pull && x.target != "":
		return cfg, usageErrorf("--pull and --target do not go together: a pull consumer delivers on request, a push consumer to --target; choose one")
	case x.target != "":
		if err := validateSubject(x.target, false); err != nil {
			return cfg, err
		}
		cfg.DeliverSubject = x.target
		cfg.DeliverGroup = x.deliverGroup
		cfg.IdleHeartbeat = x.heartbeat
		cfg.FlowControl = x.flowControl
	default:
		if x.deliverGroup != "" || x.heartbeat != 0 || x.flowControl {
			return cfg, usageErrorf("--deliver-group, --heartbeat and --flow-control are for push consumers (with --target SUBJECT); pull consumers do not use them")
		}
		cfg.MaxWaiting = x.maxWaiting
	}

	deliver := x.deliver
	if deliver == "" {
		deliver = "all"
	}
	if err := setDeliverPolicy(&cfg, deliver, now); err != nil {
		return cfg, err
	}

	ack := x.ack
	if ack == "" {
		ack = "explicit"
		if cfg.DeliverSubject != "" {
			ack = "none"
		}
	}
	cfg.AckPolicy = ackPolicy(ack)

	replay := x.replay
	if replay == "" {
		replay = "instant"
	}
	if replay == "original" {
		cfg.ReplayPolicy = jetstream.ReplayOriginalPolicy
	}

	if err := x.setFilters(&cfg); err != nil {
		return cfg, err
	}
	if len(x.filters) == 0 && cfg.DeliverPolicy == jetstream.DeliverLastPerSubjectPolicy {
		cfg.FilterSubject = ">"
	}

	if w, ok := x.ackWaitFlag(); ok && w > 0 {
		cfg.AckWait = w
	}
	cfg.MaxDeliver = -1
	if x.maxDeliverSet && x.maxDeliver != 0 && cfg.AckPolicy != jetstream.AckNonePolicy {
		cfg.MaxDeliver = x.maxDeliver
	}
	if x.maxPendingSet && x.maxPending != 0 {
		cfg.MaxAckPending = x.maxPending
	}
	cfg.HeadersOnly = x.headersOnly
	if err := x.setBackoff(&cfg); err != nil {
		return cfg, err
	}
	if len(cfg.BackOff) > 0 && cfg.MaxDeliver == -1 {
		// The server wants room for every backoff step.
		cfg.MaxDeliver = len(cfg.BackOff) + 1
	}
	cfg.InactiveThreshold = x.inactive
	cfg.MaxRequestBatch = x.maxPullBatch
	cfg.MaxRequestExpires = x.maxPullExpire
	cfg.MaxRequestMaxBytes = x.maxPullBytes
	cfg.Replicas = x.replicas
	cfg.MemoryStorage = x.memory
	if len(x.metadata) > 0 {
		cfg.Metadata = x.metadata
	}
	return cfg, nil
}

// editConfig applies the flags given to a copy of the current configuration.
func (x *consumerCmd) editConfig(cur jetstream.ConsumerConfig) (jetstream.ConsumerConfig, error) {
	cfg := cur
	cfg.Metadata = userMetadata(cur.Metadata)
	if x.descSet {
		cfg.Description = x.description
	}
	if x.inactiveSet {
		cfg.InactiveThreshold = x.inactive
	}
	if x.maxDeliverSet {
		cfg.MaxDeliver = x.maxDeliver
	}
	if x.maxPendingSet {
		cfg.MaxAckPending = x.maxPending
	}
	if w, ok := x.ackWaitFlag(); ok {
		if len(cur.BackOff) > 0 && w != cur.AckWait {
			return cfg, usageErrorf("this consumer has a backoff policy, which sets its redelivery times: the ack wait cannot be edited")
		}
		cfg.AckWait = w
	}
	if x.maxPullBatch > 0 {
		cfg.MaxRequestBatch = x.maxPullBatch
	}
	if x.maxPullExpire > 0 {
		cfg.MaxRequestExpires = x.maxPullExpire
	}
	if x.maxPullBytes > 0 {
		cfg.MaxRequestMaxBytes = x.maxPullBytes
	}
	if err := x.setBackoff(&cfg); err != nil {
		return cfg, err
	}
	if x.target != "" {
		if cur.DeliverSubject == "" {
			return cfg, usageErrorf("%s is a pull consumer: it cannot become a push consumer with --target; add a new consumer instead", cur.Durable)
		}
		if err := validateSubject(x.target, false); err != nil {
			return cfg, err
		}
		cfg.DeliverSubject = x.target
	}
	if x.headersSet {
		cfg.HeadersOnly = x.headersOnly
	}
	if len(x.filters) > 0 {
		cfg.FilterSubject, cfg.FilterSubjects = "", nil
		if err := x.setFilters(&cfg); err != nil {
			return cfg, err
		}
	}
	if x.replicas > 0 {
		cfg.Replicas = x.replicas
	}
	if len(x.metadata) > 0 {
		cfg.Metadata = x.metadata
	}
	return cfg, nil
}

func (x *consumerCmd) setFilters(cfg *jetstream.ConsumerConfig) error {
	if len(x.filters) == 1 && x.filters[0] == "" {
		return nil // --filter '': no filter, as the real CLI takes it
	}
	for _, f := range x.filters {
		if err := validateSubject(f, true); err != nil {
			return err
		}
	}
	switch len(x.filters) {
	case 0:
	case 1:
		cfg.FilterSubject = x.filters[0]
	default:
		cfg.FilterSubjects = append([]string(nil), x.filters...)
	}
	return nil
}

// setBackoff turns --backoff linear into redelivery periods from
// --backoff-min to --backoff-max in --backoff-steps equal steps.
func (x *consumerCmd) setBackoff(cfg *jetstream.ConsumerConfig) error {
	switch x.backoff {
	case "":
		return nil
	case "none":
		cfg.BackOff = nil
		return nil
	}
	lo, hi, steps := x.backoffMin, x.backoffMax, x.backoffSteps
	if steps == 0 || lo <= 0 || hi <= 0 {
		return usageErrorf("--backoff linear needs --backoff-steps above 0 and positive --backoff-min and --backoff-max")
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	step := (hi - lo) / time.Duration(steps)
	if hi != lo && step == 0 {
		return usageErrorf("--backoff-min %s and --backoff-max %s are too close for %d steps", lo, hi, steps)
	}
	cfg.BackOff = nil
	for i := range time.Duration(steps) {
		cfg.BackOff = append(cfg.BackOff, (lo + i*step).Round(time.Millisecond))
	}
	return nil
}

var digits = regexp.MustCompile(`^\d+$`)

// setDeliverPolicy reads --deliver: a policy name, a stream sequence, a
// time ago (1h) or a point in time.
func setDeliverPolicy(cfg *jetstream.ConsumerConfig, v string, now time.Time) error {
	switch strings.ToLower(v) {
	case "all":
		cfg.DeliverPolicy = jetstream.DeliverAllPolicy
		return nil
	case "new", "next":
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
		return nil
	case "last":
		cfg.DeliverPolicy = jetstream.DeliverLastPolicy
		return nil
	case "subject", "last_per_subject", "last-per-subject":
		cfg.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
		return nil
	}
	if digits.MatchString(v) {
		seq, err := strconv.ParseUint(v, 10, 64)
		if err != nil || seq == 0 {
			return usageErrorf("--deliver %s: stream sequences start at 1 (use --deliver all for everything)", v)
		}
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = seq
		return nil
	}
	if d, err := fisk.ParseDuration(v); err == nil && d > 0 {
		t := now.UTC().Add(-d)
		cfg.DeliverPolicy = jetstream.DeliverByStartTimePolicy
		cfg.OptStartTime = &t
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateTime, time.DateOnly} {
		if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
			t = t.UTC()
			cfg.DeliverPolicy = jetstream.DeliverByStartTimePolicy
			cfg.OptStartTime = &t
			return nil
		}
	}
	return usageErrorf("--deliver wants all, new, last, last_per_subject, a stream sequence like 5, a time ago like 1h, or a time like %q; got %q", now.Format(time.DateTime), v)
}

func ackPolicy(s string) jetstream.AckPolicy {
	switch s {
	case "none":
		return jetstream.AckNonePolicy
	case "all":
		return jetstream.AckAllPolicy
	case "flow_control":
		return jetstream.AckFlowControlPolicy
	}
	return jetstream.AckExplicitPolicy
}

// userMetadata drops the keys the server manages (_nats.*).
func userMetadata(m map[string]string) map[string]string {
	var out map[string]string
	for k, v := range m {
		if strings.HasPrefix(k, "_nats") {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}
