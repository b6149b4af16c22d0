package command

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"unicode"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// Values: kv put, get, create, update, del, purge, history and revert.

// openKey opens the bucket and checks the key, before anything is sent.
// As the real CLI, it finds the bucket first: a missing bucket is reported
// before a bad key.
func (k *kvCmd) openKey(c *Call) (jetstream.KeyValue, error) {
	_, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return nil, err
	}
	if err := kvCheckKey(k.key, false); err != nil {
		return nil, noteOf(jetstream.ErrInvalidKey, err) // the library's refusal
	}
	return kv, nil
}

// value is what to store. The real CLI reads STDIN when no value is given;
// the lab gives commands no STDIN, so it stores an empty value, as the
// real CLI does with an empty one, and a note says so.
func (k *kvCmd) value(c *Call) []byte {
	if !k.valSet {
		c.Notef("no value given: the real CLI reads it from standard input, which the lab leaves empty, so %s holds an empty value (put the value after the key, like kv put %s %s VALUE)", k.key, k.bucket, k.key)
	}
	return []byte(k.val)
}

func (k *kvCmd) putRun(c *Call) error {
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	val := k.value(c)
	ctx, cancel := c.Timeout()
	defer cancel()
	if _, err := kv.Put(ctx, k.key, val); err != nil {
		return c.kvWriteError(kv, k.key, val, err)
	}
	fmt.Fprintln(c.Out, k.val)
	return nil
}

func (k *kvCmd) createRun(c *Call) error {
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	val := k.value(c)
	ctx, cancel := c.Timeout()
	defer cancel()
	// The TTL goes as the line gives it, as the real CLI sends it: the
	// server says what it refuses (under a second, a bucket without
	// --marker-ttl), and a TTL of 0 or less is none.
	if _, err := kv.Create(ctx, k.key, val, jetstream.KeyTTL(k.keyTTL)); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return noteOf(err, c.kvKeyExists(kv, k.key))
		}
		return c.kvWriteError(kv, k.key, val, err)
	}
	fmt.Fprintln(c.Out, k.val)
	return nil
}

// kvKeyExists explains why kv create refused.
func (c *Call) kvKeyExists(kv jetstream.KeyValue, key string) error {
	b := kv.Bucket()
	ctx, cancel := c.Timeout()
	defer cancel()
	rev := "?"
	if e, err := kv.Get(ctx, key); err == nil {
		rev = fmt.Sprint(e.Revision())
	}
	return fmt.Errorf("key %s already exists in bucket %s, at revision %s: kv create only makes new keys; overwrite it with kv put, or change it only if unchanged with kv update %s %s VALUE %s", key, b, rev, b, key, rev)
}

// kvRevisionArg parses update's and revert's revision as the real CLI's
// fisk does a number argument (Go's literals: 0x10 is 16), with the lab's
// words in a note.
func (k *kvCmd) kvRevisionArg(shows string) (uint64, error) {
	rev, err := strconv.ParseUint(k.revisionArg, 0, 64)
	if err != nil {
		return 0, noteOf(err, usageErrorf("the revision must be a whole number like 3 (%s), got %q", shows, k.revisionArg))
	}
	return rev, nil
}

func (k *kvCmd) updateRun(c *Call) error {
	rev, err := k.kvRevisionArg(fmt.Sprintf("kv get %s %s shows it", k.bucket, k.key))
	if err != nil {
		return err
	}
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	val := []byte(k.val)
	ctx, cancel := c.Timeout()
	defer cancel()
	if _, err := kv.Update(ctx, k.key, val, rev); err != nil {
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			return noteOf(err, c.kvStale(kv, k.key, rev))
		}
		return c.kvWriteError(kv, k.key, val, err)
	}
	fmt.Fprintln(c.Out, k.val)
	return nil
}

func (k *kvCmd) getRun(c *Call) error {
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	var e jetstream.KeyValueEntry
	if k.revision > 0 {
		e, err = kv.GetRevision(ctx, k.key, k.revision)
	} else {
		e, err = kv.Get(ctx, k.key)
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return noteOf(err, c.kvMissingKey(kv, k.key, k.revision))
	}
	if err != nil {
		return c.jsError(err)
	}
	if k.raw {
		_, err := c.Out.Write(e.Value())
		return err
	}
	fmt.Fprintf(c.Out, "%s > %s revision: %d created @ %s\n\n", e.Bucket(), e.Key(), e.Revision(), human(e.Created()))
	shown := kvPrintable(e.Value())
	if len(shown) > 120 {
		fmt.Fprintf(c.Out, "Showing first 120 bytes of %s, use --raw for full data\n\n", human(len(shown)))
		shown = shown[:120]
	}
	fmt.Fprintf(c.Out, "%s\n\n", shown)
	return nil
}

// kvPrintable shows a value as text, or as base64 when it is not printable
// ASCII, as the real CLI does.
func kvPrintable(v []byte) string {
	for _, r := range string(v) {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return base64.StdEncoding.EncodeToString(v)
		}
	}
	return string(v)
}

// kvShort cuts a long value to its ends, as history tables show it.
func kvShort(v []byte) string {
	s := kvPrintable(v)
	if len(s) > 40 {
		return s[:15] + "..." + s[len(s)-15:]
	}
	return s
}

func (k *kvCmd) delRun(c *Call) error {
	if k.key == "" {
		return k.rmBucket(c)
	}
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	// A typo here writes a marker for a key that never was: the real CLI
	// does so without a word; the lab notes it.
	if _, err := k.neverWritten(c, kv, "del", "delete"); err != nil {
		return err
	}
	ok, err := k.confirmKey(c, "delete", fmt.Sprintf("Delete key %s > %s?", k.bucket, k.key),
		fmt.Sprintf("kv del deletes key %s (its history stays): add --force to confirm, as in kv del %s %s --force", k.key, k.bucket, k.key))
	if !ok {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := kv.Delete(ctx, k.key); err != nil {
		return c.kvAPIError(err)
	}
	return nil
}

func (k *kvCmd) purgeRun(c *Call) error {
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	hist, err := k.neverWritten(c, kv, "purge", "purge")
	if err != nil {
		return err
	}
	ok, err := k.confirmKey(c, "purge", fmt.Sprintf("Purge key %s > %s?", k.bucket, k.key),
		fmt.Sprintf("kv purge erases key %s and all %s of its history for good: add --force to confirm, as in kv purge %s %s --force", k.key, text.Count(len(hist), "revision", "revisions"), k.bucket, k.key))
	if !ok {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := kv.Purge(ctx, k.key, jetstream.PurgeTTL(k.keyTTL)); err != nil {
		return c.kvAPIError(err)
	}
	return nil
}

// keyHistory is the key's history, or an error naming the keys there are
// when this one never existed.
func (k *kvCmd) keyHistory(c *Call, kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) {
	hist, err := c.kvHistory(kv, k.key)
	if err != nil {
		return nil, err
	}
	if len(hist) == 0 {
		return nil, noteOf(jetstream.ErrKeyNotFound, c.kvMissingKey(kv, k.key, 0))
	}
	return hist, nil
}

// neverWritten is the key's history; for a key the bucket never held, a
// note says so and that the op's marker is written all the same.
func (k *kvCmd) neverWritten(c *Call, kv jetstream.KeyValue, verb, marker string) ([]jetstream.KeyValueEntry, error) {
	hist, err := c.kvHistory(kv, k.key)
	if err != nil || len(hist) > 0 {
		return hist, err
	}
	c.Notef("%s; kv %s writes a %s marker for it all the same", c.kvMissingKey(kv, k.key, 0), verb, marker)
	return nil, nil
}

// confirmKey asks before changing a key (or a bucket) for good. It reports false when the
// command should stop: with an error (a script without --force), or
// after saying "Skipping <what>" as the real CLI does when told no.
func (k *kvCmd) confirmKey(c *Call, what, question, forceHint string) (bool, error) {
	if !k.force && c.S.confirm == nil {
		// The real CLI's kv commands return the prompt's error as it is,
		// where its stream commands wrap it (see Call.confirm).
		return false, explain(errNoConfirm, "%s", forceHint)
	}
	ok, err := c.confirm(k.force, question, forceHint)
	if err != nil {
		return false, err
	}
	if !ok {
		fmt.Fprintln(c.Out, "Skipping "+what)
	}
	return ok, nil
}

func (k *kvCmd) historyRun(c *Call) error {
	_, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return err
	}
	// The library's history watches the key, so a pattern is taken (and
	// matches what it matches); a bad one gets the watch's refusal.
	if err := kvCheckKey(k.key, true); err != nil {
		return noteOf(errKVBadPattern, err)
	}
	hist, err := k.keyHistory(c, kv)
	if err != nil {
		return err
	}
	c.kvHistoryTable(hist, k.bucket, k.key)
	return nil
}

func (c *Call) kvHistoryTable(hist []jetstream.KeyValueEntry, bucket, key string) {
	t := newTable("History for %s > %s", bucket, key)
	t.AddHeaders("Key", "Revision", "Op", "Created", "Length", "Value")
	for _, e := range hist {
		t.AddRow(e.Key(), e.Revision(), kvOpName(e.Operation()), human(e.Created()), human(len(e.Value())), kvShort(e.Value()))
	}
	fmt.Fprintln(c.Out, t.Render())
}

// kvOpName is how tables and watch lines name an operation.
func kvOpName(op jetstream.KeyValueOp) string {
	switch op {
	case jetstream.KeyValuePut:
		return "PUT"
	case jetstream.KeyValueDelete:
		return "DELETE"
	case jetstream.KeyValuePurge:
		return "PURGE"
	}
	return "UNKNOWN"
}

func (k *kvCmd) revertRun(c *Call) error {
	rev, err := k.kvRevisionArg(fmt.Sprintf("kv history %s %s lists them", k.bucket, k.key))
	if err != nil {
		return err
	}
	kv, err := k.openKey(c)
	if err != nil {
		return err
	}
	hist, err := k.keyHistory(c, kv)
	if err != nil {
		return err
	}
	if len(hist) <= 1 {
		// The real CLI's words blame the bucket whatever it keeps.
		return explain(errKVOneRevision, "key %s has only one revision kept, so there is nothing to revert to (bucket %s keeps --history %d)", k.key, k.bucket, kvHistoryKept(c, kv))
	}
	ctx, cancel := c.Timeout()
	old, err := kv.GetRevision(ctx, k.key, rev)
	cancel()
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return noteOf(err, c.kvMissingKey(kv, k.key, rev))
	}
	if err != nil {
		return c.jsError(err)
	}
	if !k.force {
		// Shown before asking, so also where there is no terminal to ask on.
		fmt.Fprintf(c.Out, "Revision: %d\n\n%v\n\n", old.Revision(), kvShort(old.Value()))
	}
	ok, err := c.confirm(k.force, fmt.Sprintf("Really revert to revision %d", rev),
		fmt.Sprintf("kv revert writes revision %d's value as the newest: add --force to confirm, as in kv revert %s %s %d --force", rev, k.bucket, k.key, rev))
	if err != nil || !ok {
		return err
	}
	latest := hist[len(hist)-1].Revision()
	ctx, cancel = c.Timeout()
	defer cancel()
	if _, err := kv.Update(ctx, k.key, old.Value(), latest); err != nil {
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return noteOf(err, c.kvStale(kv, k.key, latest))
		}
		return c.kvWriteError(kv, k.key, old.Value(), err)
	}
	hist, err = c.kvHistory(kv, k.key)
	if err != nil {
		return err
	}
	c.kvHistoryTable(hist, k.bucket, k.key)
	return nil
}

// kvHistoryKept is the bucket's --history, or 0 if it cannot be read.
func kvHistoryKept(c *Call, kv jetstream.KeyValue) int64 {
	ctx, cancel := c.Timeout()
	defer cancel()
	if st, err := kv.Status(ctx); err == nil {
		return st.History()
	}
	return 0
}
