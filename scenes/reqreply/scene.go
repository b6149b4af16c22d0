// Package reqreply is the request-reply scene: a requester, the server,
// and whoever responds on a subject. A request travels out carrying a
// private reply subject (an _INBOX.… inbox); the responder's answer travels
// back to that inbox, and the round trip is timed. When nobody subscribes
// to the subject, the server bounces a request at once: "no responders".
//
// Responders come from the server's own connection list, requests and
// replies from the scene's taps; the scene needs the lab's embedded server
// to ask it who subscribes.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package reqreply

import (
	"errors"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

// DefaultSubject is the subject the lesson's service answers on.
const DefaultSubject = "time"

var spec = kit.Spec{
	Name:    "request-reply",
	Summary: "A request with its private reply inbox, the responders on the subject, the round trip; the bounce when nobody answers",
	Keys: []scenes.KeyBinding{
		kit.Key("a", "ask", "ask"),
		kit.Key("R", "reset", "reset"),
	},
}

func init() {
	kit.Register(spec, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) })
}

// ErrExternal is what the scene says when the lab talks to a deployment
// it does not run.
var ErrExternal = errors.New("the request-reply scene asks the server who subscribes to the subject, which only the lab's own embedded server answers: start natslab without --server to see it")

// Options adjust the scene beyond what the lab's Env says.
type Options struct {
	Subject string  // the subject to watch; "" for DefaultSubject
	Speed   float64 // 2 plays everything twice as fast; 0 means 1
}

type timing struct{ leg, gap, fade, flash, backlog time.Duration }

func newTiming(speed float64) timing {
	s := kit.Paced(speed)
	return timing{leg: s(420), gap: s(160), fade: s(1200), flash: s(900), backlog: s(2000)}
}

// Scene is the request-reply scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	t timing
	d *driver

	snap     Snapshot
	movers   kit.Movers
	flashes  kit.Flashes
	outFree  time.Time            // the request wire is free from then
	backFree time.Time            // the reply wire likewise
	arrive   map[string]time.Time // inbox → when its request reaches the responder (or the server, for a bounce)
}

// New starts watching the lab's embedded server.
func New(env scenes.Env, opts Options) (*Scene, error) {
	if env.Deployment == nil || !env.Deployment.Own() {
		return nil, ErrExternal
	}
	subject := opts.Subject
	if subject == "" {
		subject = DefaultSubject
	}
	s := &Scene{t: newTiming(opts.Speed), arrive: map[string]time.Time{}}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, feed, subject) })
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
	return []string{"Request and reply on " + s.snap.Subject, "Request-reply on " + s.snap.Subject, "Request and reply"}
}

// Next implements kit.Picture: frames while messages travel or flash.
func (s *Scene) Next(now time.Time) time.Duration {
	return kit.Every(s.movers.Active(now) || s.flashes.Active(now))
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
	for k, t := range s.arrive {
		if now.Sub(t) > 10*time.Second {
			delete(s.arrive, k)
		}
	}
}

// refresh reads the driver's state and flashes the numbers that changed.
func (s *Scene) refresh(now time.Time) {
	old := s.snap
	s.snap = s.d.Snapshot()
	n := s.snap
	s.flashes.Changed("requests", n.Requests > old.Requests, now)
	s.flashes.Changed("replies", n.Replies > old.Replies, now)
	s.flashes.Changed("bounced", n.Bounced > old.Bounced, now)
	s.flashes.Changed("unanswered", n.Unanswered > old.Unanswered, now)
	s.flashes.Changed("rtt", n.LastRTT != old.LastRTT, now)
	s.flashes.Changed("story", n.Story != old.Story, now)
	s.flashes.Changed("responders", len(n.Responders) != len(old.Responders), now)
}

// slot schedules a message on a wire: at start, or just behind the one
// before so a burst reads as a train; false when the train is too long.
func (s *Scene) slot(free *time.Time, start, now time.Time) (time.Time, bool) {
	return kit.Slot(free, start, now, s.t.gap, s.t.backlog)
}

func (s *Scene) animate(e kit.Event, now time.Time) {
	leg, through := s.t.leg, s.t.leg/4 // along a wire, and through the server
	switch e.Kind {
	case kit.Published:
		start, ok := s.slot(&s.outFree, now, now)
		if !ok {
			return
		}
		label := kit.Clip(e.Subject, 10)
		if len(s.snap.Responders) > 0 {
			m := kit.Mover{Label: label, Route: []string{"req.up", "srv.in.up", "srv.out.up", "resp.up"}, Legs: []time.Duration{leg, through, leg}, Start: start, Role: kit.Msg}
			s.movers.Add(m)
			s.arrive[e.Note] = m.Arrive()
		} else {
			// Nobody to hand it to: it stops at the server, which bounces it.
			m := kit.Mover{Label: label, Route: []string{"req.up", "srv.in.up"}, Legs: []time.Duration{leg}, Start: start, Role: kit.Msg}
			s.movers.Add(m)
			s.arrive[e.Note] = m.Arrive().Add(through)
		}
	case kit.Delivered:
		from := now
		if t, ok := s.arrive[e.Note]; ok {
			from = t
			delete(s.arrive, e.Note)
		}
		if start, ok := s.slot(&s.backFree, from, now); ok {
			s.movers.Add(kit.Mover{Label: "_INBOX", Route: []string{"resp.dn", "srv.out.dn", "srv.in.dn", "req.dn"}, Legs: []time.Duration{leg, through, leg}, Start: start, Role: kit.Good})
		}
	case kit.Lost:
		from := now
		if t, ok := s.arrive[e.Note]; ok {
			from = t
			delete(s.arrive, e.Note)
		}
		if start, ok := s.slot(&s.backFree, from, now); ok {
			s.movers.Add(kit.Mover{Label: "503", Route: []string{"srv.in.dn", "req.dn"}, Legs: []time.Duration{leg}, Start: start, Role: kit.Bad, Fade: s.t.fade})
		}
		s.flashes.Trigger("bounce", from)
	case kit.Pending:
		s.flashes.Trigger("resp:"+itoa(e.Seq), now)
	case kit.ServerDown, kit.ServerUp:
		s.flashes.Trigger("server", now)
	case kit.Changed:
		if e.Note == "reset" {
			s.movers.Clear()
			s.flashes.Clear()
			clear(s.arrive)
		}
	}
}
