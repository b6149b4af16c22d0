package core

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
)

// benchScene is the queue-groups scene at 120x20 with two groups and a
// train of messages dealt out, as a lesson looks mid-publish.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Queues)
	h.Scene.Styles = kit.NewStyles(true)
	h.Start("sub tasks --queue workers")
	h.Start("sub tasks --queue workers")
	h.Start("sub tasks --queue worker")
	h.Settle("three", subsOn("tasks", 3))
	h.Do("publish", "20")
	h.Settle("40", func(s Snapshot) bool { return s.Published == 20 && s.Delivered() == 40 })
	h.Scene.SetSize(120, 20)
	return h
}

// Drawing a frame mid-animation: what each of the scenes.FramesPerSecond frames costs.
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved: the lab calls View after every message it
// gets, and this must cost nothing.
func BenchmarkViewIdle(b *testing.B) {
	h := benchScene(b)
	h.Clock.Advance(time.Minute)
	h.Scene.deliver(h.Clock.Now()) // the frames that would have come meanwhile
	h.Clock.Advance(time.Minute)
	h.Scene.movers.Prune(h.Clock.Now())
	if h.Scene.Animating() {
		b.Fatal("nothing moves a minute later")
	}
	kittest.BenchIdle(b, h.Scene.View)
}

// A flood past what the tap's buffer holds: the counts stay exact (the
// tap's drops are counted as published, the subscriber's count is the
// server's), and the picture says it samples.
func TestFloodCountsStayExact(t *testing.T) {
	h := newHarness(t, Hello)
	h.Start("sub greet")
	h.Settle("a subscriber", subsOn("greet", 1))
	nc := brokertest.Connect(t, h.Srv, "flood")
	const n = 100_000
	body := []byte("flood")
	for i := 0; i < n; i++ {
		if err := nc.Publish("greet", body); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for s := h.Scene.Snapshot(); s.Published != n || s.Delivered() != n; s = h.Scene.Snapshot() {
		if time.Now().After(deadline) {
			t.Fatalf("published %d, delivered %d; want %d each", s.Published, s.Delivered(), n)
		}
		h.Step(20 * time.Millisecond)
	}
	h.CatchUp()
	if h.Scene.movers.Len() > 64 || len(h.Scene.flow.arrivals) > 64 {
		t.Errorf("the animation must stay bounded: %d movers, %d arrivals", h.Scene.movers.Len(), len(h.Scene.flow.arrivals))
	}
	t.Logf("sampled %d of %d", h.Scene.Snapshot().Sampled, n)
}

// Controls may come from many goroutines at once (the pane runs each on
// its own): nothing races, every publish is counted.
func TestControlsFromManyGoroutines(t *testing.T) {
	h := newHarness(t, Hello)
	h.Start("sub greet")
	h.Settle("a subscriber", subsOn("greet", 1))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if _, err := h.Scene.Do("publish", []string{"2"}); err != nil {
					t.Error(err)
				}
				_ = h.Scene.Snapshot()
				_, _ = h.Scene.Do("publish", []string{fmt.Sprint(i), "bad subject"})
			}
		}(i)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			h.Step(5 * time.Millisecond)
			_ = h.View(80, 10)
		}
	}
	h.Settle("80", func(s Snapshot) bool { return s.Published == 80 && s.Delivered() == 80 })
}
