package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// kv watch: a long-running job that prints the keys' current values, then
// every change, until it is stopped.

// kvRewatchFor bounds how long a watch retries after the server came back
// (JetStream may still be loading its streams).
const kvRewatchFor = 3 * time.Second

func (k *kvCmd) watchRun(c *Call) error {
	// Look the bucket up on the shared connection first, for the clear
	// errors (no bucket named, unknown bucket, JetStream off), as the real
	// CLI does before it looks at the key.
	if _, _, err := c.kvOpen(k.bucket); err != nil {
		return err
	}
	if err := kvCheckKey(k.key, true); err != nil {
		return noteOf(errKVBadPattern, err)
	}
	// The watch gets a connection of its own, so a busy watcher never
	// holds up the rest of the lab.
	nc, err := c.connectJob("natslab kv watch " + k.bucket)
	if err != nil {
		return err
	}
	defer c.closeJob(nc)
	// After the lab's server restarts, the watch's consumer is gone; nats.go
	// would notice only after missing heartbeats (about 20s), so the watch
	// starts again at once, from the revision after the last one printed.
	reconnected := make(chan struct{}, 1)
	onReconnect(nc, func(*nats.Conn) {
		select {
		case reconnected <- struct{}{}:
		default:
		}
	})
	// nats.go's complaints about the watch's consumer never reach the
	// screen (the job connection's handler prints only refusals); the
	// watch explains them itself.
	// When the bucket is deleted (kv rm, reset) the server says so at once;
	// without this the watch would notice only when heartbeats stop.
	deleted := make(chan struct{}, 1)
	adv, err := nc.Subscribe("$JS.EVENT.ADVISORY.STREAM.DELETED."+kvStreamPrefix+k.bucket, func(*nats.Msg) {
		select {
		case deleted <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer adv.Unsubscribe()
	if _, err := c.jsHelper(); err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	w, err := k.startWatch(c, js, 0)
	if err != nil {
		return err
	}
	defer func() { w.Stop() }()
	stream := kvStreamPrefix + k.bucket
	filter := "$KV." + k.bucket + "." + k.key
	c.listen(filter, "")
	// What the watch has been through (printed or, for --no-deletes,
	// passed over): the server's last revision of a matching key at most
	// this means nothing is on its way. With --updates or --revision the
	// revisions before the start never come.
	var seen atomic.Uint64
	switch {
	case k.updatesOnly:
		seen.Store(kvLastRevision(c, stream, filter))
	case k.revision > 0:
		seen.Store(k.revision - 1)
	}
	// Its barrier: through the last revision the server holds for it now.
	c.settleWith(func(ctx context.Context) error {
		upTo := kvLastRevision(c, stream, filter)
		return c.settleWhen(ctx, func(context.Context) (bool, error) { return seen.Load() >= upTo, nil })
	})
	if k.updatesOnly {
		// No current values come first: the watch is in place now.
		c.Ready()
	}
	var last uint64 // the newest revision printed
	for {
		select {
		case <-c.Ctx.Done():
			return c.Ctx.Err()
		case <-deleted:
			// The real CLI's watch ends quietly (once its heartbeats stop
			// coming), with no error: the lab's words are a note.
			c.Notef("the watch ended: bucket %s was deleted", k.bucket)
			return nil
		case <-reconnected:
			w.Stop()
			nw, err := k.rewatch(c, js, last)
			if err != nil {
				if c.Ctx.Err() != nil {
					return c.Ctx.Err()
				}
				// As the real CLI's watch, it ends with no line of its
				// own; the lab's words are a note.
				why := ErrorNote(err)
				if why == "" {
					why = err.Error()
				}
				c.Notef("the watch ended when the server restarted: %s", why)
				return nil
			}
			w = nw
		case e, ok := <-w.Updates():
			if !ok {
				if c.Ctx.Err() != nil {
					return c.Ctx.Err()
				}
				return k.watchEnded(c)
			}
			if e == nil {
				// Every current value has been printed: from here on
				// only changes come, so a script may go on.
				c.Ready()
				continue
			}
			if e.Revision() <= last {
				continue // seen before the watch started again
			}
			last = e.Revision()
			show := k.includeDeletes || e.Operation() == jetstream.KeyValuePut
			if show {
				kvWatchLine(c, e)
			}
			// Through it before anyone is told it was received.
			if e.Revision() > seen.Load() {
				seen.Store(e.Revision())
			}
			if show {
				c.received("$KV."+e.Bucket()+"."+e.Key(), stream, e.Revision())
			} else {
				c.handled()
			}
		}
	}
}

// startWatch opens the bucket on the watch's own connection and starts
// watching; after is the last revision already printed (0: none yet).
func (k *kvCmd) startWatch(c *Call, js jetstream.JetStream, after uint64) (jetstream.KeyWatcher, error) {
	ctx, cancel := c.Timeout()
	kv, err := js.KeyValue(ctx, k.bucket)
	cancel()
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, explain(err, "bucket %s no longer exists (deleted, or kept in memory and lost when the server restarted)", k.bucket)
	}
	if err != nil {
		return nil, c.jsError(err)
	}
	// Deletes come even with --no-deletes, and are passed over by the
	// watch itself: it knows then it has been through them.
	var opts []jetstream.WatchOpt
	switch {
	case after > 0:
		// Starting again: every change after the last one printed.
		opts = append(opts, jetstream.ResumeFromRevision(after+1))
	default:
		if k.includeHistory {
			opts = append(opts, jetstream.IncludeHistory())
		}
		if k.updatesOnly {
			opts = append(opts, jetstream.UpdatesOnly())
		}
		if k.revision > 0 {
			opts = append(opts, jetstream.ResumeFromRevision(k.revision))
		}
	}
	// The watcher lives as long as the job, which stops it itself (see
	// ownWatch). Given the job's context, nats.go would stop it on a
	// goroutine of its own when the job is stopped, and the job could end
	// before the server had dropped the watch and its consumer. A stop
	// while the watch is being made still ends it.
	wctx, cancel := context.WithCancel(context.WithoutCancel(c.Ctx))
	detach := context.AfterFunc(c.Ctx, cancel)
	w, err := kv.Watch(wctx, k.key, opts...)
	if err != nil {
		detach()
		cancel()
		if c.Ctx.Err() != nil {
			return nil, c.Ctx.Err()
		}
		return nil, c.jsError(err)
	}
	detach()
	return &ownWatch{KeyWatcher: w, nc: js.Conn(), cancel: cancel}, nil
}

// ownWatch is a key watcher its job stops: Stop returns once the server
// has dropped the watch's subscription and deleted its consumer.
type ownWatch struct {
	jetstream.KeyWatcher
	nc     *nats.Conn
	cancel context.CancelFunc
}

func (w *ownWatch) Stop() error {
	defer w.cancel()
	if w.nc != nil && !w.nc.IsConnected() {
		// The server holds nothing of a connection it has lost; asking it
		// to delete the consumer would wait for it to come back.
		return nil
	}
	return w.KeyWatcher.Stop()
}

// rewatch starts the watch again after the server came back, retrying
// while JetStream settles.
func (k *kvCmd) rewatch(c *Call, js jetstream.JetStream, after uint64) (jetstream.KeyWatcher, error) {
	deadline := time.Now().Add(kvRewatchFor)
	for {
		w, err := k.startWatch(c, js, after)
		if err == nil || c.Ctx.Err() != nil || time.Now().After(deadline) {
			return w, err
		}
		select {
		case <-c.Ctx.Done():
			return nil, c.Ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// watchEnded says, in a note, why the watcher closed by itself: the real
// CLI's watch then ends with no error and no line of its own.
func (k *kvCmd) watchEnded(c *Call) error {
	why := "the server closed it"
	if js, err := c.JS(); err == nil {
		ctx, cancel := c.Timeout()
		defer cancel()
		if _, err := js.KeyValue(ctx, k.bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
			why = fmt.Sprintf("bucket %s was deleted", k.bucket)
		}
	}
	c.Notef("the watch ended: %s", why)
	return nil
}

// kvWatchLine prints one change as the real CLI does.
func kvWatchLine(c *Call, e jetstream.KeyValueEntry) {
	switch e.Operation() {
	case jetstream.KeyValueDelete, jetstream.KeyValuePurge:
		fmt.Fprintf(c.Out, "[%s] %s %s > %s\n", human(e.Created()), kvOpName(e.Operation()), e.Bucket(), e.Key())
	case jetstream.KeyValuePut:
		fmt.Fprintf(c.Out, "[%s] %s %s > %s: %s\n", human(e.Created()), kvOpName(e.Operation()), e.Bucket(), e.Key(), e.Value())
	}
}

// kvLastRevision is the stream's last sequence on a subject matching
// filter (0 if none, or if the server cannot say: nothing is then waited
// for), asked of the stream itself: a direct get cannot take a wildcard.
func kvLastRevision(c *Call, stream, filter string) uint64 {
	nc, err := c.Conn()
	if err != nil {
		return 0
	}
	req, _ := json.Marshal(map[string]string{"last_by_subj": filter})
	resp, err := nc.Request("$JS.API.STREAM.MSG.GET."+stream, req, c.timeout)
	if err != nil {
		return 0
	}
	var got struct {
		Message struct {
			Seq uint64 `json:"seq"`
		} `json:"message"`
	}
	if json.Unmarshal(resp.Data, &got) != nil {
		return 0
	}
	return got.Message.Seq
}
