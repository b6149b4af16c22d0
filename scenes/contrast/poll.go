package contrast

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/scenes/kit"
)

// The poller reads the stream's and the consumer's state from the broker.
// A kick (a message seen, a control run) polls at once and again shortly
// after, since a stream stores a message a moment after the tap sees it;
// otherwise it polls every idlePoll to notice what others did (a purge, a
// consumer removed). It never polls more often than minPoll, however hard
// a flood kicks.
const (
	minPoll  = 200 * time.Millisecond
	idlePoll = 2 * time.Second
)

var trailing = []time.Duration{idlePoll, time.Second, 250 * time.Millisecond, 50 * time.Millisecond}

func (d *driver) runPoller() {
	trail := 0
	var last time.Time
	timer := time.NewTimer(idlePoll)
	defer timer.Stop()
	for {
		timer.Reset(trailing[trail])
		select {
		case <-d.Ctx.Done():
			return
		case <-d.pollKick:
			trail = len(trailing) - 1
		case <-timer.C:
			if trail > 0 {
				trail--
			}
		}
		if gap := minPoll - time.Since(last); gap > 0 && !d.Sleep(gap) {
			return
		}
		last = time.Now()
		d.poll()
	}
}

// poll refreshes the JetStream side, if it has been asked for.
func (d *driver) poll() {
	d.mu.Lock()
	active, ready, up, stream, cons, createLater := d.js.Active && d.mode.showsJS(), d.js.Ready, d.serverUp, d.js.Stream, d.cons, d.createLater
	d.mu.Unlock()
	if !active || !up {
		return
	}
	if !ready {
		_ = d.ensure(createLater)
		return
	}
	ctx, cancel := context.WithTimeout(d.Ctx, 2*time.Second)
	defer cancel()
	st, err := d.api.Stream(ctx, stream)
	if err != nil {
		d.pollFailed(err)
		return
	}
	s := st.CachedInfo().State
	ci, err := cons.Info(ctx)
	if err != nil {
		d.pollFailed(err)
		return
	}
	d.mu.Lock()
	// Announce what was stored since the last look; a flood is sampled to
	// the newest few.
	if prev := d.js.LastSeq; s.LastSeq > prev {
		from := max(prev+1, s.LastSeq-min(s.LastSeq, 7))
		for seq := from; seq <= s.LastSeq; seq++ {
			d.feed.Send(kit.Event{Kind: kit.Stored, Stream: stream, Seq: seq})
		}
	}
	d.js.FirstSeq, d.js.LastSeq, d.js.Msgs = s.FirstSeq, s.LastSeq, s.Msgs
	d.readConsumerLocked(ci)
	d.mu.Unlock()
	d.feed.Poke()
}

func (d *driver) pollFailed(err error) {
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound), errors.Is(err, jetstream.ErrConsumerNotFound),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		_ = d.ensure(false)
	}
}
