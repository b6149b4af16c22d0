package command

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// Finding buckets, and explaining every way that can go wrong.

// kvStreamPrefix is how a bucket's stream is named: bucket profiles is
// stream KV_profiles.
const kvStreamPrefix = "KV_"

// kvOpen looks a bucket up, with a clear error when it is not there.
func (c *Call) kvOpen(bucket string) (jetstream.JetStream, jetstream.KeyValue, error) {
	js, err := c.jsHelper()
	if err != nil {
		return nil, nil, err
	}
	if bucket == "" {
		return nil, nil, c.kvNoBucketGiven()
	}
	if err := kvCheckBucketName(bucket); err != nil {
		return nil, nil, err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	kv, err := js.KeyValue(ctx, bucket)
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return js, nil, noteOf(err, c.kvUnknownBucket(js, bucket))
	case errors.Is(err, jetstream.ErrBadBucket):
		return nil, nil, explain(err, "stream %s%s exists but is not a key-value bucket (it does not keep values per subject); kv commands work on buckets made with kv add", kvStreamPrefix, bucket)
	case err != nil:
		return nil, nil, c.jsError(err)
	}
	return js, kv, nil
}

// errNoBuckets is the real CLI's line where it would ask which bucket and
// there are none.
var errNoBuckets = errors.New("no KV buckets found")

// kvNoBucketGiven is what the real CLI says where it would ask which bucket
// (an empty bucket argument): no terminal to ask on, or no bucket at all.
func (c *Call) kvNoBucketGiven() error {
	js, err := c.jsHelper()
	if err != nil {
		return err
	}
	names, err := c.kvBucketNames(js)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return explain(errNoBuckets, "the real CLI asks which bucket, and there are none yet: create one with kv add profiles")
	}
	return explain(errNoPrompt, "the bucket name is empty, so the real CLI asks which bucket; name one: %s", kvShortList(names, 10))
}

// kvBucketNameRe is what nats.go accepts as a bucket name.
var kvBucketNameRe = text.Pattern(`^[a-zA-Z0-9_-]+$`)

// kvCheckBucketName names the first character a bucket name cannot hold.
func kvCheckBucketName(bucket string) error {
	if bucket == "" {
		return noteOf(jetstream.ErrInvalidBucketName, usageErrorf("the bucket name is empty: give one like profiles"))
	}
	if kvBucketNameRe().MatchString(bucket) {
		return nil
	}
	r, pos := kvFirstBad(bucket, func(r rune) bool {
		return r == '_' || r == '-' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	return noteOf(jetstream.ErrInvalidBucketName, usageErrorf("invalid bucket name %q: %s at position %d is not allowed; bucket names hold only letters, digits, - and _ (for example %s)", bucket, kvDescribeRune(r), pos, kvSuggestBucket(bucket)))
}

// kvSuggestBucket turns a bad bucket name into a good one ("my.app" → my_app).
func kvSuggestBucket(bucket string) string {
	s := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, bucket)
	if strings.Trim(s, "_") == "" {
		return "profiles"
	}
	return s
}

// kvFirstBad finds the first rune of s that ok rejects, and its 1-based position.
func kvFirstBad(s string, ok func(rune) bool) (rune, int) {
	pos := 0
	for _, r := range s {
		pos++
		if !ok(r) {
			return r, pos
		}
	}
	return 0, 0
}

// kvDescribeRune names a character so it can be seen in an error line.
func kvDescribeRune(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == '\t':
		return "a tab"
	case r < 32 || r == 127:
		return fmt.Sprintf("the control character %U", r)
	}
	return strconv.QuoteRune(r)
}

// kvBucketNames lists the buckets that exist, sorted.
func (c *Call) kvBucketNames(js jetstream.JetStream) ([]string, error) {
	ctx, cancel := c.Timeout()
	defer cancel()
	l := js.KeyValueStoreNames(ctx)
	var names []string
	for n := range l.Name() {
		names = append(names, n)
	}
	if err := l.Error(); err != nil {
		return nil, c.jsError(err)
	}
	sort.Strings(names)
	return names, nil
}

// kvUnknownBucket says that a bucket does not exist, and which do.
func (c *Call) kvUnknownBucket(js jetstream.JetStream, bucket string) error {
	names, err := c.kvBucketNames(js)
	if err != nil {
		return err
	}
	// A common slip: naming the stream underneath instead of the bucket.
	if trimmed, ok := strings.CutPrefix(bucket, kvStreamPrefix); ok {
		for _, n := range names {
			if n == trimmed {
				return usageErrorf("%s is the stream under bucket %s; kv commands take the bucket's name: %s", bucket, trimmed, trimmed)
			}
		}
	}
	if kind := c.bucketKind(bucket, kvStreamPrefix); kind != "" {
		return errors.New(kind)
	}
	if len(names) == 0 {
		return fmt.Errorf("bucket %s not found: there are no buckets yet (create one with kv add %s)", bucket, bucket)
	}
	return fmt.Errorf("bucket %s not found%s (buckets: %s; create it with kv add %s)", bucket, didYouMean(bucket, names), kvShortList(names, 10), bucket)
}

// kvShortList joins names, cutting a long list short.
func kvShortList(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// kvParseBytes reads a size the way the real CLI does: a plain number of
// bytes, or a number with B, K, KB, KiB, M, MB, G, GB, T or TB (all powers
// of 1024); empty or negative means unlimited (-1). What it refuses, it
// refuses in natscli's words (parseBytes), with the lab's note.
func kvParseBytes(flag, s string, bits int) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "-") {
		return -1, nil
	}
	v, err := parseBytes(s, bits)
	if err != nil {
		return 0, explain(err, "--%s wants a size like 1024, 64KB or 1MB, got %q", flag, s)
	}
	if v>>(bits-1) != 0 {
		return 0, usageErrorf("--%s %q is too large", flag, s)
	}
	return v, nil
}

// kvAPIError explains what the server refused, for the errors a learner
// meets; others keep the server's own description.
func (c *Call) kvAPIError(err error) error {
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		return c.jsError(err)
	}
	switch api.ErrorCode {
	case jetstream.JSErrCodeJetStreamNotEnabled, jetstream.JSErrCodeJetStreamNotEnabledForAccount:
		return c.jetStreamOff(err)
	case errCodeClusterUnavailable:
		return c.noMetaLeader(err)
	case errCodeNoPeers:
		return c.noPeers(err)
	case 10074: // replicas > 1 not supported in non-clustered mode
		return explain(err, "the server is a single server, not a cluster, so a bucket can keep only 1 replica: drop --replicas or use --replicas 1")
	case 10052: // an invalid configuration, said in its description
		switch {
		case strings.Contains(api.Description, "max age can not be negative"):
			return explain(err, "--ttl cannot be negative: leave --ttl out to keep values forever")
		case strings.Contains(api.Description, "marker TTL must not be negative"):
			return explain(err, "--marker-ttl cannot be negative: leave it out for a bucket without per-key TTLs")
		case strings.Contains(api.Description, "max age"):
			return explain(err, "--ttl is too short: the server keeps values at least 100ms (try --ttl 1s or more)")
		case strings.Contains(api.Description, "replicas"):
			return explain(err, "--replicas counts the servers that keep a copy: 1 on a single server, up to 5 in a cluster")
		}
	case 10165: // invalid per-message TTL
		return explain(err, "--ttl for a key must be at least 1s (like 30s or 5m): the server keeps whole seconds")
	case 10166: // per-message TTL is disabled
		return explain(err, "this bucket does not allow per-key TTLs: create it with --marker-ttl (for example kv add NAME --marker-ttl 1m), or leave out --ttl")
	case 10077: // maximum bytes exceeded
		return explain(err, "the bucket is full: it reached its --max-bucket-size; delete or purge keys, or raise the limit with kv edit")
	}
	// The server's refusal, as the real CLI prints the library's error.
	return err
}
