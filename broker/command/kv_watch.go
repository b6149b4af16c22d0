package command

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// kv watch: a long-running job that prints the keys' current values, then
// every change, until it is stopped.

func (k *kvCmd) watchRun(c *Call) error {
	if err := kvCheckBucketName(k.bucket); err != nil {
		return err
	}
	if err := kvCheckKey(k.key, true); err != nil {
		return err
	}
	// Look the bucket up on the shared connection first, for the clear
	// errors (unknown bucket, JetStream off).
	if _, _, err := c.kvOpen(k.bucket); err != nil {
		return err
	}
	// The watch gets a connection of its own, so a busy watcher never
	// holds up the rest of the lab.
	nc, err := c.S.Connect("natslab kv watch " + k.bucket)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	kv, err := js.KeyValue(ctx, k.bucket)
	cancel()
	if err != nil {
		return c.jsError(err)
	}
	var opts []jetstream.WatchOpt
	if !k.includeDeletes {
		opts = append(opts, jetstream.IgnoreDeletes())
	}
	if k.includeHistory {
		opts = append(opts, jetstream.IncludeHistory())
	}
	if k.updatesOnly {
		opts = append(opts, jetstream.UpdatesOnly())
	}
	if k.revision > 0 {
		opts = append(opts, jetstream.ResumeFromRevision(k.revision))
	}
	// The watcher lives as long as the job: its context is the job's.
	w, err := kv.Watch(c.Ctx, k.key, opts...)
	if err != nil {
		if c.Ctx.Err() != nil {
			return c.Ctx.Err()
		}
		return c.jsError(err)
	}
	defer w.Stop()
	stream := kvStreamPrefix + k.bucket
	c.listen("$KV."+k.bucket+"."+k.key, "")
	if k.updatesOnly {
		// No current values come first: the watch is in place now.
		c.Ready()
	}
	for {
		select {
		case <-c.Ctx.Done():
			return c.Ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				if c.Ctx.Err() != nil {
					return c.Ctx.Err()
				}
				return errors.New("the watch ended: the connection to the server closed")
			}
			if e == nil {
				// Every current value has been printed: from here on
				// only changes come, so a script may go on.
				c.Ready()
				continue
			}
			kvWatchLine(c, e)
			c.received("$KV."+e.Bucket()+"."+e.Key(), stream, e.Revision())
		}
	}
}

// kvWatchLine prints one change as the real CLI does.
func kvWatchLine(c *Call, e jetstream.KeyValueEntry) {
	switch e.Operation() {
	case jetstream.KeyValueDelete, jetstream.KeyValuePurge:
		fmt.Fprintf(c.Out, "[%s] %s %s > %s\n", f(e.Created()), kvOpName(e.Operation()), e.Bucket(), e.Key())
	case jetstream.KeyValuePut:
		fmt.Fprintf(c.Out, "[%s] %s %s > %s: %s\n", f(e.Created()), kvOpName(e.Operation()), e.Bucket(), e.Key(), e.Value())
	}
}
