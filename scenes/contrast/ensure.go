package contrast

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes/kit"
)

// eventsConfig is the stream `nats stream add EVENTS --subjects 'events.>'
// --defaults` makes, so a learner who types that command after the scene
// made the stream is told it exists with the same configuration, not that
// it differs.
func eventsConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              StreamName,
		Subjects:          []string{Watch},
		Storage:           jetstream.FileStorage,
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardOld,
		MaxMsgs:           -1,
		MaxMsgsPerSubject: -1,
		MaxBytes:          -1,
		MaxMsgSize:        -1,
		MaxConsumers:      -1,
		Replicas:          1,
		Duplicates:        2 * time.Minute,
		AllowDirect:       true,
	}
}

// consumerConfig is the app's durable pull consumer. It starts at the end
// of the stream: the scene is about what the app misses from now on, not
// about what the stream held before.
func consumerConfig(filter string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       ConsumerName,
		Description:   "the natslab contrast scene's app",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		FilterSubject: filter,
	}
}

// ensure finds the stream that captures events.> (creating EVENTS when none
// does and create is set) and the app's consumer on it (creating it when
// missing: it is the scene's own). What cannot be done becomes the scene's
// problem line, which says what to type.
func (d *driver) ensure(create bool) error {
	d.ensureMu.Lock()
	defer d.ensureMu.Unlock()
	ctx, cancel := context.WithTimeout(d.Ctx, 5*time.Second)
	defer cancel()
	name, err := d.api.StreamNameBySubject(ctx, Watch)
	switch {
	case err == nil:
	case errors.Is(err, jetstream.ErrStreamNotFound):
		if !create {
			d.mu.Lock()
			waiting := d.waitForStream
			d.mu.Unlock()
			if waiting {
				return d.notReady(problemWaiting, false)
			}
			return d.notReady(problemGone, false)
		}
		if _, err := d.api.CreateStream(ctx, eventsConfig()); err != nil {
			return d.notReady(explain(err), create)
		}
		name = StreamName
	default:
		return d.notReady(explain(err), create)
	}
	st, err := d.api.Stream(ctx, name)
	if err != nil {
		return d.notReady(explain(err), create)
	}
	// Ready means the scene's publishes reach the stream: on the lab's
	// cluster every node must have learned of its leader, or the first
	// one would go unanswered (the scene's own subscriber hears it).
	broker.AwaitReachable(d.dep, name, 5*time.Second)
	filter := ""
	if !slices.Equal(st.CachedInfo().Config.Subjects, []string{Watch}) {
		filter = Watch // a wider stream: the app reads only events.>
	}
	cons, err := d.appJS.Consumer(ctx, name, ConsumerName)
	fresh := false
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = d.appJS.CreateConsumer(ctx, name, consumerConfig(filter))
		fresh = true
	}
	if err != nil {
		return d.notReady(explain(err), create)
	}
	info := cons.CachedInfo()
	if info.Config.DeliverSubject != "" || info.Config.AckPolicy == jetstream.AckNonePolicy {
		return d.notReady("consumer "+ConsumerName+" on "+name+" is not a pull consumer with acks: scene reset replaces it", false)
	}
	sinfo := st.CachedInfo()
	d.mu.Lock()
	if fresh || d.js.Stream != name {
		d.consumerSeq = 0 // a new consumer counts from the start
	}
	d.js.Ready, d.js.Stream, d.cons = true, name, cons
	d.js.FirstSeq, d.js.LastSeq, d.js.Msgs = sinfo.State.FirstSeq, sinfo.State.LastSeq, sinfo.State.Msgs
	d.readConsumerLocked(info)
	d.problem, d.createLater = "", false
	start := !d.appStarted
	d.appStarted = true
	d.cond.Broadcast()
	d.mu.Unlock()
	if start {
		d.Go(d.runApp)
	}
	d.feed.Poke()
	d.kickPoll()
	return nil
}

// notReady records why the JetStream side cannot work and returns it as
// an error.
func (d *driver) notReady(problem string, createLater bool) error {
	d.mu.Lock()
	d.js.Ready, d.cons = false, nil
	d.problem = problem
	d.createLater = createLater
	d.cond.Broadcast()
	d.mu.Unlock()
	d.feed.Poke()
	return errors.New(problem)
}

// readConsumerLocked takes the consumer's numbers from the broker, unless
// a message that came with newer ones was already read.
func (d *driver) readConsumerLocked(info *jetstream.ConsumerInfo) {
	if info.Delivered.Consumer < d.consumerSeq {
		return
	}
	d.consumerSeq = info.Delivered.Consumer
	changed := !d.js.Known || d.js.Pending != info.NumPending || d.js.AckPending != uint64(info.NumAckPending)
	d.js.Pending, d.js.AckPending, d.js.Known = info.NumPending, uint64(info.NumAckPending), true
	d.js.Delivered = info.Delivered.Stream
	if changed {
		d.feed.Send(kit.Event{Kind: kit.Pending, Stream: info.Stream, Consumer: info.Name, Pending: info.NumPending, AckPending: uint64(info.NumAckPending)})
	}
}

// Why the JetStream side cannot work, and what to do.
const (
	problemWaiting      = `waiting for a stream that captures events.>: stream add EVENTS --subjects "events.>" --defaults makes one`
	problemGone         = "no stream captures events.> any more: scene reset creates EVENTS again"
	problemJetStreamOff = "JetStream is off: nats-server -js turns it on (the JetStream side waits for it)"
	problemNoAnswer     = "the server is not answering right now (restarting?): the scene tries again"
)

// explain turns a JetStream error into one line that says what to do.
func explain(err error) string {
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, nats.ErrNoResponders):
		return problemJetStreamOff
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return problemNoAnswer
	}
	return "JetStream: " + err.Error()
}
