package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/natscli/columns"
)

// consumer info, and the block every command that creates or changes a
// consumer ends with: natscli's "Information for Consumer" layout.

func (x *consumerCmd) info(c *Call) error {
	// natscli's connectAndSetup: its words where the stream or the
	// consumer is missing or unknown, the lab's names of what exists in
	// the note.
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	if err := x.selectConsumer(c, mgr); err != nil {
		return err
	}
	ci, err := c.consumerInfo(x.stream, x.consumer)
	if err != nil {
		return err
	}
	if x.json {
		return printConsumerJSON(c.Out, ci)
	}
	return renderConsumerInfo(c.Out, ci)
}

// printConsumerJSON prints ci as natscli's consumer info --json does: as
// jsm.go's api.ConsumerInfo, whose fields come in another order than
// nats.go's ("created" after the configuration, the configuration's ack
// settings first) and which always has a pause_until.
func printConsumerJSON(w io.Writer, ci *jetstream.ConsumerInfo) error {
	b, err := json.Marshal(ci)
	if err != nil {
		return err
	}
	var info api.ConsumerInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return err
	}
	return printJSON(w, info)
}

// needStreamAndConsumer explains a missing stream or consumer argument
// where the real CLI would offer a list to pick from.
func (x *consumerCmd) needStreamAndConsumer(c *Call, path string) error {
	if x.stream == "" {
		return c.needStream(path)
	}
	if x.consumer != "" {
		return nil
	}
	st, err := c.stream(x.stream)
	if err != nil {
		return err
	}
	names, err := c.consumerNames(st)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageErrorf("%s needs <consumer>, but stream %s has no consumers yet (create one with consumer add %s NAME --pull --defaults)", path, x.stream, x.stream)
	}
	return usageErrorf("%s needs <consumer>: one of %s (for example: %s %s %s)", path, strings.Join(names, ", "), path, x.stream, names[0])
}

// needStream explains a missing stream argument, naming the streams there are.
func (c *Call) needStream(path string) error {
	names, err := c.streamNames()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageErrorf("%s needs <stream>, but there are no streams yet (create one with stream add EVENTS --subjects 'events.>' --defaults)", path)
	}
	return usageErrorf("%s needs <stream>: one of %s (for example: %s)", path, strings.Join(names, ", "), examples[path])
}

// consumerInfo fetches a consumer's current info, pull or push, with the
// shared helpers' errors for a stream or consumer that does not exist.
func (c *Call) consumerInfo(stream, name string) (*jetstream.ConsumerInfo, error) {
	if err := validConsumerName(name); err != nil {
		return nil, err
	}
	_, cons, err := c.consumer(stream, name)
	if errors.Is(err, jetstream.ErrNotPullConsumer) {
		// A push consumer: the pull helper refuses it, the push lookup does not.
		st, serr := c.stream(stream)
		if serr != nil {
			return nil, serr
		}
		ctx, cancel := c.Timeout()
		defer cancel()
		pc, perr := st.PushConsumer(ctx, name)
		if perr != nil {
			return nil, c.jsError(perr)
		}
		return pc.CachedInfo(), nil
	}
	if err != nil {
		return nil, err
	}
	// The lookup has just fetched the info: no need to ask twice.
	return cons.CachedInfo(), nil
}

// printJSON prints v as natscli does with --json.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// since is how long before the info's timestamp t was, as natscli shows it.
func since(ref time.Time, t time.Time) time.Duration {
	if ref.IsZero() {
		return time.Since(t)
	}
	if t.IsZero() {
		return math.MaxInt64 // natscli's "never"
	}
	return ref.Sub(t)
}

func deliverPolicyText(cfg jetstream.ConsumerConfig) string {
	switch cfg.DeliverPolicy {
	case jetstream.DeliverAllPolicy:
		return "All"
	case jetstream.DeliverLastPolicy:
		return "Last"
	case jetstream.DeliverNewPolicy:
		return "New"
	case jetstream.DeliverLastPerSubjectPolicy:
		return "Last Per Subject"
	case jetstream.DeliverByStartTimePolicy:
		return fmt.Sprintf("Since %s", cfg.OptStartTime)
	case jetstream.DeliverByStartSequencePolicy:
		return fmt.Sprintf("From Sequence %d", cfg.OptStartSeq)
	}
	return cfg.DeliverPolicy.String()
}

func ackPolicyText(p jetstream.AckPolicy) string {
	switch p {
	case jetstream.AckNonePolicy:
		return "None"
	case jetstream.AckAllPolicy:
		return "All"
	case jetstream.AckExplicitPolicy:
		return "Explicit"
	case jetstream.AckFlowControlPolicy:
		return "Flow Control"
	}
	return p.String()
}

// priorityPolicyText is jsm.go's name for a priority policy, as natscli
// shows it.
func priorityPolicyText(p jetstream.PriorityPolicy) string {
	switch p {
	case jetstream.PriorityPolicyOverflow:
		return "Overflow"
	case jetstream.PriorityPolicyPinned:
		return "Pinned Client"
	case jetstream.PriorityPolicyPrioritized:
		return "Prioritized"
	}
	return "None"
}

func replayPolicyText(p jetstream.ReplayPolicy) string {
	if p == jetstream.ReplayOriginalPolicy {
		return "Original"
	}
	return "Instant"
}

// renderConsumerInfo writes the configuration and state blocks.
func renderConsumerInfo(w io.Writer, ci *jetstream.ConsumerInfo) error {
	cfg := ci.Config
	cols := newColumns("Information for Consumer %s > %s created %s", ci.Stream, ci.Name, human(ci.Created))
	cols.AddSectionTitle("Configuration")
	cols.AddRowIfNotEmpty("Name", cfg.Name)
	cols.AddRowIf("Durable Name", cfg.Durable, cfg.Durable != "" && cfg.Durable != cfg.Name)
	cols.AddRowIfNotEmpty("Description", cfg.Description)
	if cfg.DeliverSubject != "" {
		cols.AddRow("Delivery Subject", cfg.DeliverSubject)
	} else {
		cols.AddRow("Pull Mode", true)
	}
	if cfg.FilterSubject != "" {
		cols.AddRow("Filter Subject", cfg.FilterSubject)
	} else if len(cfg.FilterSubjects) > 0 {
		cols.AddRow("Filter Subjects", cfg.FilterSubjects)
	}
	cols.AddRow("Deliver Policy", deliverPolicyText(cfg))
	cols.AddRowIf("Deliver Queue Group", cfg.DeliverGroup, cfg.DeliverGroup != "" && cfg.DeliverSubject != "")
	cols.AddRow("Ack Policy", ackPolicyText(cfg.AckPolicy))
	cols.AddRowIf("Ack Wait", cfg.AckWait, cfg.AckPolicy != jetstream.AckNonePolicy)
	cols.AddRow("Replay Policy", replayPolicyText(cfg.ReplayPolicy))
	cols.AddRowIf("Maximum Deliveries", cfg.MaxDeliver, cfg.MaxDeliver != -1)
	cols.AddRowIfNotEmpty("Sampling Rate", cfg.SampleFrequency)
	cols.AddRowIf("Rate Limit", fmt.Sprintf("%s / second", size(cfg.RateLimit/8)), cfg.RateLimit > 0)
	cols.AddRowIf("Max Ack Pending", cfg.MaxAckPending, cfg.MaxAckPending > 0)
	cols.AddRowIf("Max Waiting Pulls", int64(cfg.MaxWaiting), cfg.MaxWaiting > 0)
	cols.AddRowIf("Idle Heartbeat", cfg.IdleHeartbeat, cfg.IdleHeartbeat > 0)
	cols.AddRowIf("Flow Control", cfg.FlowControl, cfg.DeliverSubject != "")
	cols.AddRowIf("Headers Only", true, cfg.HeadersOnly)
	cols.AddRowIf("Inactive Threshold", cfg.InactiveThreshold, cfg.InactiveThreshold > 0 && cfg.DeliverSubject == "")
	cols.AddRowIf("Max Pull Expire", cfg.MaxRequestExpires, cfg.MaxRequestExpires > 0)
	cols.AddRowIf("Max Pull Batch", cfg.MaxRequestBatch, cfg.MaxRequestBatch > 0)
	cols.AddRowIf("Max Pull MaxBytes", cfg.MaxRequestMaxBytes, cfg.MaxRequestMaxBytes > 0)
	cols.AddRowIf("Backoff", backoffText(cfg.BackOff), len(cfg.BackOff) > 0)
	cols.AddRowIf("Replicas", cfg.Replicas, cfg.Replicas > 0)
	cols.AddRowIf("Memory Storage", true, cfg.MemoryStorage)
	if ci.Paused && cfg.PauseUntil != nil {
		cols.AddRowf("Paused Until Deadline", "%s (%s remaining)", human(*cfg.PauseUntil), ci.PauseRemaining.Round(time.Second))
	} else if cfg.PauseUntil != nil && !cfg.PauseUntil.IsZero() {
		cols.AddRow("Paused Until Deadline", fmt.Sprintf("%s (passed)", human(*cfg.PauseUntil)))
	}
	if cfg.PriorityPolicy != jetstream.PriorityPolicyNone {
		cols.AddRow("Priority Policy", priorityPolicyText(cfg.PriorityPolicy))
		cols.AddRow("Priority Groups", cfg.PriorityGroups)
		cols.AddRowIf("Pinned TTL", cfg.PinnedTTL, cfg.PriorityPolicy == jetstream.PriorityPolicyPinned)
	}
	if meta := userMetadata(cfg.Metadata); len(meta) > 0 {
		cols.AddSectionTitle("Metadata")
		cols.AddMapStrings(meta)
	}
	renderClusterInfo(cols, ci.Cluster, cfg.Replicas, ci.TimeStamp)

	cols.AddSectionTitle("State")
	if v := cfg.Metadata["_nats.ver"]; v != "" {
		cols.AddRow("Host Version", v)
	}
	if lvl, req := cfg.Metadata["_nats.level"], cfg.Metadata["_nats.req.level"]; lvl != "" || req != "" {
		if req == "" {
			req = "0"
		}
		cols.AddRowf("Required API Level", "%s hosted at level %s", req, lvl)
	}
	if ci.Delivered.Last == nil {
		cols.AddRowf("Last Delivered Message", "Consumer sequence: %s Stream sequence: %s", human(ci.Delivered.Consumer), human(ci.Delivered.Stream))
	} else {
		cols.AddRowf("Last Delivered Message", "Consumer sequence: %s Stream sequence: %s Last delivery: %s ago", human(ci.Delivered.Consumer), human(ci.Delivered.Stream), human(since(ci.TimeStamp, *ci.Delivered.Last)))
	}
	if cfg.AckPolicy != jetstream.AckNonePolicy {
		if ci.AckFloor.Last == nil {
			cols.AddRowf("Acknowledgment Floor", "Consumer sequence: %s Stream sequence: %s", human(ci.AckFloor.Consumer), human(ci.AckFloor.Stream))
		} else {
			cols.AddRowf("Acknowledgment Floor", "Consumer sequence: %s Stream sequence: %s Last Ack: %s ago", human(ci.AckFloor.Consumer), human(ci.AckFloor.Stream), human(since(ci.TimeStamp, *ci.AckFloor.Last)))
		}
		if cfg.MaxAckPending > 0 {
			cols.AddRowf("Outstanding Acks", "%s out of maximum %s", human(ci.NumAckPending), human(cfg.MaxAckPending))
		} else {
			cols.AddRow("Outstanding Acks", ci.NumAckPending)
		}
		cols.AddRow("Redelivered Messages", ci.NumRedelivered)
	}
	cols.AddRow("Unprocessed Messages", ci.NumPending)
	if cfg.DeliverSubject == "" {
		if cfg.MaxWaiting > 0 {
			cols.AddRowf("Waiting Pulls", "%s of maximum %s", human(ci.NumWaiting), human(cfg.MaxWaiting))
		} else {
			cols.AddRowf("Waiting Pulls", "%s of unlimited", human(ci.NumWaiting))
		}
	} else {
		switch {
		case ci.PushBound && cfg.DeliverGroup != "":
			cols.AddRowf("Active Interest", "Active using Queue Group %s", cfg.DeliverGroup)
		case ci.PushBound:
			cols.AddRow("Active Interest", "Active")
		default:
			cols.AddRow("Active Interest", "No interest")
		}
	}
	if ci.Paused {
		cols.AddRowf("Paused Until", "%s (%s remaining)", human(ci.TimeStamp.Add(ci.PauseRemaining)), ci.PauseRemaining.Round(time.Second))
	}
	if len(ci.PriorityGroups) > 0 && cfg.PriorityPolicy == jetstream.PriorityPolicyPinned {
		groups := map[string]string{}
		for _, g := range ci.PriorityGroups {
			msg := "No client"
			if g.PinnedClientID != "" {
				msg = fmt.Sprintf("pinned %s at %s", g.PinnedClientID, human(g.PinnedTS))
			}
			groups[g.Group] = msg
		}
		cols.AddMapStringsAsValue("Priority Groups", groups)
	}
	return renderColumns(w, cols)
}

// renderClusterInfo adds the cluster section of a clustered consumer and,
// while it moves to new replicas, where it is moving to.
func renderClusterInfo(cols *columns.Writer, cl *jetstream.ClusterInfo, replicas int, ts time.Time) {
	if cl == nil || cl.Name == "" {
		return
	}
	cols.AddSectionTitle("Cluster Information")
	cols.AddRow("Name", cl.Name)
	cols.AddRowIfNotEmpty("Raft Group", cl.RaftGroup)
	if cl.LeaderSince == nil {
		cols.AddRow("Leader", cl.Leader)
	} else {
		cols.AddRowf("Leader", "%s (%s)", cl.Leader, human(since(ts, *cl.LeaderSince)))
	}
	for _, r := range cl.Replicas {
		seen := fmt.Sprintf("seen %s ago", human(r.Active))
		if r.Active == 0 || r.Active == math.MaxInt64 {
			seen = "not seen"
		}
		state := "outdated"
		if r.Current {
			state = "current"
		}
		cols.AddRowf("Replica", "%s, %s, %s", r.Name, state, seen)
	}
	if cl.Desired != nil {
		// The real CLI passes no placement or retention for a consumer.
		if d, err := consumerDesired(cl.Desired); err == nil {
			addDesiredState(cols, d, replicas, nil, nil, cl.Name, ts)
		}
	}
}

// backoffText lists backoff periods, eliding the middle of long lists.
func backoffText(bo []time.Duration) string {
	var times []string
	if len(bo) > 15 {
		for _, d := range bo[:5] {
			times = append(times, d.String())
		}
		times = append(times, "...")
		for _, d := range bo[len(bo)-5:] {
			times = append(times, d.String())
		}
		return fmt.Sprintf("%s (%d total)", human(times), len(bo))
	}
	for _, d := range bo {
		times = append(times, d.String())
	}
	return human(times)
}

// clusterText is natscli's cluster column: the leader starred, lagging
// replicas marked with !, names sorted.
func clusterText(cl *jetstream.ClusterInfo) string {
	if cl == nil {
		return ""
	}
	var names []string
	if cl.Leader != "" {
		names = append(names, cl.Leader+"*")
	}
	for _, r := range cl.Replicas {
		n := r.Name
		if r.Offline || !r.Current {
			n += "!"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return human(names)
}
