package contrast

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

// flood runs a real `nats bench pub` of n messages into events.> while the
// scene watches both sides (the core app online, the JetStream app
// offline), the model taking its sampled events and drawing meanwhile, then
// one JetStream publish, and returns once every count on screen is the
// broker's. The scene starts in JetStream mode, with before messages
// published earlier, all of them stored and read.
// errTooManyRequests is what a stream answers a publish while its queue
// is full.
var errTooManyRequests = &jetstream.APIError{ErrorCode: 10167}

func flood(t testing.TB, h *harness, before, n int) Snapshot {
	t.Helper()
	h.Settle("ready, what came before stored and read", func(s Snapshot) bool {
		b := uint64(before)
		return s.JS.Ready && s.JS.Known && s.Published == b && s.Core.Received == b && s.JS.LastSeq == b && s.JS.Received == b && s.JS.Pending == 0
	})
	h.Do("offline") // the JetStream app only
	h.Do("mode", "split")
	base := h.Scene.snap
	done := make(chan brokertest.CLIResult, 1)
	go func() {
		done <- brokertest.RunRealCLI(t, h.srv.ClientURL(), "bench", "pub", "events.flood", "--msgs", strconv.Itoa(n), "--size", "16", "--no-progress")
	}()
	var res brokertest.CLIResult
	for waiting := true; waiting; {
		select {
		case res = <-done:
			waiting = false
		default:
			h.Step(20 * time.Millisecond)
			h.View(120, 20)
		}
	}
	if res.ExitCode != 0 {
		t.Fatalf("nats bench pub failed: %s%s", res.Stdout, res.Stderr)
	}
	// The stream stores what it takes in order: once it has acknowledged
	// one more publish, it has stored all of the flood it is going to.
	js, err := jetstream.New(brokertest.Connect(t, h.srv, "flood marker"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ack, err := js.Publish(ctx, "events.marker", nil)
	tries := 1
	for errors.Is(err, errTooManyRequests) && ctx.Err() == nil {
		// The stream's queue is still full of the flood: the server says
		// so at once, and takes the publish once it has room. Every try
		// is a message on events.> all the same.
		ack, err = js.Publish(ctx, "events.marker", nil)
		tries++
	}
	if err != nil {
		t.Fatalf("the publish after the flood: %v", err)
	}
	all := uint64(n + tries)
	h.Settle("every count exact", func(s Snapshot) bool {
		// A stream fed core publishes faster than it can store drops the
		// excess (the server says so in its log): what it did store is
		// all pending, by the broker's own count.
		stored := s.JS.Msgs - base.JS.Msgs
		return s.Published == base.Published+all && s.Core.Received+s.Core.Dropped == base.Core.Received+base.Core.Dropped+all &&
			s.JS.LastSeq == ack.Sequence && s.JS.Pending == base.JS.Pending+stored && s.JS.Msgs == s.JS.LastSeq
	})
	return h.Scene.snap
}

// A flood of a million messages while the scene watches both sides: every
// count is exact, nothing the online core app had is counted lost, and the
// scene goes on showing what happens next. What the flood costs (the
// broker's rate, the lab's memory, drawing and answering afterwards) is
// measured by BenchmarkAfterFlood and .ci/bench.
func TestFloodCountsStayExact(t *testing.T) {
	if testing.Short() {
		t.Skip("a million messages")
	}
	const n = 1_000_000
	h := newHarness(t, Options{Mode: JetStream})
	s := flood(t, h, 0, n)
	t.Logf("published %d, core received %d (dropped %d), stream stored %d, JetStream pending %d, animation sampled away %d events",
		s.Published, s.Core.Received, s.Core.Dropped, s.JS.Msgs, s.JS.Pending, s.Sampled)
	if s.Core.Lost != 0 {
		t.Fatalf("lost %d while the core app was online", s.Core.Lost)
	}
	h.Do("publish")
	h.Settle("one more", func(s2 Snapshot) bool { return s2.Published == s.Published+1 && s2.JS.Pending == s.JS.Pending+1 })
}
