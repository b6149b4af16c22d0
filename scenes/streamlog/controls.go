package streamlog

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

// addExample says how to make a stream, for a scene with none. Its
// stream is an example, and says so: the scene does not know which
// stream the lesson beside it makes (lesson 10 makes DISK and RAM).
const addExample = `stream add makes one (for example: ` + exampleAdd + `)`

// exampleAdd makes the example stream.
const exampleAdd = `stream add ORDERS --subjects "orders.>" --defaults`

// noStream is what the scene says while the server has no stream.
const noStream = "no stream yet: " + addExample

// tryStream are what to type on a server with no stream, where the pane
// has the rows to list them: the example stream, then messages in it.
var tryStream = []string{exampleAdd, "pub orders.new hi --count 3 --jetstream"}

// tryFor offers the lesson's lines (scenes.Env's Try), or the example.
func tryFor(lesson []string) kit.Offer {
	return kit.StreamOffer(lesson, "No stream yet. Make the lesson's and publish to it:",
		kit.Offer{Lead: "No stream yet. Make one (ORDERS, say) and publish to it:", Lines: tryStream, Short: noStream})
}

// maxPublish bounds `publish N`: the picture is about each message's place
// in the log, and a flood is what `pub --count` is for.
const maxPublish = 1000

// Controls implements kit.Driver: typing mistakes are errors saying what
// to type; publish waits for each acknowledgement.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch STREAM | watch all", Summary: "show one stream's log, or every stream's (the default)"}, Run: func(args []string) (string, error) {
			if len(args) != 1 {
				return "", fmt.Errorf("watch needs a stream's name, or all (for example: watch %s)", d.someStream())
			}
			return d.watch(args[0])
		}},
		{Control: scenes.Control{Name: "publish", Usage: "publish [N]", Summary: "publish N messages (default 1) to the stream on screen and wait for each acknowledgement"}, Run: func(args []string) (string, error) {
			n, err := kit.Count(args, maxPublish, "publish 5")
			if err != nil {
				return "", err
			}
			return d.publish(n)
		}},
		{Control: scenes.Control{Name: "reset", Usage: "reset", Summary: "start the counts again and forget streams that are gone"}, Run: d.reset},
	}
}

func (d *driver) reset(args []string) (string, error) {
	if err := kit.NoArgs("reset", args); err != nil {
		return "", err
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	clear(d.counts)
	live := d.snap.Streams[:0:0]
	for _, l := range d.snap.Streams {
		if l.Gone == "" {
			d.counts[l.Name] = &TapCounts{}
			live = append(live, l)
		}
	}
	d.snap.Streams = live
	d.snap.Story = ""
	d.mu.Unlock()
	d.feed.Poke()
	return "reset: the counts start again from 0", nil
}

// someStream names a stream on screen, for an example: the first, or
// ORDERS when there is none.
func (d *driver) someStream() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.snap.Streams {
		if l.Gone == "" {
			return l.Name
		}
	}
	return "ORDERS"
}

func (d *driver) watch(name string) (string, error) {
	focus := name
	if name == "all" {
		focus = ""
	} else {
		ctx, cancel := context.WithTimeout(d.Ctx, 3*time.Second)
		_, err := d.js.Stream(ctx, name)
		cancel()
		notFound := errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrStreamNameRequired) || errors.Is(err, jetstream.ErrInvalidStreamName)
		switch {
		case notFound && strings.EqualFold(name, "all"):
			// ALL is every stream, as all is, unless a stream has that
			// name (lesson 29 makes one).
			focus = ""
		case notFound:
			return "", fmt.Errorf("there is no stream %s: %s", name, watch.StreamList(d.Ctx, d.js))
		case err != nil:
			return "", errors.New(explain(err, name))
		}
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.snap.Focus = focus
	d.snap.Streams = nil
	d.snap.Story = ""
	d.mu.Unlock()
	d.poll()
	if focus == "" {
		return "watching every stream", nil
	}
	d.mu.Lock()
	copies := len(d.snap.Streams) == 1 && d.snap.Streams[0].Copies()
	d.mu.Unlock()
	if copies {
		return "watching " + focus + ": its log, its limits, and the streams it copies", nil
	}
	return "watching " + focus + ": its log, its limits, and what publishers hear back", nil
}

// publish sends n messages to the stream on screen, each waiting for its
// acknowledgement, as `pub --jetstream` does.
func (d *driver) publish(n int) (string, error) {
	d.mu.Lock()
	var target *Lane
	for i := range d.snap.Streams {
		if l := &d.snap.Streams[i]; l.Gone == "" && (d.snap.Focus == "" || l.Name == d.snap.Focus) {
			target = l
			break
		}
	}
	var stream, subject string
	if target != nil && len(target.Subjects) > 0 {
		stream, subject = target.Name, watch.Literal(target.Subjects[0])
	}
	problem := d.snap.Problem
	d.mu.Unlock()
	if stream == "" {
		switch {
		case problem == noStream:
			return "", errors.New(d.try.Short)
		case problem != "":
			return "", errors.New(problem)
		}
		return "", errors.New("no stream on screen to publish to: " + addExample)
	}
	var stored, dups, refused int
	var first, last uint64
	var why string
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithTimeout(d.Ctx, 5*time.Second)
		ack, err := d.js.PublishMsg(ctx, &nats.Msg{Subject: subject, Data: fmt.Appendf(nil, "message from the log scene %d", i+1)})
		cancel()
		var apiErr *jetstream.APIError
		switch {
		case errors.As(err, &apiErr):
			refused++
			why = apiErr.Description
		case err != nil:
			return "", fmt.Errorf("publish to %s failed after %d of %d: %w", subject, i, n, err)
		case ack.Duplicate:
			dups++
		default:
			stored++
			if first == 0 {
				first = ack.Sequence
			}
			last = ack.Sequence
		}
	}
	out := fmt.Sprintf("published %d to %s:", n, subject)
	if stored > 0 {
		if first == last {
			out += fmt.Sprintf(" %s stored #%d", stream, first)
		} else {
			out += fmt.Sprintf(" %s stored #%d to #%d", stream, first, last)
		}
	}
	if refused > 0 {
		out += fmt.Sprintf(" %d refused (%s)", refused, why)
	}
	return out, nil
}
