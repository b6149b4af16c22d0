package command

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/natscli/columns"
)

func (s *streamCmd) buildInfo(info *fisk.CmdClause, c *Call) {
	info.Action(act(c, s.info))
	info.Arg("stream", "The stream to show").StringVar(&s.stream)
	info.Flag("json", "Print the stream information as JSON").Short('j').UnNegatableBoolVar(&s.json)
	info.Flag("state", "Show only the state").UnNegatableBoolVar(&s.stateOnly)
	info.Flag("no-select", "Never offer a list of streams (the lab never does)").UnNegatableBoolVar(&s.noSelect)

}

func (s *streamCmd) buildState(state *fisk.CmdClause, c *Call) {
	state.Action(act(c, func(c *Call) error {
		s.stateOnly = true
		return s.info(c)
	}))
	state.Arg("stream", "The stream to show").StringVar(&s.stream)
	state.Flag("json", "Print the stream information as JSON").Short('j').UnNegatableBoolVar(&s.json)
	state.Flag("no-select", "Never offer a list of streams (the lab never does)").UnNegatableBoolVar(&s.noSelect)
}

// info is natscli's infoAction (and stateAction, with --state).
func (s *streamCmd) info(c *Call) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if st, err = s.loadStream(c, mgr, st, "could not request Stream info"); err != nil {
		return err
	}
	if err := s.showStream(c, st); err != nil {
		return fatalIf(err, "could not show stream")
	}
	fmt.Fprintln(c.Out)
	return nil
}

// showStream is natscli's: the stream's latest information, as JSON with
// --json, else its configuration (unless only the state is wanted) and
// state; and the lab's note on a state that reads oddly.
func (s *streamCmd) showStream(c *Call, st *jsm.Stream) error {
	info, err := st.LatestInformation()
	if err != nil {
		return err
	}
	if err := s.show(c, info); err != nil {
		return err
	}
	stateNote(c, info.State)
	return nil
}

// stateNote explains a stream emptied by a purge, by acknowledgements or by
// age, where the first sequence shown is past the last one.
func stateNote(c *Call, st api.StreamState) {
	if st.Msgs == 0 && st.LastSeq > 0 && st.FirstSeq > st.LastSeq {
		c.Notef("First Sequence %s > Last Sequence %s: the stream holds no message now, and the next one stored gets sequence %s", human(st.FirstSeq), human(st.LastSeq), human(st.FirstSeq))
	}
}

// show prints a stream's information as the real CLI does after info, add,
// edit and purge: JSON with --json, else the configuration (unless only the
// state is wanted), the cluster, and the state.
func (s *streamCmd) show(c *Call, info *api.StreamInfo) error {
	if s.json {
		return streamJSON(c.Out, info)
	}
	return renderStreamInfo(c.Out, info, s.stateOnly)
}

// streamJSON prints v indented, as the real CLI's --json does.
func streamJSON(w io.Writer, v any) error {
	j, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(j))
	return err
}

func renderStreamInfo(w io.Writer, info *api.StreamInfo, stateOnly bool) error {
	var cols *columns.Writer
	if stateOnly {
		cols = newColumns("State for Stream %s created %s", info.Config.Name, human(info.Created.Local()))
	} else {
		cols = newColumns("Information for Stream %s created %s", info.Config.Name, human(info.Created.Local()))
		addStreamConfig(cols, info.Config)
	}
	addStreamClusterInfo(cols, info)
	if info.Mirror != nil {
		cols.AddSectionTitle("Mirror Information")
		addStreamSourceInfo(cols, info.Mirror)
	}
	if len(info.Sources) > 0 {
		cols.AddSectionTitle("Source Information")
		for _, src := range info.Sources {
			addStreamSourceInfo(cols, src)
			cols.Println()
		}
	}
	addStreamState(cols, info)
	return renderColumns(w, cols)
}

func addStreamConfig(cols *columns.Writer, cfg api.StreamConfig) {
	cols.AddRowIfNotEmpty("Description", cfg.Description)
	cols.AddRowIf("Subjects", cfg.Subjects, len(cfg.Subjects) > 0)
	cols.AddRow("Replicas", cfg.Replicas)
	cols.AddRowIf("Sealed", true, cfg.Sealed)
	cols.AddRow("Storage", cfg.Storage.String())
	cols.AddRowIf("Compression", cfg.Compression, cfg.Compression != api.NoCompression)
	cols.AddRowIf("Persistence Mode", cfg.PersistMode.String(), cfg.PersistMode != api.DefaultPersistMode)
	if cfg.FirstSeq > 0 {
		cols.AddRow("First Sequence", cfg.FirstSeq)
	}
	if cfg.Placement != nil {
		cols.AddRowIfNotEmpty("Placement Cluster", cfg.Placement.Cluster)
		cols.AddRowIf("Placement Tags", cfg.Placement.Tags, len(cfg.Placement.Tags) > 0)
		cols.AddRowIfNotEmpty("Preferred", cfg.Placement.Preferred)
	}

	cols.AddSectionTitle("Options")
	if cfg.SubjectTransform != nil && cfg.SubjectTransform.Destination != "" {
		src := cfg.SubjectTransform.Source
		if src == "" {
			src = ">"
		}
		cols.AddRowf("Subject Transform", "%s to %s", src, cfg.SubjectTransform.Destination)
	}
	if cfg.RePublish != nil {
		label := "Republishing"
		if cfg.RePublish.HeadersOnly {
			label = "Republishing Headers"
		}
		cols.AddRowf(label, "%s to %s", cfg.RePublish.Source, cfg.RePublish.Destination)
	}
	cols.AddRow("Retention", cfg.Retention.String())
	cols.AddRow("Acknowledgments", !cfg.NoAck)
	discard := cfg.Discard.String()
	if cfg.DiscardNewPer {
		discard = "New Per Subject"
	}
	cols.AddRow("Discard Policy", discard)
	cols.AddRow("Duplicate Window", cfg.Duplicates)
	cols.AddRowIf("Direct Get", cfg.AllowDirect, cfg.AllowDirect)
	cols.AddRowIf("Mirror Direct Get", cfg.MirrorDirect, cfg.MirrorDirect)
	cols.AddRow("Allows Atomic Batch Publish", cfg.AllowAtomicPublish)
	cols.AddRow("Allows Fast Batch Publish", cfg.AllowBatchPublish)
	cols.AddRow("Allows Counters", cfg.AllowMsgCounter)
	cols.AddRow("Allows Msg Delete", !cfg.DenyDelete)
	cols.AddRow("Allows Per-Message TTL", cfg.AllowMsgTTL)
	cols.AddRow("Allows Purge", !cfg.DenyPurge)
	cols.AddRow("Allows Schedules", cfg.AllowMsgSchedules)
	if cfg.AllowMsgTTL && cfg.SubjectDeleteMarkerTTL > 0 {
		cols.AddRow("Subject Delete Markers TTL", cfg.SubjectDeleteMarkerTTL)
	}
	cols.AddRow("Allows Rollups", cfg.RollupAllowed)

	cols.AddSectionTitle("Limits")
	unlimitedIf := func(label string, v any, unlimited bool) {
		if unlimited {
			cols.AddRow(label, "unlimited")
		} else {
			cols.AddRow(label, v)
		}
	}
	unlimitedIf("Maximum Messages", cfg.MaxMsgs, cfg.MaxMsgs == -1)
	unlimitedIf("Maximum Per Subject", cfg.MaxMsgsPer, cfg.MaxMsgsPer <= 0)
	unlimitedIf("Maximum Bytes", size(cfg.MaxBytes), cfg.MaxBytes == -1)
	unlimitedIf("Maximum Age", cfg.MaxAge, cfg.MaxAge <= 0)
	unlimitedIf("Maximum Message Size", size(cfg.MaxMsgSize), cfg.MaxMsgSize == -1)
	unlimitedIf("Maximum Consumers", cfg.MaxConsumers, cfg.MaxConsumers == -1)
	cols.AddRowIf("Consumer Inactive Threshold", cfg.ConsumerLimits.InactiveThreshold, cfg.ConsumerLimits.InactiveThreshold > 0)
	cols.AddRowIf("Consumer Max Ack Pending", cfg.ConsumerLimits.MaxAckPending, cfg.ConsumerLimits.MaxAckPending > 0)

	if meta := jsm.FilterServerMetadata(cfg.Metadata); len(meta) > 0 {
		cols.AddSectionTitle("Metadata")
		cols.AddMapStrings(meta)
	}
	if cfg.Mirror != nil || len(cfg.Sources) > 0 {
		cols.AddSectionTitle("Replication")
	}
	if cfg.Mirror != nil {
		cols.AddRow("Mirror", streamSourceText(cfg.Mirror))
	}
	sources := append([]*api.StreamSource(nil), cfg.Sources...)
	sort.Slice(sources, func(i, j int) bool { return sources[i].Name < sources[j].Name })
	for i, src := range sources {
		label := ""
		if i == 0 {
			label = "Sources"
		}
		cols.AddRow(label, streamSourceText(src))
	}
	cols.Println()
}

func streamSourceText(s *api.StreamSource) string {
	parts := []string{s.Name}
	if s.OptStartSeq > 0 {
		parts = append(parts, fmt.Sprintf("Start Seq: %s", human(s.OptStartSeq)))
	}
	if s.OptStartTime != nil {
		parts = append(parts, fmt.Sprintf("Start Time: %v", s.OptStartTime))
	}
	if s.External != nil {
		if s.External.ApiPrefix != "" {
			parts = append(parts, fmt.Sprintf("API Prefix: %s", s.External.ApiPrefix))
		}
		if s.External.DeliverPrefix != "" {
			parts = append(parts, fmt.Sprintf("Delivery Prefix: %s", s.External.DeliverPrefix))
		}
	}
	if s.Consumer != nil {
		if s.Consumer.DeliverSubject == "" {
			parts = append(parts, fmt.Sprintf("Consumer Name: %s", s.Consumer.Name))
		} else {
			parts = append(parts, fmt.Sprintf("Consumer Name: %s (%s)", s.Consumer.Name, s.Consumer.DeliverSubject))
		}
	}
	return human(parts)
}

func addStreamSourceInfo(cols *columns.Writer, s *api.StreamSourceInfo) {
	cols.AddRow("Stream Name", s.Name)
	switch {
	case s.FilterSubject != "":
		cols.AddRow("Subject Filter", s.FilterSubject)
	case len(s.SubjectTransforms) > 0:
		for i, t := range s.SubjectTransforms {
			label := ""
			if i == 0 {
				label = "Subject Filter and Transform"
				if len(s.SubjectTransforms) > 1 {
					label = "Subject Filters and Transforms"
				}
			}
			if t.Destination == "" {
				cols.AddRowf(label, "%s untransformed", t.Source)
			} else {
				cols.AddRowf(label, "%s to %s", t.Source, t.Destination)
			}
		}
	}
	cols.AddRow("Lag", s.Lag)
	if s.Active > 0 && s.Active < math.MaxInt64 {
		cols.AddRow("Last Seen", s.Active)
	} else {
		cols.AddRow("Last Seen", "never")
	}
	if s.External != nil {
		cols.AddRow("Ext. API Prefix", s.External.ApiPrefix)
		if s.External.DeliverPrefix != "" {
			cols.AddRow("Ext. Delivery Prefix", s.External.DeliverPrefix)
		}
	}
	if s.Error != nil {
		cols.AddRow("Error", s.Error.Description)
	}
}

// addStreamClusterInfo is the Cluster Information block, shown when the stream
// lives in a cluster: its leader, how each replica is doing, and where it is
// moving to while it moves.
func addStreamClusterInfo(cols *columns.Writer, info *api.StreamInfo) {
	cl := info.Cluster
	if cl == nil || cl.Name == "" {
		return
	}
	cols.AddSectionTitle("Cluster Information")
	cols.AddRow("Name", cl.Name)
	cols.AddRowIf("Cluster Traffic Account", "System Account", cl.SystemAcc)
	cols.AddRowIf("Cluster Traffic Account", cl.TrafficAcc, !cl.SystemAcc && cl.TrafficAcc != "")
	cols.AddRowIfNotEmpty("Cluster Group", cl.RaftGroup)
	if cl.LeaderSince == nil {
		cols.AddRow("Leader", cl.Leader)
	} else {
		cols.AddRowf("Leader", "%s (%s)", cl.Leader, human(streamSince(info.TimeStamp, *cl.LeaderSince)))
	}
	for _, r := range cl.Replicas {
		cols.AddRow("Replica", streamReplicaState(r))
	}
	if cl.Desired != nil {
		addDesiredState(cols, cl.Desired, info.Config.Replicas, info.Config.Placement, &info.Config.Retention, cl.Name, info.TimeStamp)
	}
	cols.Println()
}

// streamReplicaState describes one replica as the real CLI does: "n2, current,
// seen 12ms ago".
func streamReplicaState(r *api.PeerInfo) []string {
	state := []string{r.Name}
	if r.Current {
		state = append(state, "current")
	} else {
		state = append(state, "outdated")
	}
	if r.Offline {
		state = append(state, "OFFLINE")
	}
	if r.Active > 0 && r.Active < math.MaxInt64 {
		state = append(state, fmt.Sprintf("seen %s ago", human(r.Active)))
	} else {
		state = append(state, "not seen")
	}
	if r.Pending {
		state = append(state, "(pending)")
	}
	switch {
	case r.Lag > 1:
		state = append(state, fmt.Sprintf("%s operations behind", human(r.Lag)))
	case r.Lag == 1:
		state = append(state, "1 operation behind")
	}
	return state
}

// streamSince is how long before ref (the server's timestamp of the answer) t
// was, or before now when the server gave no timestamp.
func streamSince(ref, t time.Time) time.Duration {
	if ref.IsZero() {
		return time.Since(t)
	}
	return ref.Sub(t)
}

func addStreamState(cols *columns.Writer, info *api.StreamInfo) {
	st := info.State
	cols.AddSectionTitle("State")
	addStreamAPILevel(cols, info.Config.Metadata)
	cols.AddRow("Messages", st.Msgs)
	cols.AddRow("Bytes", size(st.Bytes))
	if st.Lost != nil && len(st.Lost.Msgs) > 0 {
		cols.AddRowf("Lost Messages", "%s (%s)", human(len(st.Lost.Msgs)), size(st.Lost.Bytes))
	}
	zero := func(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }
	switch {
	case zero(st.FirstTime):
		cols.AddRow("First Sequence", st.FirstSeq)
	default:
		cols.AddRowf("First Sequence", "%s @ %s", human(st.FirstSeq), human(st.FirstTime))
	}
	if zero(st.LastTime) {
		cols.AddRow("Last Sequence", st.LastSeq)
	} else {
		cols.AddRowf("Last Sequence", "%s @ %s", human(st.LastSeq), human(st.LastTime))
	}
	if len(st.Deleted) > 0 {
		cols.AddRow("Deleted Messages", len(st.Deleted))
	} else if st.NumDeleted > 0 {
		cols.AddRow("Deleted Messages", st.NumDeleted)
	}
	cols.AddRow("Active Consumers", st.Consumers)
	if st.NumSubjects > 0 {
		cols.AddRow("Number of Subjects", st.NumSubjects)
	}
	if len(info.Alternates) > 0 {
		lName, lCluster := 0, 0
		for _, a := range info.Alternates {
			lName = max(lName, len(a.Name))
			lCluster = max(lCluster, len(a.Cluster))
		}
		for i, a := range info.Alternates {
			msg := fmt.Sprintf("%s%s: Cluster: %s%s", strings.Repeat(" ", lName-len(a.Name)), a.Name, strings.Repeat(" ", lCluster-len(a.Cluster)), a.Cluster)
			if a.Domain != "" {
				msg += " Domain: " + a.Domain
			}
			label := ""
			if i == 0 {
				label = "Alternates"
			}
			cols.AddRow(label, msg)
		}
	}
}

// addStreamAPILevel shows the server version and API level the server recorded
// in the stream's metadata.
func addStreamAPILevel(cols *columns.Writer, meta map[string]string) {
	version := meta[api.JSMetaCurrentServerVersion]
	level := meta[api.JSMetaCurrentServerLevel]
	required := meta[api.JsMetaRequiredServerLevel]
	if version != "" {
		cols.AddRow("Host Version", version)
	}
	if level != "" || required != "" {
		if required == "" {
			required = "0"
		}
		cols.AddRowf("Required API Level", "%s hosted at level %s", required, level)
	}
}
