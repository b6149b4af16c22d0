// Package contrast is the picture natslab exists for: a publisher, the
// server, a stream and a subscriber "app" that goes offline. In Core mode
// what is published while the app is away reaches the server and goes
// nowhere; in JetStream mode the stream keeps it, the consumer's pending
// count climbs, and it drains message by message when the app comes back.
//
// Everything on screen comes from the broker: the scene's own connections
// watch events.>, whoever publishes there (the pane, the scene's publisher,
// a real nats CLI on the lab's URL).
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package contrast

import (
	"strings"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "contrast",
	Summary: "Core vs JetStream: what an offline subscriber misses, and what a stream keeps for it",
	Keys: []scenes.KeyBinding{
		kit.Key("c", "core", "mode", "core"),
		kit.Key("j", "jetstream", "mode", "jetstream"),
		kit.Key("s", "split", "mode", "split"),
		kit.Key("o", "offline/online", "toggle"),
		kit.Key("p", "publish 1", "publish", "1"),
		kit.Key("P", "publish 10", "publish", "10"),
		kit.Key("R", "reset", "reset"),
	},
}

func init() {
	kit.Register(spec, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) })
}

// Options adjust a scene beyond what the lab's Env says.
type Options struct {
	// Presenter draws for a projector: taller boxes, wide message glyphs,
	// counters in big digits.
	Presenter bool
	// Speed scales time: 2 plays everything twice as fast. 0 means 1.
	Speed float64
	// Mode is the mode to start in.
	Mode Mode
}

// timing is how long things take on screen, scaled by Options.Speed.
type timing struct {
	pubLeg, coreLeg, storeLeg, replayLeg time.Duration
	fade, gap, flash, backlog, pace      time.Duration
}

func newTiming(speed float64) timing {
	s := kit.Paced(speed)
	return timing{
		pubLeg: s(450), coreLeg: s(550), storeLeg: s(350), replayLeg: s(450),
		fade: s(1200), gap: s(160), flash: s(900), backlog: s(2000),
		pace: s(600),
	}
}

// Scene is the contrast scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	opts Options
	t    timing
	d    *driver

	snap      Snapshot
	core, js  lane
	flashes   kit.Flashes
	sampledAt time.Time // when the feed last had to skip events
}

// lane is one side's animation state.
type lane struct {
	movers  kit.Movers
	inFree  time.Time // the publish wire is free for the next message from then
	outFree time.Time // the delivery wire likewise
	stored  time.Time // when the latest message in flight reaches the stream
}

// slot schedules a message on a wire: at now, or just behind the one
// before it so a burst reads as a train. ok is false when the train is
// already too long: the animation samples, the counters do not.
func slot(free *time.Time, now time.Time, t timing) (time.Time, bool) {
	return kit.Slot(free, now, now, t.gap, t.backlog)
}

// New connects the scene's clients to the deployment and starts watching.
func New(env scenes.Env, opts Options) (*Scene, error) {
	t := newTiming(opts.Speed)
	s := &Scene{opts: opts, t: t}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, feed, t.pace) })
	if err != nil {
		return nil, err
	}
	s.d = d
	s.flashes.Dur = t.flash
	max := 48
	if opts.Presenter {
		max = 24
	}
	s.core.movers.Max, s.js.movers.Max = max, max
	if opts.Mode != Core {
		d.setMode(opts.Mode, true)
	}
	s.snap = d.Snapshot()
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	switch s.snap.Mode {
	case JetStream:
		return []string{"JetStream: the stream keeps what the app misses", "JetStream: what's missed is kept", "JetStream"}
	case Split:
		return []string{"Core vs JetStream, on the same publishes", "Core vs JetStream, same publishes", "Core vs JetStream"}
	}
	return []string{"Core NATS: what the app misses is gone", "Core NATS: what's missed is gone", "Core NATS"}
}

// sampledFor is how long the footer says a flood is being sampled, after
// the feed last had to skip events.
const sampledFor = 2 * time.Second

// Next implements kit.Picture: the next frame is due when the picture next
// changes: every frame interval while a message travels; otherwise when a
// fading message takes its next shape, a flash ends or the flood footer
// goes, and not before (a frame repeating the last costs as much as any).
func (s *Scene) Next(now time.Time) time.Duration {
	var footer time.Duration
	if !s.sampledAt.IsZero() {
		footer = s.sampledAt.Add(sampledFor).Sub(now)
	}
	return kit.Soonest(s.core.movers.Next(now), s.js.movers.Next(now), s.flashes.Next(now), footer)
}

// Apply implements kit.Picture: broker events start animations, and the
// counters that changed flash.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	for _, e := range m.Events {
		s.animate(e, now)
	}
	s.refresh(now)
	s.core.movers.Prune(now)
	s.js.movers.Prune(now)
}

// tail is a message's label: the last token of its subject.
func tail(subject string) string {
	if i := strings.LastIndexByte(subject, '.'); i >= 0 {
		subject = subject[i+1:]
	}
	if len(subject) > 6 {
		subject = subject[:6]
	}
	return subject
}

// animate starts what an event shows, on the lanes the mode shows: a
// hidden lane's apps keep running, but nothing of them is drawn, so
// nothing of them moves either (a frame costs the same whatever moves).
func (s *Scene) animate(e kit.Event, now time.Time) {
	t := s.t
	if e.Kind == kit.Lost && e.Client == jsApp {
		return // a publish no stream acknowledged: its counter flashes
	}
	mode := s.snap.Mode
	switch e.Kind {
	case kit.Published, kit.Lost:
		label := tail(e.Subject)
		if mode.showsCore() {
			if start, ok := slot(&s.core.inFree, now, t); ok {
				m := kit.Mover{Label: label, Start: start, Role: kit.Msg}
				if e.Kind == kit.Lost {
					m.Route, m.Legs, m.Fade = []string{"pub", "srv", "gap"}, []time.Duration{t.pubLeg, t.coreLeg / 2}, t.fade
				} else {
					m.Route, m.Legs = []string{"pub", "srv", "app"}, []time.Duration{t.pubLeg, t.coreLeg}
				}
				s.core.movers.Add(m)
			}
		}
		if !s.snap.JS.Active || !mode.showsJS() {
			return
		}
		if start, ok := slot(&s.js.inFree, now, t); ok {
			m := kit.Mover{Label: label, Start: start, Role: kit.Msg}
			if s.snap.JS.Ready {
				m.Route, m.Legs = []string{"pub", "srv", "stream"}, []time.Duration{t.pubLeg, t.storeLeg}
				s.js.stored = m.Arrive()
			} else {
				m.Route, m.Legs, m.Fade = []string{"pub", "srv"}, []time.Duration{t.pubLeg}, t.fade
			}
			s.js.movers.Add(m)
		}
	case kit.Delivered:
		if e.Client != jsApp || !mode.showsJS() {
			return
		}
		// Live, a message leaves the stream after its publish arrived in
		// it; but never later than one publish's flight from now, or a
		// busy wire would push every delivery out of the picture.
		stored := s.js.stored
		if limit := now.Add(t.pubLeg + t.storeLeg); stored.After(limit) {
			stored = limit
		}
		if stored.After(s.js.outFree) {
			s.js.outFree = stored
		}
		if start, ok := slot(&s.js.outFree, now, t); ok {
			s.js.movers.Add(kit.Mover{Label: seqLabel(e.Seq), Route: []string{"stream", "app"}, Legs: []time.Duration{t.replayLeg}, Start: start, Role: kit.Msg})
		}
	case kit.Stored:
		s.flashes.Trigger(seqKey(e.Seq), now)
	case kit.Changed:
		if e.Note == "reset" {
			s.core = lane{movers: kit.Movers{Max: s.core.movers.Max}}
			s.js = lane{movers: kit.Movers{Max: s.js.movers.Max}}
			s.flashes.Clear()
		}
	}
}

// refresh reads the scene's state and flashes the counters that changed.
func (s *Scene) refresh(now time.Time) {
	old := s.snap
	s.snap = s.d.Snapshot()
	n := s.snap
	// Only the counters on screen flash: a hidden lane's would keep the
	// frames coming with nothing on screen changing.
	core, js := n.Mode.showsCore(), n.Mode.showsJS()
	s.flashes.Changed("published", n.Published > old.Published, now)
	s.flashes.Changed("core.received", core && n.Core.Received > old.Core.Received, now)
	s.flashes.Changed("core.lost", core && n.Core.Lost > old.Core.Lost, now)
	s.flashes.Changed("js.received", js && n.JS.Received > old.JS.Received, now)
	s.flashes.Changed("js.pending", js && n.JS.Pending != old.JS.Pending, now)
	s.flashes.Changed("js.notstored", js && n.JS.NotStored > old.JS.NotStored, now)
	s.flashes.Changed("core.status", core && n.Core.Online != old.Core.Online, now)
	s.flashes.Changed("js.status", js && n.JS.Online != old.JS.Online, now)
	if n.Sampled > old.Sampled {
		s.sampledAt = now
	}
}
