package command

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/choria-io/fisk"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/jsm.go/api"

	"natslab/broker/command/jsadmin"
)

func (s *streamCmd) buildEdit(e *fisk.CmdClause, c *Call) {
	e.Action(act(c, s.edit))
	e.Arg("stream", "The stream to change").StringVar(&s.stream)
	e.Flag("force", "Change without asking").Short('f').UnNegatableBoolVar(&s.force)
	e.Flag("interactive", "Edit the configuration in an editor (not in the lab)").Short('i').UnNegatableBoolVar(&s.interactive)
	e.Flag("dry-run", "Only show what would change").UnNegatableBoolVar(&s.dryRun)
	s.cfg.addConfigFlags(e, true)
	e.Flag("json", "Print the stream information as JSON").Short('j').UnNegatableBoolVar(&s.json)
}

// edit changes a stream: it shows the difference as the real CLI does, then
// asks (in the TUI) or needs --force (in a script), since shrinking a limit
// removes messages.
func (s *streamCmd) edit(c *Call) error {
	if err := s.needStream(c, "stream edit"); err != nil {
		return err
	}
	if s.interactive {
		return usageErrorf("the lab has no editor for stream edit -i: give the changes as flags, like stream edit %s --max-msgs 100", s.stream)
	}
	if err := s.cfg.unsupported(); err != nil {
		return err
	}
	if err := s.cfg.halfSet(); err != nil {
		return err
	}
	if s.cfg.storageSet {
		return usageErrorf("a stream's storage cannot change once it exists: create a new stream with --storage %s and remove this one", s.cfg.storage)
	}
	mgr, err := c.streamManager()
	if err != nil {
		return err
	}
	st, err := s.load(c)
	if err != nil {
		return err
	}
	input := st.Configuration()
	// The server's own metadata (version, API level) is not the user's to
	// edit; with none left, nil, so the diff does not show a change.
	input.Metadata = jsadmin.FilterServerMetadata(input.Metadata)
	if len(input.Metadata) == 0 {
		input.Metadata = nil
	}
	cfg, err := streamDeepCopy(input)
	if err != nil {
		return err
	}
	if err := s.cfg.editConfig(&cfg); err != nil {
		return err
	}
	// Subject lists that differ only in order are the same.
	sorted := cmp.Transformer("Sort", func(in []string) []string {
		out := append([]string(nil), in...)
		sort.Strings(out)
		return out
	})
	diff := cmp.Diff(input, cfg, sorted)
	if diff == "" {
		if !s.dryRun {
			fmt.Fprintln(c.Out, "No difference in configuration")
		}
		return nil
	}
	fmt.Fprintf(c.Out, "Differences (-old +new):\n%s", diff)
	if s.dryRun {
		return nil
	}
	hint := fmt.Sprintf("stream edit changes %s as shown above, which may remove messages: add --force to do it without asking (stream edit %s ... --force)", s.stream, s.stream)
	ok, err := c.confirm(s.force, fmt.Sprintf("Really edit Stream %s", s.stream), hint)
	if err != nil || !ok {
		return err
	}
	if err := st.UpdateConfiguration(cfg); err != nil {
		return s.createError(c, mgr, cfg, err, "could not edit Stream "+s.stream)
	}
	if !s.json {
		fmt.Fprintf(c.Out, "Stream %s was updated\n\n", s.stream)
	}
	info, err := st.LatestInformation()
	if err != nil {
		return c.streamAPIError(err, s.stream, "")
	}
	return s.show(c, info)
}

func streamDeepCopy(in api.StreamConfig) (api.StreamConfig, error) {
	var out api.StreamConfig
	j, err := json.Marshal(in)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(j, &out)
	return out, err
}

// editConfig applies the flags given to an existing configuration; what
// was not given stays as it is.
func (f *streamConfigFlags) editConfig(cfg *api.StreamConfig) error {
	if f.ackSet {
		cfg.NoAck = !f.ack
	}
	if f.discard != "" {
		cfg.Discard = streamDiscard(f.discard)
	}
	if len(f.subjects) > 0 {
		cfg.Subjects = streamSplitSubjects(f.subjects)
		for _, s := range cfg.Subjects {
			if err := validateSubject(s, true); err != nil {
				return err
			}
		}
	}
	if f.retention != "" {
		cfg.Retention = streamRetention(f.retention)
	}
	if f.maxBytes != "" {
		n, err := parseStreamSize("max-bytes", f.maxBytes, 64)
		if err != nil {
			return err
		}
		cfg.MaxBytes = n
		if n == 0 {
			cfg.MaxBytes = -1
		}
	}
	if f.maxMsgs != 0 {
		cfg.MaxMsgs = max(f.maxMsgs, -1)
	}
	if f.maxMsgsPer != 0 {
		cfg.MaxMsgsPer = max(f.maxMsgsPer, -1)
	}
	if f.maxAge != "" {
		d, err := parseStreamAge("max-age", f.maxAge)
		if err != nil {
			return err
		}
		cfg.MaxAge = d
	}
	if f.maxMsgSize != "" {
		n, err := parseStreamSize("max-msg-size", f.maxMsgSize, 32)
		if err != nil {
			return err
		}
		cfg.MaxMsgSize = int32(n)
		if n == 0 {
			cfg.MaxMsgSize = -1
		}
	}
	if f.maxConsumersSet {
		cfg.MaxConsumers = f.maxConsumers
	}
	if f.dupeWindow != "" {
		d, err := parseStreamAge("dupe-window", f.dupeWindow)
		if err != nil {
			return err
		}
		cfg.Duplicates = d
	}
	if f.replicas < 0 {
		return usageErrorf("--replicas must be 1 or more, got %d", f.replicas)
	}
	if f.replicas != 0 {
		cfg.Replicas = int(f.replicas)
	}
	if cfg.Placement == nil {
		cfg.Placement = &api.Placement{}
	}
	if f.placementClusterSet {
		cfg.Placement.Cluster = f.placementCluster
	}
	if f.tagsSet {
		cfg.Placement.Tags = f.tags
		if len(f.tags) == 1 && f.tags[0] == "" {
			cfg.Placement.Tags = nil
		}
	}
	if cfg.Placement.Cluster == "" && len(cfg.Placement.Tags) == 0 && cfg.Placement.Preferred == "" {
		cfg.Placement = nil
	}
	if f.description != "" {
		cfg.Description = f.description
	}
	if f.compressionSet {
		cfg.Compression = api.NoCompression
		if f.compression == "s2" {
			cfg.Compression = api.S2Compression
		}
	}
	f.applyOptions(cfg)
	if f.noRepub {
		cfg.RePublish = nil
	}
	if f.noTransform {
		cfg.SubjectTransform = nil
	}
	if f.noMirror {
		cfg.Mirror = nil
	}
	return nil
}
