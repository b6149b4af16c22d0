package policy

import (
	"runtime"
	"time"
)

// The cores governor. The lab is mostly quiet (a learner reading, a scene
// animating a few messages a second), and on two or more cores the Go
// scheduler hands every small piece of work (a message through the broker,
// a frame) to another thread, waking it and the runtime's monitor: on one
// core the same work costs less CPU. But the embedded broker must keep the
// rate a standalone nats-server has under a flood, so the moment the
// process uses more than half a core it gets every core back, and returns
// to one only after it has been calm for a while.

// Window is how often the governor looks at the CPU the process used.
const Window = 200 * time.Millisecond

// Governor is the decision, apart from the clock and the runtime so it can
// be tested: Step takes the CPU used over the last window and says how
// many cores to run on.
type Governor struct {
	Max  int     // cores when busy
	Up   float64 // busy: more than this much of a core over a window
	Down float64 // calm: less than this much of a core over a window
	Calm int     // calm windows in a row before going back to one core

	procs, calm int
}

// NewGovernor starts on one core and goes to all of them when busy.
func NewGovernor(all int) *Governor {
	return &Governor{Max: all, Up: 0.5, Down: 0.2, Calm: 10, procs: 1}
}

// Procs is how many cores the governor last asked for.
func (g *Governor) Procs() int { return g.procs }

// Step takes the share of one core the process used over the last window
// (1.0: one core all the time) and returns how many cores to run on.
func (g *Governor) Step(used float64) int {
	switch {
	case used > g.Up:
		g.procs, g.calm = g.Max, 0
	case g.procs > 1 && used < g.Down:
		g.calm++
		if g.calm >= g.Calm {
			g.procs, g.calm = 1, 0
		}
	default:
		g.calm = 0
	}
	return g.procs
}

// govern runs the governor until stop closes, then gives the runtime all
// its cores back and closes done. On one core, or where the process's CPU
// time cannot be read, it does nothing but close done when stop closes.
func govern(stop <-chan struct{}, done chan<- struct{}) {
	all := runtime.GOMAXPROCS(0)
	last, ok := cpuTime()
	if all < 2 || !ok {
		go func() {
			<-stop
			close(done)
		}()
		return
	}
	g := NewGovernor(all)
	runtime.GOMAXPROCS(g.Procs())
	go func() {
		defer close(done)
		defer runtime.GOMAXPROCS(all)
		t := time.NewTicker(Window)
		defer t.Stop()
		lastAt := time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				cpu, _ := cpuTime()
				used := float64(cpu-last) / float64(now.Sub(lastAt))
				last, lastAt = cpu, now
				if n := g.Procs(); g.Step(used) != n {
					runtime.GOMAXPROCS(g.Procs())
				}
			}
		}
	}()
}
