package command

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// Turning consumer add/edit flags into a consumer configuration. Where the
// real CLI would prompt, the lab takes the default and says which ones it
// took, so nothing ever waits for input.

// ackWaitFlag is the ack wait given with --wait, if any.
func (x *consumerCmd) ackWaitFlag() (time.Duration, bool) {
	return x.ackWait, x.ackWaitSet
}

// validConsumerName explains what is wrong with a consumer name.
func validConsumerName(name string) error {
	if strings.ContainsAny(name, ".*> \t\n/\\") {
		return usageErrorf("%q is not a valid consumer name: names cannot hold dots, spaces, *, >, / or \\ (for example worker or orders-processor)", name)
	}
	return nil
}

// askRefusal is the real CLI's refusal, where it has no terminal, to ask
// for what consumer add was not given (prefix: what it was asking), with
// the lab's note naming the flag that answers it.
func (x *consumerCmd) askRefusal(prefix string, refusal error, flag string) error {
	note := "the real CLI asks for this here, and has no terminal to ask in: give " + flag
	if prefix != "could not request delivery target" {
		note += ", or add --defaults to take the defaults for everything not given"
	}
	return explain(fatalIf(refusal, "%s", prefix), "%s", note)
}

// newConfig builds the configuration of a new consumer step by step in
// the order natscli's prepareConfig does, so a line missing an answer or
// holding a mistake gets the real CLI's line for the first one it meets:
// where it would ask (it has no terminal here), where it refuses, and
// what it sends the server (--pull with --target is a push consumer,
// a deliver group or flow control on a pull consumer is sent or ignored
// as it does).
func (x *consumerCmd) newConfig(now time.Time) (cfg jetstream.ConsumerConfig, err error) {
	if x.ephemeral {
		cfg.Name = x.consumer
	} else {
		cfg.Durable = x.consumer
	}
	cfg.Description = x.description
	push := x.target != ""
	if !x.pull && !push {
		return cfg, x.askRefusal("could not request delivery target", errNoPrompt, "--pull for a pull consumer, or --target SUBJECT for a push consumer")
	}
	cfg.DeliverSubject = x.target

	// What the line answers; --defaults answers the rest as natscli does.
	deliver, ack, replay := x.deliver, x.ack, x.replay
	deliverGroupSet, heartbeatSet, flowControlSet, headersSet := x.deliverGroupSet, x.heartbeatSet, x.flowControlSet, x.headersSet
	maxDeliver := x.maxDeliver
	maxPending := -1 // natscli's "not given"
	if x.maxPendingSet {
		maxPending = x.maxPending
	}
	if x.defaults {
		deliverGroupSet, heartbeatSet, headersSet = true, true, true
		if deliver == "" {
			deliver = "all"
		}
		if ack == "" {
			ack = "none"
			if x.pull || !push {
				ack = "explicit"
			}
		}
		if maxDeliver == 0 {
			maxDeliver = -1
		}
		if maxPending == -1 {
			maxPending = 0
		}
		if replay == "" || push {
			replay = "instant"
		}
		if push {
			flowControlSet = true
		}
	}

	if push && !deliverGroupSet {
		return cfg, x.askRefusal("could not request delivery group", errNoPrompt, "--deliver-group GROUP (or --deliver-group '' for none)")
	}
	cfg.DeliverGroup = x.deliverGroup
	if deliver == "" {
		return cfg, x.askRefusal("could not request start policy", errNoPrompt, "--deliver all (or new, last, a sequence, a time ago)")
	}
	if err := setDeliverPolicy(&cfg, deliver, now); err != nil {
		return cfg, err
	}
	if ack == "" {
		return cfg, x.askRefusal("could not ask acknowledgement policy", errNoPrompt, "--ack explicit (or all, none)")
	}
	if replay == "" {
		return cfg, x.askRefusal("could not ask replay policy", errNoPrompt, "--replay instant (or original)")
	}
	cfg.AckPolicy = ackPolicy(ack)
	ackNone := cfg.AckPolicy == jetstream.AckNonePolicy
	if ackNone {
		cfg.MaxDeliver = -1
	}
	if w, ok := x.ackWaitFlag(); ok && w > 0 {
		cfg.AckWait = w
	}
	if replay == "original" {
		cfg.ReplayPolicy = jetstream.ReplayOriginalPolicy
	}

	if len(x.filters) == 0 && !x.defaults {
		return cfg, x.askRefusal("could not ask for filtering subject", errNoPrompt, "--filter SUBJECT (or --filter '' for all)")
	}
	x.setFilters(&cfg)
	if len(x.filters) == 0 && cfg.DeliverPolicy == jetstream.DeliverLastPerSubjectPolicy {
		cfg.FilterSubject = ">"
	}
	if maxDeliver == 0 && !ackNone {
		return cfg, x.askRefusal("could not ask for maximum allowed deliveries", errNoPrompt, "--max-deliver N (--max-deliver=-1 for no limit)")
	}
	if maxPending == -1 && !ackNone {
		return cfg, x.askRefusal("could not ask for maximum outstanding acknowledgements", errNoPrompt, "--max-pending N")
	}
	if push {
		if !heartbeatSet {
			return cfg, x.askRefusal("could not ask for idle heartbeat", errNoPrompt, "--heartbeat DURATION")
		}
		cfg.IdleHeartbeat = x.heartbeat
		if !flowControlSet {
			return cfg, x.askRefusal("could not ask flow control", errNoConfirm, "--flow-control or --no-flow-control")
		}
		cfg.FlowControl = x.flowControl
	}
	if !headersSet {
		return cfg, x.askRefusal("could not ask headers only", errNoConfirm, "--headers-only or --no-headers-only")
	}
	cfg.HeadersOnly = x.headersOnly
	if !ackNone && !x.defaults && x.backoff == "" {
		return cfg, explain(errNoConfirm, "the real CLI asks whether to add a retry backoff policy here, and has no terminal to ask in: give --backoff none (or linear), or add --defaults to take the defaults for everything not given")
	}
	if err := x.setBackoff(&cfg); err != nil {
		return cfg, err
	}
	if maxDeliver == -1 && len(cfg.BackOff) > 0 {
		// The server wants room for every backoff step.
		maxDeliver = len(cfg.BackOff) + 1
	}
	if maxPending == -1 {
		maxPending = 0
	}
	cfg.MaxAckPending = maxPending
	cfg.InactiveThreshold = x.inactive
	cfg.MaxRequestBatch = x.maxPullBatch
	cfg.MaxRequestExpires = x.maxPullExpire
	cfg.MaxRequestMaxBytes = x.maxPullBytes
	if !push {
		cfg.MaxWaiting = x.maxWaiting
	}
	if maxDeliver != 0 && !ackNone {
		cfg.MaxDeliver = maxDeliver
	}
	if !push && x.heartbeatSet {
		return cfg, explain(errors.New("pull subscribers does not support idle heartbeats"), "--heartbeat is for push consumers (with --target SUBJECT): a pull consumer is asked for messages, so there is no idle delivery to beat for; leave it out")
	}
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
		cfg.DeliverSubject = x.target
	}
	if x.headersSet {
		cfg.HeadersOnly = x.headersOnly
	}
	if len(x.filters) > 0 {
		cfg.FilterSubject, cfg.FilterSubjects = "", nil
		x.setFilters(&cfg)
	}
	if x.replicas > 0 {
		cfg.Replicas = x.replicas
	}
	if len(x.metadata) > 0 {
		cfg.Metadata = x.metadata
	}
	return cfg, nil
}

func (x *consumerCmd) setFilters(cfg *jetstream.ConsumerConfig) {
	if len(x.filters) == 1 && x.filters[0] == "" {
		return // --filter '': no filter, as the real CLI takes it
	}
	switch len(x.filters) {
	case 0:
	case 1:
		cfg.FilterSubject = x.filters[0]
	default:
		cfg.FilterSubjects = append([]string(nil), x.filters...)
	}
}

// badFilter is the lab's explanation of the first filter that is not a
// subject, or nil.
func (x *consumerCmd) badFilter() error {
	for _, f := range x.filters {
		if f == "" && len(x.filters) == 1 {
			continue
		}
		if err := validateSubject(f, true); err != nil {
			return err
		}
	}
	return nil
}

// setBackoff turns --backoff linear into redelivery periods from
// --backoff-min to --backoff-max in --backoff-steps steps, as natscli does
// (jsm.go's LinearBackoffPeriods), and refuses in its words.
func (x *consumerCmd) setBackoff(cfg *jetstream.ConsumerConfig) error {
	switch x.backoff {
	case "":
		return nil
	case "none":
		cfg.BackOff = nil
		return nil
	}
	wrap := func(err error, note string) error {
		return explain(fmt.Errorf("could not determine backoff policy: %v", err), "%s", note)
	}
	if x.backoffSteps == 0 || x.backoffMin == 0 || x.backoffMax == 0 {
		return wrap(errors.New("required policy properties not supplied"), "--backoff linear needs --backoff-steps above 0 and --backoff-min and --backoff-max above 0s")
	}
	periods, err := jsm.LinearBackoffPeriods(x.backoffSteps, x.backoffMin, x.backoffMax)
	if err != nil {
		return wrap(err, fmt.Sprintf("--backoff linear spreads %d redeliveries from --backoff-min to --backoff-max: give fewer steps or a wider range", x.backoffSteps))
	}
	cfg.BackOff = periods
	return nil
}

var digits = text.Pattern(`^\d+$`)

// setDeliverPolicy reads --deliver as natscli's setStartPolicy does: a
// policy name, a stream sequence (0 too: the server refuses it), or a
// time ago (1h, 2d).
func setDeliverPolicy(cfg *jetstream.ConsumerConfig, v string, now time.Time) error {
	switch v {
	case "all":
		cfg.DeliverPolicy = jetstream.DeliverAllPolicy
		return nil
	case "new", "next":
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
		return nil
	case "last":
		cfg.DeliverPolicy = jetstream.DeliverLastPolicy
		return nil
	case "subject", "last_per_subject":
		cfg.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
		return nil
	}
	if digits().MatchString(v) {
		seq, _ := strconv.Atoi(v)
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = uint64(seq)
		return nil
	}
	d, err := fisk.ParseDuration(v)
	if err != nil {
		return explain(fatalIf(err, "could not parse starting delta"), "--deliver takes all, new, last, subject (last_per_subject), a stream sequence like 5, or a time ago like 1h; got %q", v)
	}
	t := now.UTC().Add(-d)
	cfg.DeliverPolicy = jetstream.DeliverByStartTimePolicy
	cfg.OptStartTime = &t
	return nil
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
