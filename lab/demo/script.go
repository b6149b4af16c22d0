package demo

import (
	"time"

	"natslab/scenes/contrast"
)

// Step is one beat of the story: a caption, the controls it runs on the
// scene, and how long it holds before the next.
type Step struct {
	Chapter string
	Caption string
	Do      [][]string    // controls, in order: {"publish", "1"}
	Hold    time.Duration // at speed 1, counted from when the controls are done
	// Until, when set, keeps the step on after Hold until it holds (the
	// replay has drained), for at most Max.
	Until func(contrast.Snapshot) bool
	Max   time.Duration
}

const (
	chapterCore = "Core NATS"
	chapterJS   = "JetStream"
)

func publish() []string { return []string{"publish", "1"} }

// Story is the demo, in our own words. It loops: the first step resets.
func Story() []Step {
	var s []Step
	add := func(st Step) { s = append(s, st) }
	core := func(caption string, hold time.Duration, do ...[]string) {
		add(Step{Chapter: chapterCore, Caption: caption, Do: do, Hold: hold})
	}
	js := func(caption string, hold time.Duration, do ...[]string) {
		add(Step{Chapter: chapterJS, Caption: caption, Do: do, Hold: hold})
	}
	core("A publisher, the server, and an app subscribed to events.>", 3500*time.Millisecond,
		[]string{"mode", "core"}, []string{"reset"})
	online := "While the app is online, each message reaches it as it is published"
	core(online, 1800*time.Millisecond, publish())
	core(online, 2500*time.Millisecond, publish())
	core("The app goes offline: its subscription is gone from the server", 3*time.Second, []string{"offline"})
	missed := "Messages keep coming, and the server has nobody to give them to"
	for i := 0; i < 3; i++ {
		core(missed, 1800*time.Millisecond, publish())
	}
	core("So they are dropped. Core NATS delivers at most once: what is missed is lost", 4*time.Second)
	core("The app comes back online…", 2500*time.Millisecond, []string{"online"})
	core("…and nothing arrives. Only what is published from now on will reach it", 4*time.Second)

	js("Now a stream on the server keeps every message on events.>, and the app reads it through a durable consumer",
		5*time.Second, []string{"mode", "jetstream"}, []string{"reset"})
	js("Online, the app gets each message as soon as the stream has stored it", 2500*time.Millisecond, publish())
	js("The app goes offline again", 3*time.Second, []string{"offline"})
	kept := "The stream keeps what the app misses, and the consumer's pending count climbs"
	for i := 0; i < 5; i++ {
		js(kept, 1800*time.Millisecond, publish())
	}
	js("Pending is the broker's own count of what the app has not had yet", 3500*time.Millisecond)
	add(Step{Chapter: chapterJS, Caption: "The app reconnects, and the stream replays what it missed, one message at a time",
		Do: [][]string{{"online"}}, Hold: 1500 * time.Millisecond,
		Until: func(s contrast.Snapshot) bool { return s.JS.Online && s.JS.Known && s.JS.Pending == 0 },
		Max:   30 * time.Second})
	js("Pending is back to 0 and nothing was lost: JetStream delivers at least once", 5*time.Second)
	return s
}

// Director walks the story on a clock: a step's controls run, then it
// holds; pausing stops the hold, → cuts it short.
type Director struct {
	steps    []Step
	i        int
	speed    float64
	running  bool      // the step's controls are running
	since    time.Time // when they finished
	paused   bool
	pausedAt time.Time
	skip     bool
	loops    int
}

// NewDirector starts at the story's first step, its controls not yet run.
func NewDirector(steps []Step, speed float64) *Director {
	if speed <= 0 {
		speed = 1
	}
	return &Director{steps: steps, i: -1, speed: speed}
}

func (d *Director) scale(t time.Duration) time.Duration {
	return time.Duration(float64(t) / d.speed)
}

// Step is the current step (the first before the story starts).
func (d *Director) Step() Step { return d.steps[max(d.i, 0)] }

// Index is the current step's number, from 0.
func (d *Director) Index() int { return max(d.i, 0) }

// Len is how many steps the story has.
func (d *Director) Len() int { return len(d.steps) }

// Loops is how many times the story went round.
func (d *Director) Loops() int { return d.loops }

// Due reports whether the current step is over at now.
func (d *Director) Due(now time.Time, snap contrast.Snapshot) bool {
	switch {
	case d.running:
		return false
	case d.skip:
		return true
	case d.paused:
		return false
	case d.i < 0:
		return true
	}
	held := now.Sub(d.since)
	st := d.Step()
	if held < d.scale(st.Hold) {
		return false
	}
	if st.Until != nil && !st.Until(snap) && held < d.scale(st.Max) {
		return false
	}
	return true
}

// Next moves to the next step (round to the first after the last) and
// returns it; its controls are to be run, then Ran called.
func (d *Director) Next() Step {
	d.i++
	if d.i == len(d.steps) {
		d.i = 0
		d.loops++
	}
	d.running, d.skip = true, false
	return d.steps[d.i]
}

// Ran marks the current step's controls done at now: the hold starts.
func (d *Director) Ran(now time.Time) {
	d.running = false
	d.since = now
}

// Running reports whether the current step's controls are still running.
func (d *Director) Running() bool { return d.running }

// Paused reports whether the story is paused.
func (d *Director) Paused() bool { return d.paused }

// TogglePause pauses or resumes; the hold does not count while paused.
func (d *Director) TogglePause(now time.Time) {
	if d.paused {
		if d.since.After(d.pausedAt) {
			d.since = now // a step taken while paused holds from now
		} else {
			d.since = d.since.Add(now.Sub(d.pausedAt))
		}
	} else {
		d.pausedAt = now
	}
	d.paused = !d.paused
}

// Skip makes the next step due at once, paused or not: a presenter's
// clicker.
func (d *Director) Skip() { d.skip = true }
