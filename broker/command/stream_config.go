package command

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
)

// streamConfigFlags are the flags of stream add and stream edit that
// describe a stream's configuration, as natscli declares them: the same
// names, types and defaults, so that a value means what it means there.
type streamConfigFlags struct {
	subjects                             []string
	description                          string
	storage                              string
	compression                          string
	compressionSet                       bool
	replicas                             int64
	placementCluster                     string
	placementClusterSet                  bool
	tags                                 []string
	tagsSet                              bool
	ack                                  bool
	retention                            string
	discard                              string
	discardPerSubject, discardPerSubjSet bool
	firstSeq                             uint64
	maxAge                               string
	maxBytesString                       string
	maxBytes                             int64
	maxConsumers                         int
	maxMsgSizeString                     string
	maxMsgSize                           int64
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
	allowMirrorDirect, allowMirrorDirSet bool
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
	mirror                               string
	sources                              []string
	noMirror                             bool
}

// addConfigFlags declares the configuration flags on add (edit false) or
// edit. Mirrors, sources and --config files are the real CLI's to run.
func (f *streamConfigFlags) addConfigFlags(cmd *fisk.CmdClause, edit bool) {
	f.metadata = map[string]string{}
	cmd.Flag("subjects", "Subjects the stream stores, like orders.> (repeat, or separate with commas)").Default().StringsVar(&f.subjects)
	cmd.Flag("description", "A description of the stream").StringVar(&f.description)
	if !edit {
		cmd.Flag("storage", "Where messages are kept: file or memory").EnumVar(&f.storage, "file", "f", "memory", "m")
	}
	cmd.Flag("compression", "Compress file storage: none or s2").IsSetByUser(&f.compressionSet).EnumVar(&f.compression, "none", "s2")
	cmd.Flag("replicas", "How many servers keep a copy (needs a cluster above 1)").Int64Var(&f.replicas)
	cmd.Flag("tag", "Place the stream on servers with this tag (repeat for more)").IsSetByUser(&f.tagsSet).StringsVar(&f.tags)
	cmd.Flag("cluster", "Place the stream in this cluster").IsSetByUser(&f.placementClusterSet).StringVar(&f.placementCluster)
	cmd.Flag("ack", "Acknowledge each publish (the default)").Default("true").BoolVar(&f.ack)
	cmd.Flag("retention", "When messages are removed: limits, interest or work (a work queue)").EnumVar(&f.retention, "limits", "interest", "workq", "work")
	cmd.Flag("discard", "What a full stream drops: old (oldest messages) or new (refuses new ones)").EnumVar(&f.discard, "new", "old")
	cmd.Flag("discard-per-subject", "Apply discard new per subject").IsSetByUser(&f.discardPerSubjSet).BoolVar(&f.discardPerSubject)
	if !edit {
		cmd.Flag("first-sequence", "The sequence number of the first message").Uint64Var(&f.firstSeq)
	}
	cmd.Flag("max-age", "How long messages are kept, like 10s, 1h, 7d or 1w").Default("").StringVar(&f.maxAge)
	cmd.Flag("max-bytes", "How much data is kept, like 512MB or 1GB").PlaceHolder("BYTES").StringVar(&f.maxBytesString)
	cmd.Flag("max-consumers", "How many consumers may exist").Default("-1").IntVar(&f.maxConsumers)
	cmd.Flag("max-msg-size", "The largest message accepted, like 1MB").PlaceHolder("BYTES").StringVar(&f.maxMsgSizeString)
	cmd.Flag("max-msgs", "How many messages are kept").Default("0").Int64Var(&f.maxMsgs)
	cmd.Flag("max-msgs-per-subject", "How many messages are kept per subject").Default("0").Int64Var(&f.maxMsgsPer)
	cmd.Flag("dupe-window", "How long message IDs are remembered to drop duplicates, like 2m").Default("").StringVar(&f.dupeWindow)
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
	cmd.PreAction(func(*fisk.ParseContext) error { return f.parseLimitStrings() })
}

// parseLimitStrings reads --max-bytes and --max-msg-size as natscli does
// before any action runs (both as 32-bit numbers of a unit).
func (f *streamConfigFlags) parseLimitStrings() (err error) {
	if f.maxBytesString != "" {
		if f.maxBytes, err = parseBytes(f.maxBytesString, 32); err != nil {
			return explain(err, "--max-bytes takes a size like 512, 64KB or 1GB (no space before the unit), or --max-bytes=-1 for unlimited")
		}
	}
	if f.maxMsgSizeString != "" {
		if f.maxMsgSize, err = parseBytes(f.maxMsgSizeString, 32); err != nil {
			return explain(err, "--max-msg-size takes a size like 512, 64KB or 1MB (no space before the unit), or --max-msg-size=-1 for unlimited")
		}
	}
	return nil
}

func streamStorage(s string) api.StorageType {
	if s == "memory" || s == "m" {
		return api.MemoryStorage
	}
	return api.FileStorage
}

func streamRetention(s string) api.RetentionPolicy {
	switch strings.ToLower(s) {
	case "interest":
		return api.InterestPolicy
	case "work queue", "workq", "work":
		return api.WorkQueuePolicy
	}
	return api.LimitsPolicy
}

func streamDiscard(s string) api.DiscardPolicy {
	if strings.ToLower(s) == "new" {
		return api.DiscardNew
	}
	return api.DiscardOld
}

// durationError is fisk.ParseDuration's error, explained. Only --max-age
// takes -1 (unlimited): the real CLI refuses --dupe-window=-1.
func durationError(err error, prefix, flag string) error {
	if flag == "max-age" {
		return explain(fatalIf(err, "%s", prefix), "--%s takes a duration like 10s, 5m, 1h, 7d or 1w (or --%s=-1 for unlimited)", flag, flag)
	}
	return explain(fatalIf(err, "%s", prefix), "--%s takes a duration like 10s, 5m, 1h, 7d or 1w", flag)
}

// prepareConfig is natscli's: the configuration of a new stream from the
// flags, refusing where the real CLI would prompt for a value not given
// (it has no terminal to ask in here), unless --defaults.
func (f *streamConfigFlags) prepareConfig(name string, requireSize bool) (api.StreamConfig, error) {
	var err error
	if name == "" {
		return api.StreamConfig{}, explain(fatalIf(errNoPrompt, "invalid input"), `the real CLI asks for the stream's name here, and has no terminal to ask in: name it on the line, for example stream add ORDERS --subjects "orders.>" --defaults`)
	}
	if f.mirror == "" && len(f.sources) == 0 {
		if len(f.subjects) == 0 {
			return api.StreamConfig{}, explain(fatalIf(errNoPrompt, "invalid input"), `the real CLI asks which subjects the stream stores, and has no terminal to ask in: give them with --subjects, for example --subjects "orders.>"`)
		}
		f.subjects = splitSubjects(f.subjects)
	}
	if f.defaults {
		if f.storage == "" {
			f.storage = "file"
		}
		if f.compression == "" {
			f.compression = "none"
		}
		if f.replicas == 0 {
			f.replicas = 1
		}
		if f.retention == "" {
			f.retention = "Limits"
		}
		if f.discard == "" {
			f.discard = "Old"
		}
		if f.maxMsgs == 0 {
			f.maxMsgs = -1
		}
		if f.maxMsgsPer == 0 {
			f.maxMsgsPer = -1
		}
		if f.maxBytesString == "" {
			f.maxBytes = -1
		}
		if requireSize && f.maxBytesString == "" {
			f.maxBytes = 256 * 1024 * 1024
		}
		if f.maxAge == "" {
			f.maxAge = "-1"
		}
		if f.maxMsgSizeString == "" {
			f.maxMsgSize = -1
		}
	}
	if f.storage == "" {
		return api.StreamConfig{}, wouldPromptDefaults(errNoPrompt, "the storage", "--storage file (or memory)")
	}
	storage := streamStorage(f.storage)
	var compression api.Compression
	if err := compression.UnmarshalJSON([]byte(fmt.Sprintf("%q", f.compression))); err != nil {
		return api.StreamConfig{}, explain(fatalIf(err, "invalid compression algorithm"), "give --compression none (or s2), or add --defaults")
	}
	if f.replicas == 0 {
		return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "the number of replicas", "--replicas 1")
	}
	if f.replicas <= 0 {
		return api.StreamConfig{}, explain(errors.New("replicas should be >= 1"), "--replicas counts the servers that keep a copy: 1 on a single server, up to 5 in a cluster")
	}
	if f.retention == "" {
		return api.StreamConfig{}, wouldPromptDefaults(errNoPrompt, "the retention policy", "--retention limits (or interest, or work)")
	}
	if f.discard == "" {
		return api.StreamConfig{}, wouldPromptDefaults(errNoPrompt, "the discard policy", "--discard old (or new)")
	}
	if f.maxMsgs == 0 {
		return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "the most messages to keep", "--max-msgs=-1 (unlimited) or a number")
	}
	if f.maxMsgsPer == 0 && len(f.subjects) > 0 {
		return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "the most messages to keep per subject", "--max-msgs-per-subject=-1 (unlimited) or a number")
	}
	var maxAge time.Duration
	if f.maxBytes == 0 {
		return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "the most bytes to keep", "--max-bytes=-1 (unlimited) or a size like 1GB")
	}
	if f.maxBytes <= 0 {
		f.maxBytes = -1
	}
	if f.maxAge == "" {
		return api.StreamConfig{}, wouldPromptDefaults(errNoPrompt, "how long to keep messages", "--max-age=-1 (forever) or a duration like 1d")
	}
	if f.maxAge != "-1" {
		if maxAge, err = fisk.ParseDuration(f.maxAge); err != nil {
			return api.StreamConfig{}, durationError(err, "invalid maximum age limit format", "max-age")
		}
	}
	if f.maxMsgSize == 0 {
		return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "the largest message to accept", "--max-msg-size=-1 (unlimited) or a size like 1MB")
	}
	if f.maxMsgSize > math.MaxInt32 {
		return api.StreamConfig{}, fmt.Errorf("max value size %s is too big maximum is %s", human(f.maxMsgSize), human(math.MaxInt32))
	}
	var dupeWindow time.Duration
	if f.dupeWindow == "" && f.mirror == "" {
		dflt := (2 * time.Minute).String()
		if maxAge > 0 && maxAge < 2*time.Minute {
			dflt = maxAge.String()
		}
		if !f.defaults {
			return api.StreamConfig{}, wouldPromptDefaults(errNoPrompt, "the duplicate tracking window", "--dupe-window "+dflt)
		}
		f.dupeWindow = dflt
	}
	if f.dupeWindow != "" {
		if dupeWindow, err = fisk.ParseDuration(f.dupeWindow); err != nil {
			return api.StreamConfig{}, durationError(err, "invalid duplicate window format", "dupe-window")
		}
	}
	if !f.defaults {
		switch {
		case !f.allowRollupSet:
			return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "whether to allow roll-ups", "--allow-rollup or --no-allow-rollup")
		case !f.denyDeleteSet:
			return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "whether to allow deleting messages", "--deny-delete or --no-deny-delete")
		case !f.denyPurgeSet:
			return api.StreamConfig{}, wouldPromptDefaults(errNoConfirm, "whether to allow purges", "--deny-purge or --no-deny-purge")
		}
	}
	cfg := api.StreamConfig{
		Name:                   name,
		Description:            f.description,
		Subjects:               f.subjects,
		MaxMsgs:                f.maxMsgs,
		MaxMsgsPer:             f.maxMsgsPer,
		MaxBytes:               f.maxBytes,
		MaxMsgSize:             int32(f.maxMsgSize),
		Duplicates:             dupeWindow,
		MaxAge:                 maxAge,
		Storage:                storage,
		Compression:            compression,
		FirstSeq:               f.firstSeq,
		NoAck:                  !f.ack,
		Retention:              streamRetention(f.retention),
		Discard:                streamDiscard(f.discard),
		MaxConsumers:           f.maxConsumers,
		Replicas:               int(f.replicas),
		RollupAllowed:          f.allowRollup,
		DenyPurge:              f.denyPurge,
		DenyDelete:             f.denyDelete,
		AllowDirect:            f.allowDirect,
		AllowMsgTTL:            f.allowMsgTTL,
		AllowAtomicPublish:     f.allowBatch,
		AllowBatchPublish:      f.allowFast,
		AllowMsgCounter:        f.allowCounter,
		AllowMsgSchedules:      f.allowSchedules,
		SubjectDeleteMarkerTTL: f.markerTTL,
		MirrorDirect:           f.allowMirrorDirect,
		DiscardNewPer:          f.discardPerSubject,
	}
	if f.limitInactive > 0 {
		cfg.ConsumerLimits.InactiveThreshold = f.limitInactive
	}
	if f.limitMaxAckPending > 0 {
		cfg.ConsumerLimits.MaxAckPending = f.limitMaxAckPending
	}
	if len(f.metadata) > 0 {
		cfg.Metadata = f.metadata
	}
	if f.placementCluster != "" || len(f.tags) > 0 {
		cfg.Placement = &api.Placement{Cluster: f.placementCluster, Tags: f.tags}
	}
	if err := f.checkRepubTransform(); err != nil {
		return api.StreamConfig{}, err
	}
	if f.repubSource != "" && f.repubDest != "" {
		cfg.RePublish = &api.RePublish{Source: f.repubSource, Destination: f.repubDest, HeadersOnly: f.repubHeaders}
	}
	if f.transformSource != "" && f.transformDest != "" {
		cfg.SubjectTransform = &api.SubjectTransformConfig{Source: f.transformSource, Destination: f.transformDest}
	}
	if f.persistMode == "async" {
		cfg.PersistMode = api.AsyncPersistMode
	}
	cfg.Metadata = jsm.FilterServerMetadata(cfg.Metadata)
	return cfg, nil
}

// checkRepubTransform is natscli's: a republish or a transform needs both
// of its halves.
func (f *streamConfigFlags) checkRepubTransform() error {
	if (f.repubSource != "" && f.repubDest == "") || (f.repubSource == "" && f.repubDest != "") || (f.repubHeaders && (f.repubSource == "" || f.repubDest == "")) {
		msg := "must specify both --republish-source and --republish-destination"
		if f.repubHeaders {
			msg += " when using --headers-only"
		}
		return errors.New(msg)
	}
	if (f.transformSource != "" && f.transformDest == "") || (f.transformSource == "" && f.transformDest != "") {
		msg := "must specify both --transform-source and --transform-destination"
		if f.repubHeaders {
			msg += " when using --headers-only"
		}
		return errors.New(msg)
	}
	return nil
}

// copyAndEdit is natscli's copyAndEditStream, after its checkRepubTransform
// (the caller's): the flags given, applied to a copy of a stream's
// configuration.
func (f *streamConfigFlags) copyAndEdit(cfg api.StreamConfig) (api.StreamConfig, error) {
	var err error
	cfg.NoAck = !f.ack
	if f.discard != "" {
		cfg.Discard = streamDiscard(f.discard)
	}
	if len(f.subjects) > 0 {
		cfg.Subjects = splitSubjects(f.subjects)
	}
	if f.storage != "" {
		cfg.Storage = streamStorage(f.storage)
	}
	if f.retention != "" {
		cfg.Retention = streamRetention(f.retention)
	}
	if f.maxBytes != 0 {
		cfg.MaxBytes = f.maxBytes
	}
	if f.maxMsgs != 0 {
		cfg.MaxMsgs = f.maxMsgs
	}
	if f.maxMsgsPer != 0 {
		cfg.MaxMsgsPer = f.maxMsgsPer
	}
	if f.maxAge != "" {
		if cfg.MaxAge, err = fisk.ParseDuration(f.maxAge); err != nil {
			return api.StreamConfig{}, explain(fmt.Errorf("invalid maximum age limit format: %v", err), "--max-age takes a duration like 10s, 5m, 1h, 7d or 1w")
		}
	}
	if f.maxMsgSize != 0 {
		cfg.MaxMsgSize = int32(f.maxMsgSize)
	}
	if f.maxConsumers != -1 {
		cfg.MaxConsumers = f.maxConsumers
	}
	if f.dupeWindow != "" {
		dw, err := fisk.ParseDuration(f.dupeWindow)
		if err != nil {
			return api.StreamConfig{}, explain(fmt.Errorf("invalid duplicate window: %v", err), "--dupe-window takes a duration like 30s or 2m")
		}
		cfg.Duplicates = dw
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
		if len(f.tags) == 0 || (len(f.tags) == 1 && f.tags[0] == "") {
			cfg.Placement.Tags = nil
		} else {
			cfg.Placement.Tags = f.tags
		}
	}
	if cfg.Placement.Cluster == "" && len(cfg.Placement.Tags) == 0 {
		cfg.Placement = nil
	}
	if len(f.sources) > 0 || f.mirror != "" {
		return cfg, errors.New("cannot edit mirrors, or sources using the CLI, use --config instead")
	}
	if f.description != "" {
		cfg.Description = f.description
	}
	if f.allowRollupSet {
		cfg.RollupAllowed = f.allowRollup
	}
	if f.denyPurgeSet {
		cfg.DenyPurge = f.denyPurge
	}
	if f.denyDeleteSet {
		cfg.DenyDelete = f.denyDelete
	}
	if f.allowDirectSet {
		cfg.AllowDirect = f.allowDirect
	}
	if f.allowMirrorDirSet {
		cfg.MirrorDirect = f.allowMirrorDirect
	}
	if f.allowSchedulesSet {
		cfg.AllowMsgSchedules = f.allowSchedules
	}
	if f.allowMsgTTL {
		cfg.AllowMsgTTL = f.allowMsgTTL
	}
	if f.allowBatchSet {
		cfg.AllowAtomicPublish = f.allowBatch
	}
	if f.allowFastSet {
		cfg.AllowBatchPublish = f.allowFast
	}
	if f.allowCounterSet {
		cfg.AllowMsgCounter = f.allowCounter
	}
	if f.discardPerSubjSet {
		cfg.DiscardNewPer = f.discardPerSubject
	}
	if f.metadataSet {
		cfg.Metadata = f.metadata
	}
	if f.compressionSet {
		if err = cfg.Compression.UnmarshalJSON([]byte(fmt.Sprintf("%q", f.compression))); err != nil {
			return cfg, errors.New("invalid compression algorithm")
		}
	}
	if f.noRepub {
		cfg.RePublish = nil
	}
	if !f.noRepub && f.repubSource != "" && f.repubDest != "" {
		cfg.RePublish = &api.RePublish{Source: f.repubSource, Destination: f.repubDest, HeadersOnly: f.repubHeaders}
	}
	if f.noTransform {
		cfg.SubjectTransform = nil
	} else {
		var t api.SubjectTransformConfig
		if cfg.SubjectTransform != nil {
			t = *cfg.SubjectTransform
		}
		t.Source, t.Destination = f.transformSource, f.transformDest
		if t.Source != "" && t.Destination != "" {
			cfg.SubjectTransform = &t
		}
	}
	if f.markerTTLSet {
		cfg.SubjectDeleteMarkerTTL = f.markerTTL
	}
	if f.noMirror {
		cfg.Mirror = nil
	}
	return cfg, nil
}
