package command

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/natscli/columns"

	"natslab/broker/text"
)

// Buckets: kv add, edit, info, compact, and del/rm of a whole bucket.

// config turns the typed flags into a bucket configuration.
func (k *kvCmd) config() (jetstream.KeyValueConfig, error) {
	cfg := jetstream.KeyValueConfig{Bucket: k.bucket, Description: k.description, TTL: k.ttl, LimitMarkerTTL: k.markerTTL, Compression: k.compress}
	// natscli's flag validator says these two.
	historyNote := "--history is how many values to keep per key, from 1 to 64; got %d"
	if k.history < 1 {
		return cfg, explain(errors.New("history: must be greater than or equal to 1"), historyNote, k.history)
	}
	if k.history > 64 {
		return cfg, explain(errors.New("history: must be less than or equal to 64"), historyNote, k.history)
	}
	cfg.History = uint8(k.history)
	// A negative --ttl or --marker-ttl goes to the server, as natscli
	// sends it: the server's refusal is the real CLI's line.
	// The server says what it makes of the replicas asked for (0: one).
	cfg.Replicas = int(k.replicas)
	mvs, err := kvParseBytes("max-value-size", k.maxValueSize, 32)
	if err != nil {
		return cfg, err
	}
	cfg.MaxValueSize = int32(mvs)
	if cfg.MaxBytes, err = kvParseBytes("max-bucket-size", k.maxBucketSize, 64); err != nil {
		return cfg, err
	}
	cfg.Storage = jetstream.FileStorage
	if strings.HasPrefix(k.storage, "m") {
		cfg.Storage = jetstream.MemoryStorage
	}
	if k.cluster != "" || len(k.tags) > 0 {
		cfg.Placement = &jetstream.Placement{Cluster: k.cluster, Tags: k.tags}
	}
	if len(k.metadata) > 0 {
		cfg.Metadata = k.metadata
	}
	// natscli republishes only with a destination: a source alone is
	// ignored (republishIgnored says so).
	if k.repubDest != "" {
		cfg.RePublish = &jetstream.RePublish{Source: k.repubSource, Destination: k.repubDest, HeadersOnly: k.repubHeaders}
	}
	if k.mirror != "" {
		cfg.Mirror = &jetstream.StreamSource{Name: k.mirror, Domain: k.mirrorDomain}
	}
	for _, s := range k.sources {
		cfg.Sources = append(cfg.Sources, &jetstream.StreamSource{Name: s})
	}
	return cfg, nil
}

// republishIgnored notes a --republish-source (or --republish-headers)
// typed without the --republish-destination natscli needs to act on it.
func (k *kvCmd) republishIgnored(c *Call) {
	if k.repubDest == "" && (k.repubSource != "" || k.repubHeaders) {
		c.Notef("--republish-source and --republish-headers are ignored without --republish-destination, the subject to republish to")
	}
}

func (k *kvCmd) addRun(c *Call) error {
	if err := kvCheckBucketName(k.bucket); err != nil {
		return err
	}
	cfg, err := k.config()
	if err != nil {
		return err
	}
	k.republishIgnored(c)
	js, err := c.jsHelper()
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return explain(err, "bucket %s already exists with a different configuration: kv info %s shows it; change it with kv edit %s, or remove it first with kv rm %s --force", k.bucket, k.bucket, k.bucket, k.bucket)
	}
	if err != nil {
		return c.kvAPIError(err)
	}
	c.awaitReachable("KV_" + k.bucket)
	return c.kvShowStatus(kv)
}

func (k *kvCmd) editRun(c *Call) error {
	js, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	st, err := kv.Status(ctx)
	if err != nil {
		return c.jsError(err)
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return fmt.Errorf("%s is not a JetStream bucket", k.bucket)
	}
	typed, err := k.config()
	if err != nil {
		return err
	}
	k.republishIgnored(c)
	// Start from what the bucket has, and change only what was typed.
	cfg := bs.Config()
	change := map[string]func(){
		"description":     func() { cfg.Description = typed.Description },
		"history":         func() { cfg.History = typed.History },
		"ttl":             func() { cfg.TTL = typed.TTL },
		"marker-ttl":      func() { cfg.LimitMarkerTTL = typed.LimitMarkerTTL },
		"replicas":        func() { cfg.Replicas = typed.Replicas },
		"max-value-size":  func() { cfg.MaxValueSize = typed.MaxValueSize },
		"max-bucket-size": func() { cfg.MaxBytes = typed.MaxBytes },
		"compress":        func() { cfg.Compression = typed.Compression },
		"metadata":        func() { cfg.Metadata = typed.Metadata },
		"tags":            func() { cfg.Placement = typed.Placement },
		"cluster":         func() { cfg.Placement = typed.Placement },
		"republish-destination": func() {
			cfg.RePublish = typed.RePublish
		},
		"source": func() { cfg.Sources = append(cfg.Sources, typed.Sources...) },
	}
	for name, apply := range change {
		if k.wasSet(name) {
			apply()
		}
	}
	if k.noMirror {
		cfg.Mirror = nil
	}
	kv, err = js.UpdateKeyValue(ctx, cfg)
	if err != nil {
		return c.kvAPIError(err)
	}
	return c.kvShowStatus(kv)
}

func (k *kvCmd) infoRun(c *Call) error {
	_, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return err
	}
	return c.kvShowStatus(kv)
}

// kvShowStatus prints a bucket's configuration and state as the real CLI's
// kv info does.
func (c *Call) kvShowStatus(kv jetstream.KeyValue) error {
	ctx, cancel := c.Timeout()
	defer cancel()
	st, err := kv.Status(ctx)
	if err != nil {
		return c.jsError(err)
	}
	var nfo *jetstream.StreamInfo
	if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		nfo = bs.StreamInfo()
	}
	cols := newColumns("Information for Key-Value Store Bucket %s", st.Bucket())
	if nfo != nil {
		cols = newColumns("Information for Key-Value Store Bucket %s created %s", st.Bucket(), human(nfo.Created))
	}
	cols.AddSectionTitle("Configuration")
	cols.AddRow("Bucket Name", st.Bucket())
	cols.AddRow("History Kept", st.History())
	cols.AddRow("Values Stored", st.Values())
	cols.AddRow("Compressed", st.IsCompressed())
	cols.AddRow("Per-Key TTL Supported", st.LimitMarkerTTL() > 0)
	cols.AddRowIf("Limit Marker TTL", st.LimitMarkerTTL().String(), st.LimitMarkerTTL() > 0)
	cols.AddRow("Backing Store Kind", st.BackingStore())
	if nfo != nil {
		kvStreamRows(cols, nfo, st.Metadata())
	}
	return renderColumns(c.Out, cols)
}

// kvStreamRows adds the rows that come from the stream under a bucket.
func kvStreamRows(cols *columns.Writer, nfo *jetstream.StreamInfo, meta map[string]string) {
	cfg := nfo.Config
	cols.AddRowIfNotEmpty("Description", cfg.Description)
	cols.AddRow("Bucket Size", size(nfo.State.Bytes))
	cols.AddRow("Maximum Bucket Size", kvLimit(cfg.MaxBytes))
	cols.AddRow("Maximum Value Size", kvLimit(int64(cfg.MaxMsgSize)))
	if cfg.MaxAge <= 0 {
		cols.AddRow("Maximum Age", "unlimited")
	} else {
		cols.AddRow("Maximum Age", cfg.MaxAge)
	}
	cols.AddRow("JetStream Stream", cfg.Name)
	cols.AddRow("Storage", cfg.Storage.String())
	if rp := cfg.RePublish; rp != nil {
		label := "Republishing"
		if rp.HeadersOnly {
			label = "Republishing Headers"
		}
		cols.AddRowf(label, "%s to %s", rp.Source, rp.Destination)
	}
	if nfo.Mirror != nil && cfg.Mirror != nil {
		cols.AddSectionTitle("Mirror Information")
		cols.AddRow("Origin Bucket", strings.TrimPrefix(cfg.Mirror.Name, kvStreamPrefix))
		if cfg.Mirror.External != nil {
			cols.AddRow("External API", cfg.Mirror.External.APIPrefix)
		}
		cols.AddRow("Last Seen", kvLastSeen(nfo.Mirror.Active))
		cols.AddRow("Lag", nfo.Mirror.Lag)
	}
	if len(nfo.Sources) > 0 {
		cols.AddSectionTitle("Sources Information")
		for _, src := range nfo.Sources {
			for _, s := range cfg.Sources {
				if s.Name == src.Name {
					cols.AddRow("Source Bucket", strings.TrimPrefix(src.Name, kvStreamPrefix))
					if s.External != nil {
						cols.AddRow("External API", s.External.APIPrefix)
					}
				}
			}
			cols.AddRow("Last Seen", kvLastSeen(src.Active))
			cols.AddRow("Lag", src.Lag)
		}
	}
	if user := kvUserMetadata(meta); len(user) > 0 {
		cols.AddSectionTitle("Metadata")
		cols.AddMapStrings(user)
	}
	if cl := nfo.Cluster; cl != nil {
		cols.AddSectionTitle("Cluster Information")
		cols.AddRow("Name", cl.Name)
		cols.AddRow("Leader", cl.Leader)
		for _, r := range cl.Replicas {
			// The same words as stream info: the bucket is a stream.
			cols.AddRow("Replica", streamReplicaState(&api.PeerInfo{Name: r.Name, Current: r.Current, Offline: r.Offline, Active: r.Active, Lag: r.Lag}))
		}
	}
}

// kvLimit formats a size limit, -1 (or less) being unlimited.
func kvLimit(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return size(n)
}

// kvLastSeen is when a mirror or source was last heard from.
func kvLastSeen(active time.Duration) any {
	if active > 0 && active < math.MaxInt64 {
		return active
	}
	return "never"
}

// kvUserMetadata drops the metadata the server keeps for itself (_nats.*).
func kvUserMetadata(meta map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		if !strings.HasPrefix(k, "_nats.") {
			out[k] = v
		}
	}
	return out
}

// rmBucket deletes a whole bucket (kv del/rm with no key).
func (k *kvCmd) rmBucket(c *Call) error {
	if k.bucket == "" {
		// The real CLI asks nothing about which bucket here: the library
		// refuses the empty name once the deletion is confirmed.
		js, err := c.jsHelper()
		if err != nil {
			return err
		}
		return k.rmMissingBucket(c, js, kvCheckBucketName(k.bucket))
	}
	// The lab's look at the bucket, for its note: natscli deletes it
	// without one, so what the server refuses this user here is not
	// printed, and the delete goes ahead as natscli's does.
	quiet := c.labAsks()
	js, kv, err := c.kvOpen(k.bucket)
	quiet()
	refused := err != nil && c.refusedPublish("$JS.API.STREAM.INFO."+kvStreamPrefix+k.bucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return k.rmMissingBucket(c, js, err)
	case refused:
		if js, err = c.jsHelper(); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	values := "no values"
	if kv != nil {
		ctx, cancel := c.Timeout()
		if st, err := kv.Status(ctx); err == nil {
			values = text.Count(st.Values(), "value", "values")
		}
		cancel()
	}
	ok, err := k.confirmKey(c, "delete", fmt.Sprintf("Delete bucket %s?", k.bucket),
		fmt.Sprintf("kv rm %s deletes the whole bucket (stream %s%s, %s): add --force to confirm, as in kv rm %s --force", k.bucket, kvStreamPrefix, k.bucket, values, k.bucket))
	if !ok {
		return err
	}
	// A fresh timeout: the question may have taken a while to answer.
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := js.DeleteKeyValue(ctx, k.bucket); err != nil {
		if subj := "$JS.API.STREAM.DELETE." + kvStreamPrefix + k.bucket; c.refusedPublish(subj) {
			return explain(err, "the server's permissions for this user refuse it the delete (a publish to %s): connect as a user allowed to publish there", subj)
		}
		return c.kvAPIError(err)
	}
	return nil
}

// rmMissingBucket does what the real CLI does for a bucket that is not
// there: it asks (or needs --force), then deletes all the same, so the
// error is the library's own (bucket not found, then the server's API
// error, two lines); missing carries the lab's note on it.
func (k *kvCmd) rmMissingBucket(c *Call, js jetstream.JetStream, missing error) error {
	ok, err := k.confirmKey(c, "delete", fmt.Sprintf("Delete bucket %s?", k.bucket),
		fmt.Sprintf("kv rm %s deletes the whole bucket: add --force to confirm, as in kv rm %s --force", k.bucket, k.bucket))
	if !ok {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := js.DeleteKeyValue(ctx, k.bucket); err != nil {
		if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrInvalidBucketName) {
			return explain(err, "%s", ErrorNote(missing))
		}
		return c.kvAPIError(err)
	}
	return nil
}

func (k *kvCmd) compactRun(c *Call) error {
	_, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return err
	}
	ok, err := k.confirmKey(c, "delete", fmt.Sprintf("Purge all historic values and audit trails for deleted keys in bucket %s?", k.bucket),
		fmt.Sprintf("kv compact %s removes the history of deleted keys for good: add --force to confirm", k.bucket))
	if !ok {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := kv.PurgeDeletes(ctx); err != nil {
		return c.kvAPIError(err)
	}
	return nil
}
