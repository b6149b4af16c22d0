package contrast

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
)

// peakRSS is the process's peak resident memory (Linux), in bytes.
func peakRSS(t testing.TB) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status here")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// A real `nats bench pub` flood of a million messages into events.> while
// the scene watches both sides (the core app online, the JetStream app
// offline): every count is exact, memory stays bounded, and the scene
// answers at once afterwards.
func TestFloodCountsStayExact(t *testing.T) {
	if testing.Short() {
		t.Skip("a million messages")
	}
	const n = 1_000_000
	// natslab's heap limit (lab/policy.SoftMemoryLimit, which scenes may not
	// import), as its policy sets at start.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(100 << 20))
	h := newHarness(t, Options{Mode: JetStream})
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("offline") // the JetStream app only
	h.Do("mode", "split")
	runtime.GC()
	before := peakRSS(t)

	done := make(chan brokertest.CLIResult, 1)
	go func() {
		done <- brokertest.RunRealCLI(t, h.srv.ClientURL(), "bench", "pub", "events.flood", "--msgs", strconv.Itoa(n), "--size", "16", "--no-progress")
	}()
	// The model keeps taking its (sampled) events while the flood runs.
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
	t.Logf("nats bench pub: %s", rateLine(res.Stdout+res.Stderr))
	deadline := time.Now().Add(60 * time.Second)
	h.Until("every count exact", func(s Snapshot) bool {
		if time.Now().After(deadline) {
			t.Fatalf("counts after the flood: %+v", s)
		}
		// A stream fed core publishes faster than it can store drops the
		// excess (the server says so in its log): what it did store is
		// all pending, by the broker's own count.
		return s.Published == n && s.Core.Received+s.Core.Dropped == n && s.JS.LastSeq > 0 && s.JS.Pending == s.JS.Msgs && s.JS.Msgs == s.JS.LastSeq
	})
	s := h.Scene.snap
	t.Logf("published %d, core received %d (dropped %d), stream stored %d, JetStream pending %d, animation sampled away %d events",
		s.Published, s.Core.Received, s.Core.Dropped, s.JS.Msgs, s.JS.Pending, s.Sampled)
	if s.Core.Lost != 0 {
		t.Fatalf("lost %d while the core app was online", s.Core.Lost)
	}
	peak := peakRSS(t)
	t.Logf("peak RSS %d MB (before the flood %d MB)", peak>>20, before>>20)
	if peak > 150<<20 {
		t.Fatalf("peak RSS %d MB: over 150 MB", peak>>20)
	}

	// The scene answers at once afterwards.
	start := time.Now()
	h.Do("publish")
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Fatalf("publish took %v after the flood", el)
	}
	stored := s.JS.Msgs
	h.Until("one more", func(s Snapshot) bool { return s.Published == n+1 && s.JS.Pending == stored+1 })
	start = time.Now()
	h.View(120, 20)
	if el := time.Since(start); el > 50*time.Millisecond {
		t.Fatalf("drawing took %v after the flood", el)
	}
}

func rateLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "msgs/sec") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(s)
}
