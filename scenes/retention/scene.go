// Package retention is the scene of the three retention policies side by
// side: a limits stream keeps every message until a limit removes it, an
// interest stream keeps a message only while some consumer still wants it
// (and drops at once what nobody wants), a work queue removes each message
// as soon as one consumer acknowledges it.
//
// For each policy the scene shows a stream that has it (the newest, or the
// one chosen with watch): its messages, and its consumers with their ack
// floors, all from stream and consumer info. Acknowledgements are seen as
// they travel, whoever sends them.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package retention

import (
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "retention",
	Summary: "Limits, interest and work-queue streams side by side: what each keeps, and what an acknowledgement removes",
	Keys: []scenes.KeyBinding{
		kit.Key("p", "publish 1 to each", "publish", "1"),
		kit.Key("R", "reset", "reset"),
	},
}

func init() {
	kit.Register(spec, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) })
}

// Options adjust the scene beyond what the lab's Env says.
type Options struct {
	Speed float64 // 2 plays everything twice as fast; 0 means 1
}

type timing struct{ leg, fade, flash time.Duration }

func newTiming(speed float64) timing {
	s := kit.Paced(speed)
	return timing{leg: s(450), fade: s(1600), flash: s(1100)}
}

// Scene is the retention scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	t timing
	d *driver

	iw      int // the width drawn in: W less the margin
	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	gone    [3]map[uint64]time.Time // per column: sequences that left (they fade)
	plan    [3]colPlan              // where each column was last drawn, for the movers
}

// New starts watching the deployment's streams.
func New(env scenes.Env, opts Options) (*Scene, error) {
	s := &Scene{t: newTiming(opts.Speed)}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, feed) })
	if err != nil {
		return nil, err
	}
	s.d = d
	for i := range s.gone {
		s.gone[i] = map[uint64]time.Time{}
	}
	s.flashes.Dur = s.t.flash
	s.movers.Max = 32
	s.snap = d.Snapshot()
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	return []string{"Retention: limits, interest, work queue", "Retention: three policies", "Retention"}
}

// Next implements kit.Picture: frames while acknowledgements travel, counts
// flash or removed cells fade.
func (s *Scene) Next(now time.Time) time.Duration {
	return kit.Every(s.moving(now))
}

func (s *Scene) moving(now time.Time) bool {
	if s.movers.Active(now) || s.flashes.Active(now) {
		return true
	}
	for _, g := range s.gone {
		for _, t := range g {
			if now.Before(t.Add(s.t.fade)) {
				return true
			}
		}
	}
	return false
}

// Apply implements kit.Picture.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	// The driver's state is read on frames too: a look it took while
	// something moved pokes the feed, and a frame carries that poke.
	s.refresh(now)
	for _, e := range m.Events {
		s.animate(e, now)
	}
	s.movers.Prune(now)
	for _, g := range s.gone {
		for seq, t := range g {
			if now.After(t.Add(s.t.fade)) {
				delete(g, seq)
			}
		}
	}
}

func cellKey(stream string, seq uint64) string {
	return "cell:" + stream + ":" + strconv.FormatUint(seq, 10)
}

func (s *Scene) column(stream string) int {
	for i, c := range s.snap.Columns {
		if c.Stream == stream && stream != "" {
			return i
		}
	}
	return -1
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	switch e.Kind {
	case kit.Published:
		for _, c := range s.snap.Columns {
			for _, f := range c.Subjects {
				if server.SubjectMatchesFilter(e.Subject, f) {
					s.flashes.Trigger("pub:"+c.Stream, now)
				}
			}
		}
	case kit.Delivered:
		i := s.column(e.Stream)
		if i < 0 {
			return
		}
		s.flashes.Trigger("cons:"+e.Stream+":"+e.Consumer, now)
		role := kit.Good
		if e.Note != "ack" {
			role = kit.Warn
		}
		s.movers.Add(kit.Mover{
			Label: e.Note, Start: now, Role: role,
			Route: []string{"cell:" + strconv.Itoa(i) + ":" + strconv.FormatUint(e.Seq, 10), "cons:" + strconv.Itoa(i) + ":" + strconv.FormatUint(e.Seq, 10) + ":" + e.Consumer},
			Legs:  []time.Duration{s.t.leg},
		})
	case kit.Changed:
		if e.Note == "refused" {
			s.flashes.Trigger("story", now)
		}
		if e.Note == "reset" {
			s.movers.Clear()
			s.flashes.Clear()
		}
	}
}

// refresh takes the driver's state: new messages flash, messages that left
// fade where they were, one that never stayed (interest with nobody
// interested) shows for a moment as it goes.
func (s *Scene) refresh(now time.Time) {
	old := s.snap
	s.snap = s.d.Snapshot()
	if old.Story != s.snap.Story && s.snap.Story != "" {
		s.flashes.Trigger("story", now)
	}
	for i := range s.snap.Columns {
		o, n := &old.Columns[i], &s.snap.Columns[i]
		if o.Stream != n.Stream {
			clear(s.gone[i])
			continue
		}
		if n.Stream == "" {
			continue
		}
		lo := max(o.First, o.Last-min(o.Last, 64))
		for seq := lo; seq <= o.Last && o.Msgs > 0; seq++ {
			if o.Holds(seq) && !n.Holds(seq) {
				s.gone[i][seq] = now
			}
		}
		for seq := max(o.Last+1, n.Last-min(n.Last, 15)); seq <= n.Last; seq++ {
			if n.Holds(seq) {
				s.flashes.Trigger(cellKey(n.Stream, seq), now)
			} else {
				s.gone[i][seq] = now // stored and gone before anyone looked
			}
		}
		for _, k := range n.Consumers {
			if p, ok := consumer(*o, k.Name); !ok || p.AckFloor != k.AckFloor || p.AckPending != k.AckPending {
				s.flashes.Trigger("cons:"+n.Stream+":"+k.Name, now)
			}
		}
	}
}
