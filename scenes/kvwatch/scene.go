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

	tea "charm.land/bubbletea/v2"

	"natslab/scenes"
	"natslab/scenes/kit"
)

func init() {
	scenes.Register(scenes.Factory{
		Name:    "kv-watch",
		Summary: "A key-value bucket: keys, values and revisions as writes arrive, history kept, stale updates bouncing",
		New:     func(env scenes.Env) (scenes.Scene, error) { return scenes.Built(New(env)) },
	})
}

const (
	flyLeg   = 400 * time.Millisecond // a write travelling to its key
	bounce   = 300 * time.Millisecond // a refused write coming back
	flashFor = 1500 * time.Millisecond
)

// Scene is the kv-watch scene. It implements scenes.Scene.
type Scene struct {
	kit.Base
	d *driver

	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	rows    map[string]int // key → row it was drawn on
	valueX  int
}

// New connects the scene to the deployment and starts watching.
func New(env scenes.Env) (*Scene, error) {
	feed := kit.NewFeed(256, 2*scenes.FramesPerSecond)
	d, err := startDriver(env.Deployment, feed, env.ClockOrWall())
	if err != nil {
		return nil, err
	}
	s := &Scene{Base: kit.NewBase(kit.Parts{Clock: env.ClockOrWall(), Feed: feed, Controls: controls, Do: d.do, Close: d.close}), d: d, rows: map[string]int{}}
	s.flashes.Dur = flashFor
	s.movers.Max = 24
	s.snap = d.snapshot()
	return s, nil
}

// Name implements scenes.Scene.
func (s *Scene) Name() string { return "kv-watch" }

// Title implements scenes.Scene.
func (s *Scene) Title() string {
	if s.snap.Bucket == "" {
		return "Key-value: a bucket's keys, revisions and history"
	}
	return "Key-value bucket " + s.snap.Bucket + ": keys, revisions, history"
}

// Snapshot is what the driver saw last.
func (s *Scene) Snapshot() Snapshot { return s.d.snapshot() }

// Animating implements scenes.Scene.
func (s *Scene) Animating() bool {
	now := s.Clock.Now()
	return s.movers.Active(now) || s.flashes.Active(now)
}

// Update implements scenes.Scene: the feed is the one heartbeat (kit.Base.Beat).
func (s *Scene) Update(msg tea.Msg) tea.Cmd { return s.Beat(msg, s.beat, s.Animating) }

func (s *Scene) beat(m kit.FeedMsg, now time.Time) {
	if len(m.Events) > 0 || !m.Frame {
		s.snap = s.d.snapshot()
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
