package command

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
)

// streamConfigFlags are the flags of stream add and stream edit that describe a
// stream's configuration.
type streamConfigFlags struct {
	subjects                             []string
	description                          string
	storage                              string
	storageSet                           bool
	compression                          string
	compressionSet                       bool
	replicas                             int64
	placementCluster                     string
	placementClusterSet                  bool
	tags                                 []string
	tagsSet                              bool
	ack, ackSet                          bool
	retention                            string
	discard                              string
	discardPerSubject, discardPerSubjSet bool
	firstSeq                             uint64
	maxAge                               string
	maxBytes                             string
	maxConsumers                         int
	maxConsumersSet                      bool
	maxMsgSize                           string
	maxMsgs                              int64
	maxMsgsPer                           int64
	dupeWindow                           string
	allowBatch, allowBatchSet            bool
	allowFast, allowFastSet              bool
	allowCounter, allowCounterSet        bool
	allowRollup, allowRollupSet          bool
	denyDelete, denyDeleteSet            bool
	denyPurge, denyPurgeSet              bool
	allowDirect, allowDirectSet          bool
	allowMsgTTL, allowMsgTTLSet          bool
	allowSchedules, allowSchedulesSet    bool
	markerTTL                            time.Duration
	markerTTLSet                         bool
	transformSource, transformDest       string
	noTransform                          bool
	metadata                             map[string]string
	metadataSet                          bool
	repubSource, repubDest               string
	repubHeaders, noRepub                bool
	limitInactive                        time.Duration
	limitMaxAckPending                   int
	persistMode                          string
	defaults                             bool
	mirror, configFile                   string
	sources                              []string
	noMirror                             bool
	mirrorSet, sourcesSet, configSet     bool
	allowMirrorDirect, allowMirrorDirSet bool
}

// streamRetentions are the spellings --retention accepts, the real CLI's;
// a note explains the names people expect (workqueue, work-queue).
var streamRetentions = []string{"limits", "interest", "workq", "work"}

// addConfigFlags declares the configuration flags on add (edit false) or edit.
func (f *streamConfigFlags) addConfigFlags(cmd *fisk.CmdClause, edit bool) {
	f.metadata = map[string]string{}
	cmd.Flag("subjects", "Subjects the stream stores, like orders.> (repeat, or separate with commas)").StringsVar(&f.subjects)
	cmd.Flag("description", "A description of the stream").StringVar(&f.description)
	if !edit {
		cmd.Flag("storage", "Where messages are kept: file or memory").EnumVar(&f.storage, "file", "f", "memory", "m")
	} else {
		// Not the real CLI's: there, --storage on edit is an unknown flag.
		cmd.Flag("storage", "Storage cannot change after a stream is created").Hidden().IsSetByUser(&f.storageSet).StringVar(&f.storage)
	}
	cmd.Flag("compression", "Compress file storage: none or s2").IsSetByUser(&f.compressionSet).EnumVar(&f.compression, "none", "s2")
	cmd.Flag("replicas", "How many servers keep a copy (needs a cluster above 1)").Int64Var(&f.replicas)
	cmd.Flag("tag", "Place the stream on servers with this tag (repeat for more)").IsSetByUser(&f.tagsSet).StringsVar(&f.tags)
	cmd.Flag("cluster", "Place the stream in this cluster").IsSetByUser(&f.placementClusterSet).StringVar(&f.placementCluster)
	cmd.Flag("ack", "Acknowledge each publish (the default)").IsSetByUser(&f.ackSet).Default("true").BoolVar(&f.ack)
	cmd.Flag("retention", "When messages are removed: limits, interest or workqueue").EnumVar(&f.retention, streamRetentions...)
	cmd.Flag("discard", "What a full stream drops: old (oldest messages) or new (refuses new ones)").EnumVar(&f.discard, "new", "old")
	cmd.Flag("discard-per-subject", "Apply discard new per subject").IsSetByUser(&f.discardPerSubjSet).BoolVar(&f.discardPerSubject)
	if !edit {
		cmd.Flag("first-sequence", "The sequence number of the first message").Uint64Var(&f.firstSeq)
	}
	cmd.Flag("max-age", "How long messages are kept, like 10s, 1h, 7d or 1w").PlaceHolder("DURATION").StringVar(&f.maxAge)
	cmd.Flag("max-bytes", "How much data is kept, like 512MB or 1GB").PlaceHolder("BYTES").StringVar(&f.maxBytes)
	cmd.Flag("max-consumers", "How many consumers may exist").IsSetByUser(&f.maxConsumersSet).Default("-1").IntVar(&f.maxConsumers)
	cmd.Flag("max-msg-size", "The largest message accepted, like 1MB").PlaceHolder("BYTES").StringVar(&f.maxMsgSize)
	cmd.Flag("max-msgs", "How many messages are kept").PlaceHolder("COUNT").Int64Var(&f.maxMsgs)
	cmd.Flag("max-msgs-per-subject", "How many messages are kept per subject").PlaceHolder("COUNT").Int64Var(&f.maxMsgsPer)
	cmd.Flag("dupe-window", "How long message IDs are remembered to drop duplicates, like 2m").PlaceHolder("DURATION").StringVar(&f.dupeWindow)
	cmd.Flag("mirror", "Mirror another stream (not in the lab yet)").IsSetByUser(&f.mirrorSet).StringVar(&f.mirror)
	if edit {
		cmd.Flag("no-mirror", "Remove the mirror").UnNegatableBoolVar(&f.noMirror)
	}
	cmd.Flag("source", "Source messages from other streams (not in the lab yet)").PlaceHolder("STREAM").IsSetByUser(&f.sourcesSet).StringsVar(&f.sources)
	cmd.Flag("allow-batch", "Allow atomic batch publishing").IsSetByUser(&f.allowBatchSet).BoolVar(&f.allowBatch)
	cmd.Flag("allow-fast", "Allow fast batch publishing").IsSetByUser(&f.allowFastSet).BoolVar(&f.allowFast)
	cmd.Flag("allow-counter", "Make the stream a distributed counter").IsSetByUser(&f.allowCounterSet).UnNegatableBoolVar(&f.allowCounter)
	cmd.Flag("allow-rollup", "Allow roll-ups with the Nats-Rollup header").IsSetByUser(&f.allowRollupSet).BoolVar(&f.allowRollup)
	cmd.Flag("deny-delete", "Refuse deleting single messages").IsSetByUser(&f.denyDeleteSet).BoolVar(&f.denyDelete)
	cmd.Flag("deny-purge", "Refuse purges").IsSetByUser(&f.denyPurgeSet).BoolVar(&f.denyPurge)
	cmd.Flag("allow-direct", "Allow fast direct reads of messages (the default)").IsSetByUser(&f.allowDirectSet).Default("true").BoolVar(&f.allowDirect)
	cmd.Flag("allow-mirror-direct", "Allow direct reads on mirrors").IsSetByUser(&f.allowMirrorDirSet).BoolVar(&f.allowMirrorDirect)
	cmd.Flag("allow-msg-ttl", "Allow a TTL per message (Nats-TTL header)").IsSetByUser(&f.allowMsgTTLSet).UnNegatableBoolVar(&f.allowMsgTTL)
	cmd.Flag("allow-schedules", "Allow scheduled messages").IsSetByUser(&f.allowSchedulesSet).BoolVar(&f.allowSchedules)
	cmd.Flag("subject-del-markers-ttl", "How long delete markers stay in the stream").PlaceHolder("DURATION").IsSetByUser(&f.markerTTLSet).DurationVar(&f.markerTTL)
	cmd.Flag("transform-source", "Subjects to transform on the way in").PlaceHolder("SOURCE").StringVar(&f.transformSource)
	cmd.Flag("transform-destination", "What --transform-source subjects become").PlaceHolder("DEST").StringVar(&f.transformDest)
	if edit {
		cmd.Flag("no-transform", "Remove the subject transform").UnNegatableBoolVar(&f.noTransform)
	}
	cmd.Flag("metadata", "Metadata as key=value (repeat for more)").PlaceHolder("META").IsSetByUser(&f.metadataSet).StringMapVar(&f.metadata)
	cmd.Flag("republish-source", "Subjects to republish as they are stored").PlaceHolder("SOURCE").StringVar(&f.repubSource)
	cmd.Flag("republish-destination", "Where --republish-source messages are republished").PlaceHolder("DEST").StringVar(&f.repubDest)
	cmd.Flag("republish-headers", "Republish headers only, without bodies").UnNegatableBoolVar(&f.repubHeaders)
	if edit {
		cmd.Flag("no-republish", "Remove the republish setting").UnNegatableBoolVar(&f.noRepub)
	}
	if !edit {
		cmd.Flag("limit-consumer-inactive", "The longest inactive threshold a consumer may have").PlaceHolder("THRESHOLD").DurationVar(&f.limitInactive)
		cmd.Flag("limit-consumer-max-pending", "The most unacknowledged messages a consumer may have").PlaceHolder("PENDING").IntVar(&f.limitMaxAckPending)
		cmd.Flag("persist-mode", "Persistence mode: default or async").EnumVar(&f.persistMode, "default", "async")
	}
	cmd.Flag("config", "Read the configuration from a JSON file (not in the lab yet)").IsSetByUser(&f.configSet).StringVar(&f.configFile)
}

// unsupported refuses the flags the lab does not have yet, naming them.
func (f *streamConfigFlags) unsupported() error {
	switch {
	case f.mirrorSet, f.sourcesSet:
		return usageErrorf("mirrors and sources are not in the lab yet: create the stream with --subjects instead")
	case f.configSet:
		return usageErrorf("--config files are not in the lab yet: give the settings as flags, like --subjects and --max-age")
	}
	return nil
}

// streamStorage maps --storage to the API's storage type.
func streamStorage(s string) api.StorageType {
	if s == "memory" || s == "m" {
		return api.MemoryStorage
	}
	return api.FileStorage
}

// streamRetention maps --retention to the API's policy.
func streamRetention(s string) api.RetentionPolicy {
	switch s {
	case "interest":
		return api.InterestPolicy
	case "workq", "work":
		return api.WorkQueuePolicy
	}
	return api.LimitsPolicy
}

func streamDiscard(s string) api.DiscardPolicy {
	if s == "new" {
		return api.DiscardNew
	}
	return api.DiscardOld
}

var streamSizeRE = regexp.MustCompile(`^(\d+)\s*([A-Za-z]+)$`)

// parseStreamSize reads sizes as the real CLI does: 1024-based units (K, KB,
// KiB, M, MB, G, GB, T, TB; 1MB is 1,048,576 bytes), a plain number of
// bytes, or anything negative for unlimited (-1). The lab also takes
// "unlimited".
func parseStreamSize(flag, s string, bits int) (int64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") || strings.EqualFold(s, "unlimited") {
		return -1, nil
	}
	bad := usageErrorf("--%s wants a size like 512, 64KB or 1GB (or -1 for unlimited), got %q", flag, s)
	if n, err := strconv.ParseInt(s, 10, bits); err == nil {
		return n, nil
	}
	m := streamSizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, bad
	}
	shift, ok := map[string]uint{"B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}[strings.ToUpper(m[2])]
	if !ok {
		return 0, bad
	}
	n, err := strconv.ParseInt(m[1], 10, bits)
	if err != nil {
		return 0, bad
	}
	limit := int64(math.MaxInt64)
	if bits == 32 {
		limit = math.MaxInt32
	}
	if n > limit>>shift {
		return 0, usageErrorf("--%s %s is too large: the most is %s bytes", flag, s, f(limit))
	}
	return n << shift, nil
}

// parseStreamAge reads a duration in the real CLI's syntax (1d, 1w, 10s, 1h30m);
// -1, 0 and "unlimited" mean no limit.
func parseStreamAge(flag, s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "-1" || s == "0" || strings.EqualFold(s, "unlimited") {
		return 0, nil
	}
	d, err := fisk.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usageErrorf("--%s wants a duration like 10s, 5m, 1h, 7d or 1w (or -1 for unlimited), got %q", flag, s)
	}
	return d, nil
}

// streamDupeWindow is the real CLI's: two minutes, or the maximum age when
// that is shorter (a window longer than messages live is refused).
func streamDupeWindow(maxAge time.Duration) time.Duration {
	if maxAge > 0 && maxAge < 2*time.Minute {
		return maxAge
	}
	return 2 * time.Minute
}

// newConfig builds a new stream's configuration from the flags. Where the
// real CLI would prompt, it takes the default and notes it in defaulted,
// so the caller can say which values were chosen for the learner.
func (f *streamConfigFlags) newConfig(name string) (cfg api.StreamConfig, defaulted []string, unlimited []string, err error) {
	note := func(s string) {
		if !f.defaults {
			defaulted = append(defaulted, s)
		}
	}
	noteUnlimited := func(flag string) {
		if !f.defaults {
			unlimited = append(unlimited, flag)
		}
	}
	cfg = api.StreamConfig{
		Name:         name,
		Description:  f.description,
		MaxConsumers: f.maxConsumers,
		NoAck:        !f.ack,
		AllowDirect:  f.allowDirect,
		FirstSeq:     f.firstSeq,
	}
	cfg.Subjects = streamSplitSubjects(f.subjects)
	if len(cfg.Subjects) == 0 {
		// The server's own default for a stream without subjects.
		cfg.Subjects = []string{name}
		defaulted = append(defaulted, fmt.Sprintf("--subjects %s (the stream's name)", name))
	}
	for _, s := range cfg.Subjects {
		if err := validateSubject(s, true); err != nil {
			return cfg, nil, nil, err
		}
	}
	if f.storage == "" {
		f.storage = "file"
		note("--storage file")
	}
	cfg.Storage = streamStorage(f.storage)
	if f.compression == "s2" {
		cfg.Compression = api.S2Compression
	}
	switch {
	case f.replicas == 0:
		f.replicas = 1
		note("--replicas 1")
	case f.replicas < 0:
		return cfg, nil, nil, usageErrorf("--replicas must be 1 or more, got %d", f.replicas)
	}
	cfg.Replicas = int(f.replicas)
	if f.retention == "" {
		f.retention = "limits"
		note("--retention limits")
	}
	cfg.Retention = streamRetention(f.retention)
	if f.discard == "" {
		f.discard = "old"
		note("--discard old")
	}
	cfg.Discard = streamDiscard(f.discard)
	cfg.DiscardNewPer = f.discardPerSubject

	cfg.MaxMsgs = f.maxMsgs
	if f.maxMsgs == 0 {
		noteUnlimited("--max-msgs")
	}
	if cfg.MaxMsgs <= 0 {
		cfg.MaxMsgs = -1
	}
	cfg.MaxMsgsPer = f.maxMsgsPer
	if f.maxMsgsPer == 0 {
		noteUnlimited("--max-msgs-per-subject")
	}
	if cfg.MaxMsgsPer <= 0 {
		cfg.MaxMsgsPer = -1
	}
	cfg.MaxBytes = -1
	if f.maxBytes == "" {
		noteUnlimited("--max-bytes")
	} else if cfg.MaxBytes, err = parseStreamSize("max-bytes", f.maxBytes, 64); err != nil {
		return cfg, nil, nil, err
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = -1
	}
	if f.maxAge == "" {
		noteUnlimited("--max-age")
	} else if cfg.MaxAge, err = parseStreamAge("max-age", f.maxAge); err != nil {
		return cfg, nil, nil, err
	}
	cfg.MaxMsgSize = -1
	if f.maxMsgSize == "" {
		noteUnlimited("--max-msg-size")
	} else {
		n, err := parseStreamSize("max-msg-size", f.maxMsgSize, 32)
		if err != nil {
			return cfg, nil, nil, err
		}
		if n > 0 {
			cfg.MaxMsgSize = int32(n)
		}
	}
	if f.dupeWindow == "" {
		cfg.Duplicates = streamDupeWindow(cfg.MaxAge)
		note("--dupe-window " + humanDuration(cfg.Duplicates))
	} else if cfg.Duplicates, err = parseStreamAge("dupe-window", f.dupeWindow); err != nil {
		return cfg, nil, nil, err
	}
	f.applyOptions(&cfg)
	if f.limitInactive > 0 {
		cfg.ConsumerLimits.InactiveThreshold = f.limitInactive
	}
	if f.limitMaxAckPending > 0 {
		cfg.ConsumerLimits.MaxAckPending = f.limitMaxAckPending
	}
	if f.persistMode == "async" {
		cfg.PersistMode = api.AsyncPersistMode
	}
	if f.placementCluster != "" || len(f.tags) > 0 {
		cfg.Placement = &api.Placement{Cluster: f.placementCluster, Tags: f.tags}
	}
	return cfg, defaulted, unlimited, nil
}

// applyOptions sets the on/off options and the transforms that add and
// edit share: only those given on the command line.
func (f *streamConfigFlags) applyOptions(cfg *api.StreamConfig) {
	set := func(isSet bool, v bool, field *bool) {
		if isSet {
			*field = v
		}
	}
	set(f.allowRollupSet, f.allowRollup, &cfg.RollupAllowed)
	set(f.denyDeleteSet, f.denyDelete, &cfg.DenyDelete)
	set(f.denyPurgeSet, f.denyPurge, &cfg.DenyPurge)
	set(f.allowDirectSet, f.allowDirect, &cfg.AllowDirect)
	set(f.allowMirrorDirSet, f.allowMirrorDirect, &cfg.MirrorDirect)
	set(f.allowSchedulesSet, f.allowSchedules, &cfg.AllowMsgSchedules)
	set(f.allowMsgTTLSet, f.allowMsgTTL, &cfg.AllowMsgTTL)
	set(f.allowBatchSet, f.allowBatch, &cfg.AllowAtomicPublish)
	set(f.allowFastSet, f.allowFast, &cfg.AllowBatchPublish)
	set(f.allowCounterSet, f.allowCounter, &cfg.AllowMsgCounter)
	set(f.discardPerSubjSet, f.discardPerSubject, &cfg.DiscardNewPer)
	if f.markerTTLSet {
		cfg.SubjectDeleteMarkerTTL = f.markerTTL
	}
	if f.metadataSet {
		cfg.Metadata = f.metadata
	}
	if f.repubSource != "" && f.repubDest != "" {
		cfg.RePublish = &api.RePublish{Source: f.repubSource, Destination: f.repubDest, HeadersOnly: f.repubHeaders}
	}
	if f.transformSource != "" && f.transformDest != "" {
		cfg.SubjectTransform = &api.SubjectTransformConfig{Source: f.transformSource, Destination: f.transformDest}
	}
}

// halfSet explains a republish or transform given only half.
func (f *streamConfigFlags) halfSet() error {
	if (f.repubSource == "") != (f.repubDest == "") {
		return usageErrorf("--republish-source and --republish-destination go together: give both")
	}
	if (f.transformSource == "") != (f.transformDest == "") {
		return usageErrorf("--transform-source and --transform-destination go together: give both")
	}
	return nil
}

// streamDefaultsNote is the one status line saying which values the lab chose
// where the real CLI would have asked.
func streamDefaultsNote(defaulted, unlimited []string, withDefaults bool) string {
	if len(defaulted) == 0 && len(unlimited) == 0 {
		return ""
	}
	parts := strings.Join(defaulted, ", ")
	if len(unlimited) > 0 {
		if parts != "" {
			parts += " and "
		}
		parts += "no limit for " + strings.Join(unlimited, ", ")
	}
	if withDefaults {
		return fmt.Sprintf("Using %s: pass --subjects to choose", parts)
	}
	return fmt.Sprintf("Using defaults for what was not given: %s (add --defaults to accept them without this note)", parts)
}
