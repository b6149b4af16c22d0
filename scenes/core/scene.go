// Package core holds the three scenes of Core NATS the first episodes
// show: hello (publisher, server, the subscribers there are right now),
// wildcards (each filter matched token by token against each published
// subject) and queue-groups (each message dealt to one member of each
// group).
//
// Everything on screen comes from the broker. One tap subscription on the
// watched subjects sees every publish, whoever makes it (the command pane,
// the scene's own publish, a real nats CLI on the lab's URL); the server
// itself, asked in process, says who subscribes and how many messages each
// subscription was given. A message travels to a subscriber on screen
// because the server counted a delivery to it.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package core

import (
	"strings"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

// timing is how long things take on screen.
type timing struct {
	pubLeg, outLeg, downLeg, inLeg time.Duration
	fade, gap, flash, backlog      time.Duration
	token, owe, keep               time.Duration
}

var defaultTiming = timing{
	pubLeg: 450 * time.Millisecond, outLeg: 120 * time.Millisecond,
	downLeg: 220 * time.Millisecond, inLeg: 160 * time.Millisecond,
	fade: 1200 * time.Millisecond, gap: 160 * time.Millisecond,
	flash: 900 * time.Millisecond, backlog: 2 * time.Second,
	token: 140 * time.Millisecond, // the wildcards scene reveals one token of a match per step
	owe:   time.Second,            // a delivery with no publish to follow goes on its own after this
	keep:  3 * time.Second,        // how long a publish waits for the deliveries that follow it
}

// Scene is the picture of one of the three Core NATS scenes.
type Scene struct {
	kit.Scene[Snapshot]
	kind Kind
	t    timing
	d    *driver

	snap    Snapshot
	rows    []row
	movers  kit.Movers
	flashes kit.Flashes
	flow    flow
	landing landing   // deliveries on their way, so a count ticks as its message lands
	recent  []arrival // the latest publishes, newest last (the wildcards scene shows them)

	sampledAt time.Time
}

// New connects the scene to the deployment and starts watching.
func New(env scenes.Env, kind Kind) (*Scene, error) {
	s := &Scene{kind: kind, t: defaultTiming}
	d, err := kit.Open(&s.Scene, s, env, kind.spec(), func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, kind, feed) })
	if err != nil {
		return nil, err
	}
	s.d = d
	s.flow.init()
	s.landing = landing{}
	s.flashes.Dur = s.t.flash
	s.movers.Max = 64
	s.refresh(s.Clock.Now())
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string { return s.kind.titles(s.snap.Watch) }

// Next implements kit.Picture: frames while messages travel, counts flash,
// deliveries wait for their publish, or a match is revealed.
func (s *Scene) Next(now time.Time) time.Duration {
	return kit.Every(s.movers.Active(now) || s.flashes.Active(now) || s.flow.waiting() || s.revealing(now))
}

// Apply implements kit.Picture: broker events start animations, frames
// move them.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	if m.News() {
		s.refresh(now)
		for _, e := range m.Events {
			s.animate(e, now)
		}
	}
	s.deliver(now)
	s.movers.Prune(now)
	s.landing.prune(now)
}

// refresh reads the driver's state, rebuilds the rows and flashes the
// numbers that changed.
func (s *Scene) refresh(now time.Time) {
	old := s.snap
	s.snap = s.d.Snapshot()
	n := s.snap
	s.rows = buildRows(s.kind, n.Subs)
	live := make(map[string]bool, len(s.rows))
	for _, r := range s.rows {
		live[consumerOf(r.sub)] = true
	}
	s.flow.keep(live)
	s.flashes.Changed("published", n.Published != old.Published, now)
	// The other counts flash as their messages land (see landing).
	if n.Sampled > old.Sampled {
		s.sampledAt = now
	}
}

// tail is a message's label: the last token of its subject.
func tail(subject string) string {
	if i := strings.LastIndexByte(subject, '.'); i >= 0 {
		subject = subject[i+1:]
	}
	if r := []rune(subject); len(r) > 8 {
		subject = string(r[:8])
	}
	return subject
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	t := s.t
	switch e.Kind {
	case kit.Published, kit.Lost:
		at := now.Add(t.pubLeg)
		start, ok := slot(&s.flow.pubFree, now, t)
		if ok {
			m := kit.Mover{Label: tail(e.Subject), Start: start, Role: kit.Msg, Route: []string{"pub", "srv"}, Legs: []time.Duration{t.pubLeg}}
			if e.Kind == kit.Lost {
				// Nobody listens: the message reaches the server and fades
				// where the subscribers would be.
				m.Route, m.Legs, m.Fade = []string{"pub", "srv", "void"}, []time.Duration{t.pubLeg, t.outLeg}, t.fade
			}
			if s.movers.Add(m) && e.Kind == kit.Lost && s.kind.countsOnLanding() {
				s.flashes.Trigger("unheard", m.Arrive())
				s.landing.add(unheardKey, m.Arrive())
			}
			if e.Kind == kit.Lost && !s.kind.countsOnLanding() {
				s.flashes.Trigger("unheard", now)
			}
			at = start.Add(t.pubLeg)
		}
		a := arrival{subject: e.Subject, at: at, heard: e.Kind == kit.Published}
		s.recent = append(s.recent, a)
		if len(s.recent) > maxRecent {
			s.recent = s.recent[len(s.recent)-maxRecent:]
		}
		// Deliveries follow the publishes on screen; under a flood the
		// ones left out go on their own (flow.match), so what is kept
		// here stays as short as the train on the wire.
		if a.heard && ok {
			s.flow.arrive(a)
		}
	case kit.Delivered:
		if sub, ok := s.sub(e.Client); ok {
			s.flow.owe(consumerOf(sub), sub.Subject, e.Client, now)
		}
		if !s.kind.countsOnLanding() {
			s.flashes.Trigger("row:"+e.Client, now)
			s.flashes.Trigger("delivered", now)
		}
	case kit.ClientUp:
		s.flashes.Trigger("row:"+e.Client, now)
	case kit.ClientDown:
		s.flow.forget(e.Client)
		delete(s.landing, e.Client)
	case kit.Changed:
		if e.Note == "reset" || e.Note == "watch" {
			s.movers.Clear()
			s.flashes.Clear()
			s.flow.init()
			s.landing = landing{}
			s.recent = nil
		}
	}
}

// deliver starts the deliveries the server counted, each behind the
// publish it follows.
func (s *Scene) deliver(now time.Time) {
	s.flow.match(now, s.t, func(member string, at time.Time) {
		start, ok := slot(s.flow.rowFree(member), at, s.t)
		if !ok {
			return
		}
		m := kit.Mover{Route: []string{"srv", "trunk", "fork:" + member, "row:" + member}, Legs: []time.Duration{s.t.outLeg, s.t.downLeg, s.t.inLeg}, Start: start, Role: kit.Msg}
		if s.movers.Add(m) && s.kind.countsOnLanding() {
			s.flashes.Trigger("row:"+member, m.Arrive())
			s.flashes.Trigger("delivered", m.Arrive())
			s.landing.add(member, m.Arrive())
		}
	})
}

func (s *Scene) sub(key string) (Sub, bool) {
	for _, sub := range s.snap.Subs {
		if sub.Key == key {
			return sub, true
		}
	}
	return Sub{}, false
}

// slot schedules a message on a wire from at, or just behind the one
// before it so a burst reads as a train; ok is false when the train is
// already too long (the animation samples, the counts do not).
func slot(free *time.Time, at time.Time, t timing) (time.Time, bool) {
	return kit.Slot(free, at, at, t.gap, t.backlog)
}

// landing remembers when the messages on screen reach their row (or, for
// unheardKey, fade at the server). A count on screen is the server's count
// less what is still on its way there: it ticks as the message lands, and
// is the server's own once nothing moves.
type landing map[string][]time.Time

// unheardKey is the landing of messages nobody listens to.
const unheardKey = "\x00unheard"

func (l landing) add(key string, at time.Time) { l[key] = append(l[key], at) }

// ahead is how many of key's messages land after now.
func (l landing) ahead(key string, now time.Time) uint64 {
	var n uint64
	for _, t := range l[key] {
		if t.After(now) {
			n++
		}
	}
	return n
}

func (l landing) prune(now time.Time) {
	for k, ts := range l {
		keep := ts[:0]
		for _, t := range ts {
			if t.After(now) {
				keep = append(keep, t)
			}
		}
		if len(keep) == 0 {
			delete(l, k)
		} else {
			l[k] = keep
		}
	}
}

// shown is a count as the picture shows it at now.
func (l landing) shown(key string, count uint64, now time.Time) uint64 {
	return count - min(count, l.ahead(key, now))
}
