// Package kvwatch is the scene of a key-value bucket: its keys with their
// values and revisions, each write arriving as it is stored (a put, a
// delete's marker), how much history each key keeps, a compare-and-set
// with a stale revision bouncing off, and the stream underneath
// (KV_<bucket>: its messages and last sequence, which are the revisions).
//
// Everything on screen comes from the broker (see driver.go), whoever
// wrote: the command pane, a real nats CLI, an application.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package kvwatch

import (
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "kv-watch",
	Summary: "A key-value bucket: keys, values and revisions as writes arrive, history kept, stale updates bouncing",
}

func init() { kit.Register(spec, New) }

const (
	flyLeg   = 400 * time.Millisecond // a write travelling to its key
	bounce   = 300 * time.Millisecond // a refused write coming back
	flashFor = 1500 * time.Millisecond
)

// Scene is the kv-watch scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	d *driver

	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	rows    map[string]int // key → row it was drawn on
	valueX  int
}

// New connects the scene to the deployment and starts watching.
func New(env scenes.Env) (*Scene, error) {
	s := &Scene{rows: map[string]int{}}
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
	if b := s.snap.Bucket; b != "" {
		return []string{"Key-value bucket " + b + ": keys, revisions, history", "Key-value bucket " + b, "Key-value"}
	}
	return []string{"Key-value: a bucket's keys, revisions and history", "Key-value: keys, revisions, history", "Key-value: keys and revisions", "Key-value"}
}

// Next implements kit.Picture: frames while writes travel or flash.
func (s *Scene) Next(now time.Time) time.Duration {
	return kit.Every(s.movers.Active(now) || s.flashes.Active(now))
}

// Apply implements kit.Picture: news reads the driver's state and starts
// what the events show.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	if m.News() {
		s.snap = s.d.Snapshot()
		for _, e := range m.Events {
			s.animate(e, now)
		}
	}
	s.movers.Prune(now)
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	switch e.Kind {
	case kit.Published:
		// A write on its way to its key.
		s.movers.Add(kit.Mover{Route: []string{"in:" + e.Subject, "key:" + e.Subject}, Legs: []time.Duration{flyLeg}, Start: now, Role: kit.Msg})
		s.flashes.Trigger(changeKey(e.Seq), now)
	case kit.Stored:
		s.flashes.Trigger("key:"+e.Subject, now)
		s.flashes.Trigger("stream", now)
	case kit.Lost:
		// Refused: it bounces off the key and fades where it started.
		s.movers.Add(kit.Mover{Route: []string{"in:" + e.Subject, "key:" + e.Subject, "in:" + e.Subject}, Legs: []time.Duration{flyLeg, bounce}, Start: now, Role: kit.Bad, Fade: flashFor})
		s.flashes.Trigger(changeKey(e.Seq), now)
	case kit.ServerDown, kit.ServerUp:
		s.flashes.Trigger("server", now)
	}
}
