package command

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go/jetstream"
)

// kv ls: the buckets, or the keys of one bucket.

func (k *kvCmd) lsRun(c *Call) error {
	if k.bucket != "" {
		return k.lsKeys(c)
	}
	return k.lsBuckets(c)
}

// lsBuckets lists the buckets as natscli does, through jsm.go's stream
// list, so that its errors read as natscli's do.
func (k *kvCmd) lsBuckets(c *Call) error {
	c.timeout = jsmTimeout(c.timeout) // natscli lists them with jsm.go
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	// The real CLI counts every stream named KV_* as a bucket.
	var found []*jsm.Stream
	if _, _, err := mgr.EachStream(nil, func(s *jsm.Stream) {
		if s.IsKVBucket() {
			found = append(found, s)
		}
	}); err != nil {
		return c.jsError(err)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Name() < found[j].Name() })
	if k.names {
		for _, s := range found {
			fmt.Fprintln(c.Out, strings.TrimPrefix(s.Name(), kvStreamPrefix))
		}
		return nil
	}
	if len(found) == 0 {
		fmt.Fprintln(c.Out, "No Key-Value buckets found")
		return nil
	}
	infos := make([]*api.StreamInfo, len(found))
	for i, s := range found {
		infos[i], _ = s.LatestInformation()
	}
	// Smallest first, as the real CLI lists them.
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].State.Bytes < infos[j].State.Bytes })
	t := newTable("Key-Value Buckets")
	t.AddHeaders("Bucket", "Description", "Created", "Size", "Values", "Last Update")
	for _, s := range infos {
		t.AddRow(strings.TrimPrefix(s.Config.Name, kvStreamPrefix), s.Config.Description, human(s.Created), size(s.State.Bytes), human(s.State.Msgs), human(c.Now().Sub(s.State.LastTime)))
	}
	fmt.Fprintln(c.Out, t.Render())
	return nil
}

func (k *kvCmd) lsKeys(c *Call) error {
	if _, err := c.jsHelper(); err != nil {
		return fmt.Errorf("unable to prepare js helper: %w", err)
	}
	_, kv, err := c.kvOpen(k.bucket)
	if err != nil {
		return fmt.Errorf("unable to load bucket: %w", err)
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	var l jetstream.KeyLister
	if k.key != "" {
		l, err = kv.ListKeysFiltered(ctx, k.key)
	} else {
		l, err = kv.ListKeys(ctx)
	}
	// What is odd about the pattern: why the library refuses it, or why
	// it matches no key a learner would write (sue* is no wildcard).
	why := error(nil)
	if k.key != "" {
		why = kvCheckKey(k.key, true)
	}
	if err != nil {
		if errors.Is(err, jetstream.ErrInvalidKey) {
			return noteOf(err, why)
		}
		return c.jsError(err)
	}
	if why != nil {
		c.Notef("%s", why)
	}
	defer l.Stop()
	var keys []string
	for key := range l.Keys() {
		keys = append(keys, key)
	}
	if k.verbose {
		if err := k.lsVerbose(c, kv, keys); err != nil {
			return err
		}
	} else {
		for _, key := range keys {
			fmt.Fprintln(c.Out, key)
		}
	}
	// --names is for scripts: natscli prints nothing there for no keys.
	if len(keys) == 0 && !k.names {
		fmt.Fprintln(c.Out, "No keys found in bucket")
	}
	return nil
}

// lsVerbose prints the keys with their latest revision.
func (k *kvCmd) lsVerbose(c *Call, kv jetstream.KeyValue, keys []string) error {
	t := newTable("Contents for bucket '%s'", k.bucket)
	if k.displayValue {
		t.AddHeaders("Key", "Created", "Delta", "Revision", "Value")
	} else {
		t.AddHeaders("Key", "Created", "Delta", "Revision")
	}
	for _, key := range keys {
		ctx, cancel := c.Timeout()
		e, err := kv.Get(ctx, key)
		cancel()
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted since it was listed
		}
		if err != nil {
			// natscli's words, the library's error as %s.
			line := fmt.Errorf("unable to display key info: unable to fetch key %s: %s", key, err)
			if n := ErrorNote(c.jsError(err)); n != "" {
				return explain(line, "%s", n)
			}
			return line
		}
		row := []any{e.Key(), human(e.Created()), e.Delta(), e.Revision()}
		if k.displayValue {
			row = append(row, string(e.Value()))
		}
		t.AddRow(row...)
	}
	fmt.Fprintln(c.Out, t.Render())
	return nil
}
