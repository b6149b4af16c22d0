package core

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/scenes/kit"
)

// benchScene is the queue-groups scene at 120x20 with two groups and a
// train of messages dealt out, as a lesson looks mid-publish.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Queues)
	h.s.Styles = kit.NewStyles(true)
	h.start("sub tasks --queue workers")
	h.start("sub tasks --queue workers")
	h.start("sub tasks --queue worker")
	h.until("three", subsOn("tasks", 3))
	h.do("publish", "20")
	h.until("40", func(s Snapshot) bool { return s.Published == 20 && s.Delivered() == 40 })
	h.s.SetSize(120, 20)
	return h
}

// Drawing a frame mid-animation: what each of the 15 frames a second costs.
func BenchmarkViewAnimating(b *testing.B) {
	h := benchScene(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.clock.Advance(time.Millisecond) // every frame differs
		if i%1000 == 0 {
			h.clock.Advance(-time.Second) // keep the train in flight
		}
		_ = h.s.View()
	}
}

// Drawing when nothing moved: the lab calls View after every message it
// gets, and this must cost nothing.
func BenchmarkViewIdle(b *testing.B) {
	h := benchScene(b)
	h.clock.Advance(time.Minute)
	h.s.deliver(h.clock.Now()) // the frames that would have come meanwhile
	h.clock.Advance(time.Minute)
	h.s.movers.Prune(h.clock.Now())
	if h.s.Animating() {
		b.Fatal("nothing moves a minute later")
	}
	_ = h.s.View()
	_ = h.s.View()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.s.View()
	}
}

// A flood past what the tap's buffer holds: the counts stay exact (the
// tap's drops are counted as published, the subscriber's count is the
// server's), and the picture says it samples.
func TestFloodCountsStayExact(t *testing.T) {
	h := newHarness(t, Hello)
	h.start("sub greet")
	h.until("a subscriber", subsOn("greet", 1))
	nc := brokertest.Connect(t, h.srv, "flood")
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
	for s := h.s.Snapshot(); s.Published != n || s.Delivered() != n; s = h.s.Snapshot() {
		if time.Now().After(deadline) {
			t.Fatalf("published %d, delivered %d; want %d each", s.Published, s.Delivered(), n)
		}
		h.step(20 * time.Millisecond)
	}
	h.quiet(200 * time.Millisecond)
	if h.s.movers.Len() > 64 || len(h.s.flow.arrivals) > 64 {
		t.Errorf("the animation must stay bounded: %d movers, %d arrivals", h.s.movers.Len(), len(h.s.flow.arrivals))
	}
	t.Logf("sampled %d of %d", h.s.Snapshot().Sampled, n)
}

// Controls may come from many goroutines at once (the pane runs each on
// its own): nothing races, every publish is counted.
func TestControlsFromManyGoroutines(t *testing.T) {
	h := newHarness(t, Hello)
	h.start("sub greet")
	h.until("a subscriber", subsOn("greet", 1))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if _, err := h.s.Do("publish", []string{"2"}); err != nil {
					t.Error(err)
				}
				_ = h.s.Snapshot()
				_, _ = h.s.Do("publish", []string{fmt.Sprint(i), "bad subject"})
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
			h.step(5 * time.Millisecond)
			_ = h.view(80, 10)
		}
	}
	h.until("80", func(s Snapshot) bool { return s.Published == 80 && s.Delivered() == 80 })
}
