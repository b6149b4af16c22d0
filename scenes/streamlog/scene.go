// Package streamlog is the log scene: a stream drawn as what it is, an
// append-only log. Each stored message takes the next sequence number at
// the log's end; a --jetstream publisher's acknowledgement travels back
// with that number. Limits drop the oldest (the window slides), discard new
// bounces publishes, a duplicate Nats-Msg-Id is acknowledged without a new
// sequence, purge and rmm empty cells, and a restart shows which logs come
// back from disk.
//
// Sequences, counts and limits are the broker's (stream info); publishes
// and acknowledgements are what the scene's taps saw pass through the
// server, whoever published: the pane, a real nats CLI, the scene itself.
//
// Like every scene it imports scenes, scenes/kit, scenes/watch and broker/...,
// never lab.
package streamlog

import (
	"strconv"
	"strings"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "log",
	Summary: "A stream as a log: sequences appended, acks returning, limits sliding the window, refusals, duplicates, restarts",
	Keys: []scenes.KeyBinding{
		kit.Key("p", "publish 1", "publish", "1"),
		kit.Key("P", "publish 5", "publish", "5"),
		kit.Key("R", "reset", "reset"),
	},
	Queue: 512,
}

func init() {
	kit.Register(spec, func(env scenes.Env) (*Scene, error) { return New(env, Options{}) })
}

// Options adjust the scene beyond what the lab's Env says.
type Options struct {
	Stream string  // the stream to watch; "" for every stream
	Speed  float64 // 2 plays everything twice as fast; 0 means 1
}

type timing struct {
	leg, gap, slide, fade, flash, backlog, blink time.Duration
}

func newTiming(speed float64) timing {
	s := kit.Paced(speed)
	return timing{leg: s(500), gap: s(140), slide: s(450), fade: s(1400), flash: s(1000), backlog: s(2000), blink: s(900)}
}

// Scene is the log scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	t timing
	d *driver

	iw      int // the width drawn in: W less the margin
	try     kit.Offer
	snap    Snapshot
	anims   map[string]*anim
	flashes kit.Flashes
	downAt  time.Time // when the server last went down: a restart takes milliseconds, the picture shows it for a moment
}

// anim is one lane's animation state.
type anim struct {
	movers  kit.Movers           // publishes
	acks    kit.Movers           // acknowledgements and refusals, labelled beside them
	labels  map[time.Time]string // an acknowledgement's label, by its start
	inFree  time.Time            // the publish wire is free from then
	outFree time.Time            // the acknowledgement wire likewise
	landing []landing            // publishes in flight not yet seen stored, oldest first
	arrive  map[string]time.Time // reply subject → when that publish reaches the log
	gone    map[uint64]time.Time // sequences that left the log → when (they fade)
	head    slide                // the newest sequence drawn at the log's end, sliding
	held    Lane                 // the lane as last drawn, to see what changed
}

// landing is a publish in flight: when it reaches the log.
type landing struct {
	reply string
	at    time.Time
}

// slide moves the log's end from one sequence to the next over a moment,
// starting when the publish that made it lands.
type slide struct {
	from, to float64
	start    time.Time
	dur      time.Duration
}

func (sl slide) at(now time.Time) float64 {
	if !now.After(sl.start) || sl.dur <= 0 {
		if now.Before(sl.start) {
			return sl.from
		}
		return sl.to
	}
	f := float64(now.Sub(sl.start)) / float64(sl.dur)
	if f >= 1 {
		return sl.to
	}
	return sl.from + (sl.to-sl.from)*f
}

func (sl slide) moving(now time.Time) bool { return now.Before(sl.start.Add(sl.dur)) }

// New starts watching the deployment's streams.
func New(env scenes.Env, opts Options) (*Scene, error) {
	s := &Scene{t: newTiming(opts.Speed), anims: map[string]*anim{}, try: tryFor(env.Try)}
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) {
		return startDriver(env.Deployment, feed, opts.Stream, s.try)
	})
	if err != nil {
		return nil, err
	}
	s.d = d
	s.flashes.Dur = s.t.flash
	s.refresh(s.Clock.Now())
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	if s.snap.Focus != "" {
		return []string{"A stream is a log: " + s.snap.Focus, "A stream is a log"}
	}
	return []string{"A stream is a log"}
}

// Next implements kit.Picture: frames while publishes and acknowledgements
// travel, the log's end slides, cells flash or fade, or the server blinks.
func (s *Scene) Next(now time.Time) time.Duration { return kit.Every(s.moving(now)) }

func (s *Scene) moving(now time.Time) bool {
	if s.flashes.Active(now) || now.Before(s.downAt.Add(s.t.blink)) {
		return true
	}
	for _, a := range s.anims {
		if a.movers.Active(now) || a.acks.Active(now) || a.head.moving(now) {
			return true
		}
		if a.fading(now, s.t.fade) {
			return true
		}
	}
	return false
}

// Apply implements kit.Picture.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	// Events first (publishes set when things land), then the broker's
	// state (cells appear when their publish lands). The state is read on
	// frames too: a look the driver took while something moved pokes the
	// feed, and a frame carries that poke.
	for _, e := range m.Events {
		s.animate(e, now)
	}
	s.refresh(now)
	for _, a := range s.anims {
		a.movers.Prune(now)
		a.acks.Prune(now)
		for t := range a.labels {
			if now.Sub(t) > 10*time.Second {
				delete(a.labels, t)
			}
		}
		for len(a.landing) > 0 && now.Sub(a.landing[0].at) > 5*time.Second {
			a.landing = a.landing[1:] // stored unseen, or never: forget it
		}
		for seq, t := range a.gone {
			if now.After(t.Add(s.t.fade)) {
				delete(a.gone, seq)
			}
		}
	}
}

func (s *Scene) anim(stream string) *anim {
	a := s.anims[stream]
	if a == nil {
		a = &anim{arrive: map[string]time.Time{}, gone: map[uint64]time.Time{}, labels: map[time.Time]string{}}
		a.movers.Max, a.acks.Max = 32, 32
		s.anims[stream] = a
	}
	return a
}

// slot schedules a message on a wire: at start, or just behind the one
// before so a burst reads as a train; false when the train is too long.
func (s *Scene) slot(free *time.Time, start, now time.Time) (time.Time, bool) {
	return kit.Slot(free, start, now, s.t.gap, s.t.backlog)
}

// tail is a message's label: the last token of its subject.
func tail(subject string) string {
	if i := strings.LastIndexByte(subject, '.'); i >= 0 {
		subject = subject[i+1:]
	}
	return kit.Clip(subject, 8)
}

func seqLabel(seq uint64) string { return "#" + strconv.FormatUint(seq, 10) }

func (s *Scene) animate(e kit.Event, now time.Time) {
	switch e.Kind {
	case kit.Published:
		a := s.anim(e.Stream)
		start, ok := s.slot(&a.inFree, now, now)
		if !ok {
			return
		}
		m := kit.Mover{Label: tail(e.Subject), Route: []string{"pub.out", "log.in"}, Legs: []time.Duration{s.t.leg}, Start: start, Role: kit.Msg}
		a.movers.Add(m)
		a.landing = append(a.landing, landing{reply: e.Note, at: m.Arrive()})
		if e.Note != "" {
			a.arrive[e.Note] = m.Arrive()
		}
	case kit.Stored, kit.Lost:
		a := s.anim(e.Stream)
		from := now
		if t, ok := a.arrive[e.Note]; ok {
			from = t
			delete(a.arrive, e.Note)
		}
		start, ok := s.slot(&a.outFree, from, now)
		if !ok {
			return
		}
		m := kit.Mover{Route: []string{"log.out", "pub.in"}, Legs: []time.Duration{s.t.leg}, Start: start, Role: kit.Good}
		label := "ack " + seqLabel(e.Seq)
		switch {
		case e.Kind == kit.Lost:
			label, m.Role = "refused", kit.Bad
			s.flashes.Trigger("refused:"+e.Stream, from)
			a.unland(e.Note)
		case e.Client == "dup":
			label, m.Role = "dup "+seqLabel(e.Seq), kit.Warn
			s.flashes.Trigger(cellKey(e.Stream, e.Seq), from)
			s.flashes.Trigger("dups:"+e.Stream, from)
			a.unland(e.Note)
		default:
			s.flashes.Trigger("acks:"+e.Stream, from)
		}
		for a.labels[start] != "" {
			start = start.Add(time.Nanosecond) // starts are the labels' keys
		}
		m.Start = start
		if a.acks.Add(m) {
			a.labels[start] = label
		}
	case kit.ServerDown:
		s.downAt = now
		s.flashes.Trigger("server", now)
	case kit.ServerUp:
		s.flashes.Trigger("server", now)
	case kit.Changed:
		if e.Note == "reset" {
			for k := range s.anims {
				delete(s.anims, k)
			}
			s.flashes.Clear()
		}
	}
}

// fading reports whether a cell is still fading out at now.
func (a *anim) fading(now time.Time, fade time.Duration) bool {
	for _, t := range a.gone {
		if now.Before(t.Add(fade)) {
			return true
		}
	}
	return false
}

// unland forgets a publish that will not be stored (refused, duplicate),
// so the log's end waits for the ones that will.
func (a *anim) unland(reply string) {
	for i, l := range a.landing {
		if l.reply == reply && reply != "" {
			a.landing = append(a.landing[:i], a.landing[i+1:]...)
			return
		}
	}
}

func cellKey(stream string, seq uint64) string {
	return "cell:" + stream + ":" + strconv.FormatUint(seq, 10)
}

// refresh takes the driver's state and turns what changed in each stream
// into animation: new cells slide in when their publish lands, removed
// ones fade where they were.
func (s *Scene) refresh(now time.Time) {
	old := s.snap
	s.snap = s.d.Snapshot()
	if old.Story != s.snap.Story && s.snap.Story != "" {
		s.flashes.Trigger("story", now)
	}
	live := map[string]bool{}
	for _, l := range s.snap.Streams {
		live[l.Name] = true
		a := s.anim(l.Name)
		first := a.held.Name == ""
		prev := a.held
		a.held = l
		if first {
			a.head = slide{from: float64(l.Last), to: float64(l.Last)}
			continue
		}
		// Cells that left the log fade where they were.
		if prev.Gone == "" && prev.Msgs > 0 {
			lo := prev.First
			if prev.Last > 64 && lo < prev.Last-64 {
				lo = prev.Last - 64
			}
			for seq := lo; seq <= prev.Last; seq++ {
				if prev.Holds(seq) && !l.Holds(seq) {
					a.gone[seq] = now
				}
			}
		}
		if l.Gone != "" {
			continue
		}
		if l.Last != prev.Last {
			// The log's end moves as the publishes that made the new cells
			// land, the first to the last (at once for those nobody saw
			// travel).
			k := int(min(l.Last-prev.Last, uint64(len(a.landing))))
			start, end := now, now
			if k > 0 {
				start, end = a.landing[0].at, a.landing[k-1].at
				if start.Before(now) {
					start = now
				}
				a.landing = a.landing[k:]
			}
			cur := a.head.at(now)
			dur := max(end.Sub(start), 0) + s.t.slide
			a.head = slide{from: cur, to: float64(l.Last), start: start, dur: dur}
			for seq := max(prev.Last+1, l.Last-min(l.Last, 15)); seq <= l.Last; seq++ {
				s.flashes.Trigger(cellKey(l.Name, seq), start)
			}
		}
	}
	for name := range s.anims {
		if !live[name] {
			delete(s.anims, name)
		}
	}
}
