// Package cursor is the scene of a stream's durable consumers: the log
// with each consumer's cursor (the last stream sequence delivered) and ack
// floor (everything up to here is settled) on it; the messages delivered
// but not acknowledged, each with its ack wait counting down; redeliveries
// with their tries; the server's advisories when a message is nak'd,
// terminated or given up after max deliveries; several consumers with
// different filters reading the same log; and the pulls of a pool of
// workers sharing one consumer, with a job one worker never acked going to
// another. Cursor and ack floor stay on screen while the server blinks out
// and are checked again when it is back.
//
// Everything on screen comes from the broker (see driver.go), whoever
// acted: the command pane, a real nats CLI, an application.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package cursor

import (
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "cursor",
	Summary: "A stream's log with each consumer's cursor and ack floor, acks counting down, redeliveries, worker pulls",
}

func init() { kit.Register(spec, New) }

// timing is how long things take on screen.
const (
	dropLeg   = 350 * time.Millisecond // a delivery travelling from the log to its consumer
	flashFor  = 1200 * time.Millisecond
	tickEvery = 100 * time.Millisecond // a countdown alone moves in tenths of a second
)

// Scene is the cursor scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	d *driver

	try     kit.Offer
	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	dropAt  map[string]time.Time // when the last delivery to each consumer's row may start

	lay layout // where things were drawn last, for the movers
}

// New connects the scene to the deployment and starts watching.
func New(env scenes.Env) (*Scene, error) {
	s := &Scene{dropAt: map[string]time.Time{}, try: tryFor(env.Try)}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) {
		return startDriver(env.Deployment, feed, env.ClockOrWall())
	})
	if err != nil {
		return nil, err
	}
	s.d = d
	s.flashes.Dur = flashFor
	s.movers.Max = 24
	s.snap = d.Snapshot()
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	if st := s.snap.Stream; st != "" {
		return []string{"Consumers of " + st + ": cursor, ack floor, acks", "Consumers of " + st, "Consumers"}
	}
	return []string{"Consumers: cursor, ack floor and acks on a stream's log", "Consumers: cursor, ack floor, acks", "Consumers"}
}

func (s *Scene) moving(now time.Time) bool {
	return s.movers.Active(now) || s.flashes.Active(now)
}

// counting reports an ack wait running down on screen.
func (s *Scene) counting(now time.Time) bool {
	if !s.snap.ServerUp {
		return false
	}
	for _, c := range s.snap.Consumers {
		for _, o := range c.Out {
			if now.Before(o.Deadline) && !o.Naked {
				return true
			}
		}
	}
	return false
}

// Apply implements kit.Picture: news from the driver starts animations.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	if m.News() {
		old := s.snap
		s.snap = s.d.Snapshot()
		for _, e := range m.Events {
			s.animate(e, now)
		}
		s.flashChanges(old, now)
	}
	s.movers.Prune(now)
}

// Next implements kit.Picture: frames while messages travel or something
// flashes, and while an ack wait counts down (in tenths of a second).
func (s *Scene) Next(now time.Time) time.Duration {
	switch {
	case s.moving(now):
		return scenes.FrameInterval
	case s.counting(now):
		return tickEvery
	}
	return 0
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	switch e.Kind {
	case kit.Delivered:
		key := markKey(e.Consumer, e.Seq)
		start := now
		if t := s.dropAt[e.Consumer]; t.After(start) {
			start = t
		}
		if start.Sub(now) < 2*time.Second {
			s.movers.Add(kit.Mover{Route: []string{seqKey(e.Seq), key}, Legs: []time.Duration{dropLeg}, Start: start, Role: kit.Msg})
			s.dropAt[e.Consumer] = start.Add(dropLeg / 3)
		}
		s.flashes.Trigger(key, start.Add(dropLeg))
		if e.Note == "again" {
			s.flashes.Trigger(outKey(e.Consumer, e.Seq), now)
		}
	case kit.Pending:
		s.flashes.Trigger(markKey(e.Consumer, e.Seq), now)
	case kit.ClientUp:
		s.flashes.Trigger("pull:"+e.Client, now)
	case kit.ServerDown, kit.ServerUp:
		s.flashes.Trigger("server", now)
	}
}

// flashChanges highlights the numbers that moved.
func (s *Scene) flashChanges(old Snapshot, now time.Time) {
	for _, c := range s.snap.Consumers {
		was := old.consumer(c.Name)
		if was == nil || was.Delivered != c.Delivered {
			s.flashes.Trigger("cursor:"+c.Name, now)
		}
		if was == nil || was.AckFloor != c.AckFloor {
			s.flashes.Trigger("floor:"+c.Name, now)
		}
	}
	if n := len(s.snap.Story); n > 0 && (len(old.Story) == 0 || old.Story[len(old.Story)-1] != s.snap.Story[n-1]) {
		s.flashes.Trigger("story", now)
	}
}
