package retention

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// maxPublish bounds `publish N`: the picture holds a handful per stream.
const maxPublish = 100

// Controls implements kit.Driver: typing mistakes are errors saying what
// to type; publish waits for each acknowledgement.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch STREAM", Summary: "show this stream in its policy's column (the newest stream of each policy is shown otherwise)"}, Run: d.watch},
		{Control: scenes.Control{Name: "publish", Usage: "publish [N]", Summary: "publish N messages (default 1) to each stream on screen, to compare what each keeps"}, Run: func(args []string) (string, error) {
			n, err := kit.Count(args, maxPublish, "publish 2")
			if err != nil {
				return "", err
			}
			return d.publish(n)
		}},
		{Control: scenes.Control{Name: "reset", Usage: "reset", Summary: "show the newest stream of each policy again, and count acknowledgements from 0"}, Run: d.reset},
	}
}

func (d *driver) watch(args []string) (string, error) {
	if len(args) != 1 {
		return "", errors.New("watch needs a stream's name (for example: watch INTEREST)")
	}
	ctx, cancel := context.WithTimeout(d.Ctx, 3*time.Second)
	st, err := d.js.Stream(ctx, args[0])
	cancel()
	if err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrInvalidStreamName) {
			return "", fmt.Errorf("there is no stream %s: %s", args[0], watch.StreamList(d.Ctx, d.js))
		}
		return "", fmt.Errorf("cannot read stream %s: %w", args[0], err)
	}
	p := watch.Retention(st.CachedInfo().Config.Retention)
	d.mu.Lock()
	d.pinned[p] = args[0]
	d.mu.Unlock()
	d.poll()
	return fmt.Sprintf("showing %s in the %s column", args[0], p), nil
}

func (d *driver) reset(args []string) (string, error) {
	if err := kit.NoArgs("reset", args); err != nil {
		return "", err
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	clear(d.pinned)
	clear(d.acks)
	clear(d.notes)
	d.snap.Story = ""
	d.mu.Unlock()
	d.poll()
	return "reset: the newest stream of each policy, acknowledgements counted from 0", nil
}

// publish sends n messages to each stream on screen, waiting for each
// acknowledgement, and says what each stream answered.
func (d *driver) publish(n int) (string, error) {
	d.mu.Lock()
	cols := d.snap.Columns
	problem := d.snap.Problem
	d.mu.Unlock()
	if problem != "" {
		return "", errors.New(problem)
	}
	var said []string
	for _, c := range cols {
		if c.Stream == "" || len(c.Subjects) == 0 {
			continue
		}
		subject := watch.Literal(c.Subjects[0])
		var first, last uint64
		for i := 0; i < n; i++ {
			ctx, cancel := context.WithTimeout(d.Ctx, 5*time.Second)
			ack, err := d.js.PublishMsg(ctx, &nats.Msg{Subject: subject, Data: fmt.Appendf(nil, "message from the retention scene %d", i+1)})
			cancel()
			if err != nil {
				return "", fmt.Errorf("publish to %s: %w", subject, err)
			}
			if first == 0 {
				first = ack.Sequence
			}
			last = ack.Sequence
		}
		if first == last {
			said = append(said, fmt.Sprintf("%s #%d", c.Stream, first))
		} else {
			said = append(said, fmt.Sprintf("%s #%d to #%d", c.Stream, first, last))
		}
	}
	if len(said) == 0 {
		return "", errors.New("no stream on screen yet: " + examples["limits"])
	}
	d.poke()
	return "published and acknowledged: " + strings.Join(said, ", "), nil
}
