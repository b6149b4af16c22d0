package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Keys: what a key may hold, and what to say when one is missing, stale
// or taken.

// kvKeyRune is a character a key may hold (nats.go's rule); patterns for
// watch and ls may also hold the wildcards * and >.
func kvKeyRune(r rune, pattern bool) bool {
	switch {
	case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
		return true
	case r == '-' || r == '/' || r == '_' || r == '=' || r == '.':
		return true
	case pattern && (r == '*' || r == '>'):
		return true
	}
	return false
}

// The real CLI's lines where the library refuses a key pattern (watch,
// history) and where a key has one revision to revert.
var (
	errKVBadPattern  = fmt.Errorf("%w: key cannot be empty and must be a valid NATS subject", jetstream.ErrInvalidKey)
	errKVOneRevision = errors.New("cannot revert key in a bucket where history=1")
)

// kvCheckKey explains what is wrong with a key, naming the character.
func kvCheckKey(key string, pattern bool) error {
	what := "key"
	if pattern {
		what = "key pattern"
	}
	switch {
	case key == "":
		return usageErrorf("the %s is empty: keys look like sue.color", what)
	case strings.HasPrefix(key, "."):
		return usageErrorf("invalid %s %q: it starts with a dot (dots separate tokens, like sue.color)", what, key)
	case strings.HasSuffix(key, "."):
		return usageErrorf("invalid %s %q: it ends with a dot (dots separate tokens, like sue.color)", what, key)
	case strings.Contains(key, ".."):
		return usageErrorf("invalid %s %q: it has two dots in a row, an empty token (like sue.color, not sue..color)", what, key)
	}
	if r, pos := kvFirstBad(key, func(r rune) bool { return kvKeyRune(r, pattern) }); pos > 0 {
		hint := "keys hold letters, digits and - / _ = . (dots separate tokens, like sue.color)"
		if !pattern && (r == '*' || r == '>') {
			hint = "* and > are wildcards, allowed only in patterns for kv watch and kv ls; name one key, like sue.color"
		}
		if r == ' ' {
			hint = "keys cannot hold spaces: use dots or dashes, like " + strings.Join(strings.Fields(key), ".")
		}
		return usageErrorf("invalid %s %q: %s at position %d is not allowed; %s", what, key, kvDescribeRune(r), pos, hint)
	}
	if !pattern {
		return nil
	}
	// Wildcards must stand alone between dots, and > only at the end.
	tokens := strings.Split(key, ".")
	for i, tok := range tokens {
		switch {
		case tok == ">" && i != len(tokens)-1:
			return usageErrorf("invalid key pattern %q: > must be the last token (it matches everything after it, like sue.>)", key)
		case tok != "*" && tok != ">" && strings.ContainsAny(tok, "*>"):
			return usageErrorf("invalid key pattern %q: token %d (%q) mixes a wildcard with text; * and > stand alone between dots, like sue.* or sue.>", key, i+1, tok)
		}
	}
	return nil
}

// kvHistory returns a key's kept revisions, oldest first, or nil if the
// bucket has never held it.
func (c *Call) kvHistory(kv jetstream.KeyValue, key string) ([]jetstream.KeyValueEntry, error) {
	ctx, cancel := c.Timeout()
	defer cancel()
	h, err := kv.History(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, c.jsError(err)
	}
	return h, nil
}

// kvKeys lists the keys with a value in the bucket.
func (c *Call) kvKeys(kv jetstream.KeyValue) ([]string, error) {
	ctx, cancel := c.Timeout()
	defer cancel()
	l, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, c.jsError(err)
	}
	defer l.Stop()
	var keys []string
	for k := range l.Keys() {
		keys = append(keys, k)
	}
	return keys, nil
}

// kvMissingKey says why a key (or one revision of it) has no value: never
// written, deleted, purged, or a revision the bucket no longer keeps.
func (c *Call) kvMissingKey(kv jetstream.KeyValue, key string, revision uint64) error {
	bucket := kv.Bucket()
	hist, err := c.kvHistory(kv, key)
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		keys, err := c.kvKeys(kv)
		if err != nil {
			return err
		}
		if strings.ContainsAny(key, "*>") {
			// Only kv history takes a pattern; a put cannot name one.
			if len(keys) == 0 {
				return fmt.Errorf("no key matches %s: bucket %s has no keys yet", key, bucket)
			}
			return fmt.Errorf("no key in bucket %s matches %s (keys: %s)", bucket, key, kvShortList(keys, 10))
		}
		if len(keys) == 0 {
			return fmt.Errorf("key %s not found: bucket %s has no keys yet (put one with kv put %s %s VALUE)", key, bucket, bucket, key)
		}
		return fmt.Errorf("key %s not found in bucket %s%s (keys: %s)", key, bucket, didYouMean(key, keys), kvShortList(keys, 10))
	}
	last := hist[len(hist)-1]
	if revision == 0 {
		return fmt.Errorf("key %s in bucket %s was %s at revision %d (%s): it has no value now; kv history %s %s shows what it held", key, bucket, kvGone(last.Operation()), last.Revision(), timestamp(last.Created()), bucket, key)
	}
	var kept []string
	for _, e := range hist {
		if e.Revision() == revision && e.Operation() != jetstream.KeyValuePut {
			return fmt.Errorf("revision %d of key %s is where it was %s: it has no value (kv history %s %s shows the others)", revision, key, kvGone(e.Operation()), bucket, key)
		}
		kept = append(kept, fmt.Sprint(e.Revision()))
	}
	return fmt.Errorf("key %s has no revision %d in bucket %s (revisions kept: %s; see kv history %s %s)", key, revision, bucket, kvShortList(kept, 10), bucket, key)
}

// kvGone is how a delete or purge marker reads in a sentence.
func kvGone(op jetstream.KeyValueOp) string {
	if op == jetstream.KeyValuePurge {
		return "purged"
	}
	return "deleted"
}

// kvStale explains a failed compare-and-set: what revision the key is at
// now, and what to do about it.
func (c *Call) kvStale(kv jetstream.KeyValue, key string, revision uint64) error {
	bucket := kv.Bucket()
	hist, err := c.kvHistory(kv, key)
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		return fmt.Errorf("compare-and-set failed: key %s does not exist in bucket %s, so it is not at revision %d; create it with kv create %s %s VALUE", key, bucket, revision, bucket, key)
	}
	last := hist[len(hist)-1]
	if revision == 0 {
		return fmt.Errorf("compare-and-set failed: revision 0 means \"only if the key is new\", but key %s is at revision %d now; get it with kv get %s %s and try again with its revision", key, last.Revision(), bucket, key)
	}
	if last.Operation() != jetstream.KeyValuePut {
		return fmt.Errorf("compare-and-set failed: the key is at revision %d now, where it was %s, not at revision %d; get it (kv history %s %s) and try again", last.Revision(), kvGone(last.Operation()), revision, bucket, key)
	}
	return fmt.Errorf("compare-and-set failed: the key is at revision %d now, not %d (it changed since you read it); get it with kv get %s %s and try again", last.Revision(), revision, bucket, key)
}

// kvWriteError explains a failed put, create or update: the library's
// error is the line, as the real CLI prints it, and what the lab knows of
// why (the bucket's limit) is a note.
func (c *Call) kvWriteError(kv jetstream.KeyValue, key string, value []byte, err error) error {
	switch {
	case errors.Is(err, jetstream.ErrInvalidKey):
		return kvCheckKey(key, false)
	case errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) || kvErrCode(err) == jetstream.JSErrCodeStreamMessageExceedsMaximum:
		return explain(c.kvAPIError(err), "%s", c.kvTooLarge(kv, value))
	}
	return c.kvAPIError(err)
}

// kvTooLarge says why a value was too large for its bucket, for a note.
func (c *Call) kvTooLarge(kv jetstream.KeyValue, value []byte) string {
	var limit int32
	ctx, cancel := c.Timeout()
	defer cancel()
	if st, serr := kv.Status(ctx); serr == nil {
		if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok {
			limit = bs.StreamInfo().Config.MaxMsgSize
		}
	}
	b := kv.Bucket()
	switch {
	case limit > 0 && len(value) <= int(limit):
		// The server counts the headers stored with the value too.
		return fmt.Sprintf("the value (%s) and the headers stored with it exceed bucket %s's maximum value size of %s: raise the limit with kv edit %s --max-value-size", size(len(value)), b, size(limit), b)
	case limit > 0:
		return fmt.Sprintf("the value is %s, larger than bucket %s's maximum value size of %s: store a smaller value, or raise the limit with kv edit %s --max-value-size", size(len(value)), b, size(limit), b)
	}
	return fmt.Sprintf("the value is %s, larger than the server accepts: store a smaller value", size(len(value)))
}

// kvErrCode is the JetStream error code inside err, or 0.
func kvErrCode(err error) jetstream.ErrorCode {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode
	}
	return 0
}
