package contrast

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// maxPublish bounds `publish N`: a flood is what `nats bench pub` is for.
const maxPublish = 100_000

// Controls implements kit.Driver: bad input is an error saying what to
// type; what the broker cannot do right now is said in the result line and
// on screen. Going offline waits until no fetch is in flight.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "mode", Usage: "mode core|jetstream|split [wait]", Summary: "show the Core subscriber, the JetStream one, or both side by side (wait: for a stream you create, rather than making EVENTS)"}, Run: d.modeControl},
		{Control: scenes.Control{Name: "offline", Usage: "offline", Summary: "take the app on screen offline"}, Run: func(args []string) (string, error) {
			if err := kit.NoArgs("offline", args); err != nil {
				return "", err
			}
			return d.offline()
		}},
		{Control: scenes.Control{Name: "online", Usage: "online", Summary: "bring the app on screen back online"}, Run: func(args []string) (string, error) {
			if err := kit.NoArgs("online", args); err != nil {
				return "", err
			}
			return d.online()
		}},
		{Control: scenes.Control{Name: "toggle", Usage: "toggle", Summary: "offline if online, online if offline"}, Run: func(args []string) (string, error) {
			if err := kit.NoArgs("toggle", args); err != nil {
				return "", err
			}
			if d.anyOnline() {
				return d.offline()
			}
			return d.online()
		}},
		{Control: scenes.Control{Name: "publish", Usage: "publish [N]", Summary: "publish N messages (default 1) on " + PublishSubject + "; with the JetStream side shown, the stream acknowledges each it stores"}, Run: d.publishControl},
		{Control: scenes.Control{Name: "reset", Usage: "reset", Summary: "start the counts again, both apps online, the consumer at the end of the stream"}, Run: func(args []string) (string, error) {
			if err := kit.NoArgs("reset", args); err != nil {
				return "", err
			}
			return d.reset()
		}},
	}
}

func (d *driver) modeControl(args []string) (string, error) {
	wait := len(args) == 2 && args[1] == "wait"
	if len(args) != 1 && !wait {
		return "", errors.New("mode needs one of core, jetstream, split, and maybe wait (for example: mode jetstream)")
	}
	m, err := ParseMode(args[0])
	if err != nil {
		return "", err
	}
	if wait && !m.showsJS() {
		return "", errors.New("wait goes with mode jetstream or mode split: the Core side needs no stream")
	}
	return d.setMode(m, !wait), nil
}

func (d *driver) publishControl(args []string) (string, error) {
	n := 1
	if len(args) > 1 {
		return "", fmt.Errorf("publish takes one count, got %q (for example: publish 5)", strings.Join(args, " "))
	}
	if len(args) == 1 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 1 {
			return "", fmt.Errorf("publish %s: the count is a whole number from 1 (for example: publish 5)", args[0])
		}
		if v > maxPublish {
			return "", fmt.Errorf("publish %d: at most %d at a time (for a flood: nats bench pub events.x --msgs 1000000)", v, maxPublish)
		}
		n = v
	}
	res, err := d.publish(n)
	if err != nil {
		if res.notStored > 0 {
			return "", fmt.Errorf("%w (%d of the %d sent not stored)", err, res.notStored, res.n)
		}
		return "", err
	}
	said := fmt.Sprintf("published %s on %s", text.Count(n, "message", "messages"), PublishSubject)
	switch {
	case !res.jetstream:
	case res.notStored == 0:
		said += fmt.Sprintf(", the stream acknowledged %s", text.Plural(n, "it", "all "+strconv.Itoa(n)))
	default:
		said += fmt.Sprintf(", %d not stored: %s", res.notStored, notStoredWhy(res.why))
	}
	return said, nil
}

func (d *driver) anyOnline() bool {
	d.mu.Lock()
	m, jsOn := d.mode, d.js.Online
	d.mu.Unlock()
	return (m.showsCore() && d.coreOnline.Load()) || (m.showsJS() && jsOn)
}

// setMode shows m. With create, the JetStream side makes EVENTS when no
// stream captures events.>; without, it waits for the learner to make one
// (a lesson whose step is to create the stream).
func (d *driver) setMode(m Mode, create bool) string {
	note := ""
	if m.showsJS() {
		d.mu.Lock()
		first := !d.js.Active
		d.js.Active = true
		d.waitForStream = !create
		if first {
			d.js.Online = true
		}
		ready := d.js.Ready
		d.mu.Unlock()
		if !ready {
			if err := d.ensure(create); err != nil {
				note = " (" + err.Error() + ")"
			}
		}
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "mode"})
	d.mode = m
	stream := d.js.Stream
	d.mu.Unlock()
	d.jsShown.Store(m.showsJS())
	d.kickPoll()
	if stream == "" {
		stream = StreamName
	}
	d.feed.Poke()
	switch m {
	case JetStream:
		return "mode jetstream: the app reads " + Watch + " from stream " + stream + " through its durable consumer " + ConsumerName + note
	case Split:
		return "mode split: the Core app and the JetStream app side by side, on the same publishes" + note
	}
	return "mode core: the app subscribes to " + Watch + "; the server keeps nothing for it"
}

func (d *driver) offline() (string, error) {
	d.mu.Lock()
	m, jsOn, active := d.mode, d.js.Online, d.js.Active
	d.mu.Unlock()
	var said []string
	if m.showsCore() {
		if !d.coreOnline.Load() {
			said = append(said, "the core app is already offline")
		} else {
			if err := d.coreDown(); err != nil {
				return "", err
			}
			said = append(said, "the core app unsubscribed: what is published now reaches the server and no one")
		}
	}
	if m.showsJS() && active {
		if !jsOn {
			said = append(said, "the JetStream app is already offline")
		} else {
			d.jsOffline()
			said = append(said, "the JetStream app stopped fetching: the stream keeps what it misses")
		}
	}
	d.feed.Poke()
	return "offline: " + strings.Join(said, "; "), nil
}

func (d *driver) online() (string, error) {
	d.mu.Lock()
	m, jsOn, active := d.mode, d.js.Online, d.js.Active
	d.mu.Unlock()
	var said []string
	if m.showsCore() {
		if d.coreOnline.Load() {
			said = append(said, "the core app is already online")
		} else {
			if err := d.coreUp(); err != nil {
				return "", err
			}
			said = append(said, "the core app subscribed again: only what is published from now on reaches it")
		}
	}
	if m.showsJS() && active {
		if jsOn {
			said = append(said, "the JetStream app is already online")
		} else {
			d.jsOnline()
			d.mu.Lock()
			pending, known := d.js.Pending, d.js.Known
			d.mu.Unlock()
			if known {
				said = append(said, fmt.Sprintf("the JetStream app fetches again: the stream replays the %d it missed", pending))
			} else {
				said = append(said, "the JetStream app fetches again")
			}
		}
	}
	d.feed.Poke()
	return "online: " + strings.Join(said, "; "), nil
}

// reset starts the story again: counts at zero, both apps online, and the
// consumer replaced by a new one at the end of the stream (the stream and
// its messages stay: they may be the learner's).
func (d *driver) reset() (string, error) {
	d.mu.Lock()
	active, stream := d.js.Active, d.js.Stream
	d.mu.Unlock()
	said := "reset: counts start again from 0, both apps online"
	if active {
		d.jsOffline()
		if stream != "" {
			ctx, cancel := context.WithTimeout(d.Ctx, 5*time.Second)
			err := d.api.DeleteConsumer(ctx, stream, ConsumerName)
			cancel()
			if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound) {
				return "", fmt.Errorf("cannot remove consumer %s: %s", ConsumerName, explain(err))
			}
		}
		d.mu.Lock()
		d.consumerSeq = 0
		d.js.Pending, d.js.AckPending, d.js.Known, d.js.Delivered = 0, 0, false, 0
		d.mu.Unlock()
		if err := d.ensure(true); err != nil {
			said += " (" + err.Error() + ")"
		} else {
			d.mu.Lock()
			said += ", consumer " + ConsumerName + " recreated at the end of stream " + d.js.Stream
			d.mu.Unlock()
		}
		d.jsOnline()
	}
	if !d.coreOnline.Load() {
		if err := d.coreUp(); err != nil {
			return "", err
		}
	}
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.published.Store(0)
	d.coreReceived.Store(0)
	d.coreLost.Store(0)
	d.jsReceived.Store(0)
	d.notStored.Store(0)
	d.zeroDrops()
	d.feed.Poke()
	return said, nil
}
