// Package replicas is the scene of the lab's three-node cluster (natslab
// --cluster 3): each node with its copy of every stream and the last
// sequence that copy holds, the leader marked. Publishes travel to the
// leader and on to the followers; stopping a node shows the election and
// publishing going on; starting it again shows it catching up; a stream
// with one replica on a stopped node goes unavailable and comes back.
//
// Everything on screen comes from the nodes themselves, asked in process,
// whoever caused it: the scene's controls, the node verbs, a real nats CLI.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package replicas

import (
	"errors"
	"strconv"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "replicas",
	Summary: "A three-node cluster: each node's copy of the stream, elections when a node stops, catch-up when it returns",
	Keys: []scenes.KeyBinding{
		kit.Key("p", "publish 1", "publish", "1"),
		kit.Key("P", "publish 10", "publish", "10"),
		kit.Key("l", "stop leader", "stop", "leader"),
		kit.Key("1", "n1 off/on", "toggle", "n1"),
		kit.Key("2", "n2 off/on", "toggle", "n2"),
		kit.Key("3", "n3 off/on", "toggle", "n3"),
	},
}

func init() {
	kit.Register(spec, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) })
}

// ErrNoCluster is what the scene says when the lab runs a single server.
var ErrNoCluster = errors.New("the replicas scene shows the lab's three-node cluster: start natslab with --cluster 3")

// Options adjust the scene beyond what the lab's Env says.
type Options struct {
	// Speed scales time: 2 plays everything twice as fast. 0 means 1.
	Speed float64
}

// timing is how long things take on screen.
type timing struct {
	down, along, gap, flash, backlog time.Duration
}

func newTiming(speed float64) timing {
	s := kit.Paced(speed)
	return timing{down: s(250), along: s(450), gap: s(150), flash: s(1500), backlog: s(2000)}
}

// Scene is the replicas scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	opts Options
	t    timing
	d    *driver

	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	pubFree time.Time            // the publish wire is free from then
	repFree map[string]time.Time // each follower's replication train likewise
	stored  time.Time            // when the latest publish in flight reaches its leader
}

// New starts watching the lab's cluster.
func New(env scenes.Env, opts Options) (*Scene, error) {
	if env.Deployment == nil || env.Deployment.Cluster() == nil {
		return nil, ErrNoCluster
	}
	s := &Scene{opts: opts, t: newTiming(opts.Speed), repFree: map[string]time.Time{}}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) {
		return startDriver(env.Deployment, feed, env.ClockOrWall())
	})
	if err != nil {
		return nil, err
	}
	s.d = d
	s.flashes.Dur = s.t.flash
	s.movers.Max = 48
	s.snap = d.Snapshot()
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	if st := s.snap.Focus; st != "" {
		return []string{"Replicas: each node's copy of " + st, "Replicas of " + st, "Replicas"}
	}
	return []string{"Replicas: a three-node JetStream cluster", "Replicas: a three-node cluster", "Replicas"}
}

// Next implements kit.Picture: frames while messages travel or flash.
func (s *Scene) Next(now time.Time) time.Duration {
	return kit.Every(s.movers.Active(now) || s.flashes.Active(now))
}

// Apply implements kit.Picture: what the driver saw starts animations.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	if m.News() {
		old := s.snap
		s.snap = s.d.Snapshot()
		for _, e := range m.Events {
			s.animate(e, now)
		}
		if s.snap.Story != old.Story || !s.snap.StoryAt.Equal(old.StoryAt) {
			s.flashes.Trigger("story", now)
		}
	}
	s.movers.Prune(now)
}

// slot schedules a message on a wire: at now, or just behind the one
// before it so a burst reads as a train; ok is false when the train is
// already too long (the animation samples, the numbers on screen do not).
func slot(free *time.Time, now time.Time, t timing) (time.Time, bool) {
	return kit.Slot(free, now, now, t.gap, t.backlog)
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	t := s.t
	label := strconv.FormatUint(e.Seq, 10)
	switch e.Kind {
	case kit.Stored:
		// A publish reaches the stream's leader.
		if start, ok := slot(&s.pubFree, now, t); ok {
			m := kit.Mover{Label: label, Route: []string{"pub", "hub", "bus." + e.Client, "tick." + e.Client}, Legs: []time.Duration{t.down, t.along, t.down}, Start: start, Role: kit.Msg}
			s.movers.Add(m)
			s.stored = m.Arrive()
		}
		s.flashes.Trigger(seqKey(e.Client, e.Stream), now)
	case kit.Delivered:
		// A follower copies it from the leader, once the publish has
		// reached the leader; each follower has its own train.
		leader := s.snap.Leader(e.Stream)
		free := s.repFree[e.Client]
		if s.stored.After(free) {
			free = s.stored
		}
		if start, ok := slot(&free, now, t); ok {
			route, legs := []string{"bus." + e.Client, "tick." + e.Client}, []time.Duration{t.down}
			if leader != "" && leader != e.Client {
				route, legs = []string{"bus." + leader, "bus." + e.Client, "tick." + e.Client}, []time.Duration{t.along, t.down}
			}
			s.movers.Add(kit.Mover{Label: label, Route: route, Legs: legs, Start: start, Role: kit.Kept})
		}
		s.repFree[e.Client] = free
		s.flashes.Trigger(seqKey(e.Client, e.Stream), now)
	case kit.Changed:
		if e.Note == "leader" {
			s.flashes.Trigger("leader."+e.Client+"."+e.Stream, now)
			s.flashes.Trigger("node."+e.Client, now)
		}
	case kit.ServerDown, kit.ServerUp:
		s.flashes.Trigger("node."+e.Client, now)
	}
}

func seqKey(node, stream string) string { return "seq." + node + "." + stream }
