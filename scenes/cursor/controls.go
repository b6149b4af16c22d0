package cursor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes"
	"natslab/scenes/kit"
)

// Controls implements kit.Driver.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch [STREAM [CONSUMER…]]", Summary: "show a stream's log and its consumers (all, or those named); watch alone follows the stream in use"}, Run: d.watch},
	}
}

// watch shows a stream. Names are checked with the broker, so a typo gets
// the list of what exists.
func (d *driver) watch(args []string) (string, error) {
	if len(args) == 0 {
		d.setChoice(watchChoice{})
		return "watching the stream in use: the one a consumer was last added on, or the liveliest", nil
	}
	ctx, cancel := context.WithTimeout(d.Ctx, 3*time.Second)
	defer cancel()
	stream := args[0]
	st, err := d.js.Stream(ctx, stream)
	if err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			names := d.streamNames(ctx)
			if len(names) == 0 {
				return "", fmt.Errorf("there is no stream %s, nor any other yet: stream add %s --subjects '%s.>' --defaults makes one", stream, stream, strings.ToLower(stream))
			}
			return "", fmt.Errorf("there is no stream %s: the streams are %s (for example: watch %s)", stream, strings.Join(names, ", "), names[0])
		}
		return "", fmt.Errorf("cannot look at stream %s: %v", stream, err)
	}
	var have []string
	l := st.ConsumerNames(ctx)
	for n := range l.Name() {
		have = append(have, n)
	}
	sort.Strings(have)
	for _, c := range args[1:] {
		if !slices.Contains(have, c) {
			if len(have) == 0 {
				return "", fmt.Errorf("stream %s has no consumer %s, nor any other yet: consumer add %s %s --pull --defaults makes one", stream, c, stream, c)
			}
			return "", fmt.Errorf("stream %s has no consumer %s: its consumers are %s", stream, c, strings.Join(have, ", "))
		}
	}
	d.setChoice(watchChoice{stream: stream, consumers: slices.Clone(args[1:])})
	if len(args) > 1 {
		return fmt.Sprintf("watching %s on stream %s", strings.Join(args[1:], ", "), stream), nil
	}
	switch len(have) {
	case 0:
		return fmt.Sprintf("watching stream %s (no consumers yet: consumer add %s NAME --pull --defaults adds one)", stream, stream), nil
	case 1:
		return fmt.Sprintf("watching stream %s and its consumer %s", stream, have[0]), nil
	}
	return fmt.Sprintf("watching stream %s and its consumers %s", stream, strings.Join(have, ", ")), nil
}

func (d *driver) setChoice(c watchChoice) {
	d.mu.Lock()
	d.choice = c
	d.rewatch = true
	d.mu.Unlock()
	d.poke()
}

func (d *driver) streamNames(ctx context.Context) []string {
	var names []string
	l := d.js.StreamNames(ctx)
	for n := range l.Name() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
