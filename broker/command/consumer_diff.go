package command

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Comparing two consumer configurations, field by field, with the labels
// consumer info uses: for naming what differs when consumer add meets an
// existing consumer.

type configField struct {
	label string
	value func(jetstream.ConsumerConfig) string
	// unset reports that a requested configuration leaves this field to
	// the server's default, so a create does not ask to change it.
	unset func(jetstream.ConsumerConfig) bool
}

func never(jetstream.ConsumerConfig) bool { return false }

var configFields = []configField{
	{"Description", func(c jetstream.ConsumerConfig) string { return c.Description }, never},
	{"Delivery Subject", func(c jetstream.ConsumerConfig) string { return c.DeliverSubject }, never},
	{"Deliver Queue Group", func(c jetstream.ConsumerConfig) string { return c.DeliverGroup }, never},
	{"Filter Subjects", func(c jetstream.ConsumerConfig) string {
		if c.FilterSubject != "" {
			return c.FilterSubject
		}
		return strings.Join(c.FilterSubjects, ", ")
	}, never},
	{"Deliver Policy", deliverPolicyText, never},
	{"Ack Policy", func(c jetstream.ConsumerConfig) string { return ackPolicyText(c.AckPolicy) }, never},
	{"Ack Wait", func(c jetstream.ConsumerConfig) string { return human(c.AckWait) }, func(c jetstream.ConsumerConfig) bool { return c.AckWait == 0 }},
	{"Replay Policy", func(c jetstream.ConsumerConfig) string { return replayPolicyText(c.ReplayPolicy) }, never},
	{"Maximum Deliveries", func(c jetstream.ConsumerConfig) string { return unlimited(c.MaxDeliver) }, func(c jetstream.ConsumerConfig) bool { return c.MaxDeliver == 0 }},
	{"Max Ack Pending", func(c jetstream.ConsumerConfig) string { return unlimited(c.MaxAckPending) }, func(c jetstream.ConsumerConfig) bool { return c.MaxAckPending == 0 }},
	{"Max Waiting Pulls", func(c jetstream.ConsumerConfig) string { return human(c.MaxWaiting) }, func(c jetstream.ConsumerConfig) bool { return c.MaxWaiting == 0 }},
	{"Idle Heartbeat", func(c jetstream.ConsumerConfig) string { return human(c.IdleHeartbeat) }, never},
	{"Flow Control", func(c jetstream.ConsumerConfig) string { return human(c.FlowControl) }, never},
	{"Headers Only", func(c jetstream.ConsumerConfig) string { return human(c.HeadersOnly) }, never},
	{"Inactive Threshold", func(c jetstream.ConsumerConfig) string { return human(c.InactiveThreshold) }, func(c jetstream.ConsumerConfig) bool { return c.InactiveThreshold == 0 }},
	{"Max Pull Expire", func(c jetstream.ConsumerConfig) string { return human(c.MaxRequestExpires) }, never},
	{"Max Pull Batch", func(c jetstream.ConsumerConfig) string { return human(c.MaxRequestBatch) }, never},
	{"Max Pull MaxBytes", func(c jetstream.ConsumerConfig) string { return human(c.MaxRequestMaxBytes) }, never},
	{"Backoff", func(c jetstream.ConsumerConfig) string { return backoffText(c.BackOff) }, never},
	{"Replicas", func(c jetstream.ConsumerConfig) string { return human(c.Replicas) }, func(c jetstream.ConsumerConfig) bool { return c.Replicas == 0 }},
	{"Memory Storage", func(c jetstream.ConsumerConfig) string { return human(c.MemoryStorage) }, never},
	{"Metadata", func(c jetstream.ConsumerConfig) string { return metadataText(userMetadata(c.Metadata)) }, func(c jetstream.ConsumerConfig) bool { return len(userMetadata(c.Metadata)) == 0 }},
}

func unlimited(n int) string {
	if n < 0 {
		return "unlimited"
	}
	return human(n)
}

func metadataText(m map[string]string) string {
	var kv []string
	for k, v := range m {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ", ")
}

// configChanges names each field that differs, as "ack wait 30.00s, not
// 10.00s" (current first). For a create, fields the request leaves to the
// server are not differences.
func configChanges(cur, req jetstream.ConsumerConfig, create bool) []string {
	var out []string
	for _, fl := range configFields {
		if create && fl.unset(req) {
			continue
		}
		a, b := fl.value(cur), fl.value(req)
		if a == b {
			continue
		}
		if a == "" {
			a = "none"
		}
		if b == "" {
			b = "none"
		}
		if create {
			out = append(out, fmt.Sprintf("%s %s, not %s", strings.ToLower(fl.label), a, b))
		} else {
			out = append(out, fl.label)
		}
	}
	return out
}
