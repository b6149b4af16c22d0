package command_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// replayMessages is the size of the stream the replay benchmarks read.
const replayMessages = 200_000

// fillStream creates stream REPLAY (replay.>) holding n 16-byte messages,
// published asynchronously with a bounded window.
func fillStream(tb testing.TB, srv *broker.Server, n int) {
	tb.Helper()
	nc := brokertest.Connect(tb, srv, "fill")
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "REPLAY", Subjects: []string{"replay.>"}}); err != nil {
		tb.Fatal(err)
	}
	body := []byte("0123456789abcdef")
	for i := 0; i < n; i++ {
		if _, err := js.PublishAsync(fmt.Sprintf("replay.%d", i%10), body, jetstream.WithStallWait(10*time.Second)); err != nil {
			tb.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		tb.Fatal("publishing the replay stream timed out")
	}
}

const replayLine = `sub "replay.>" --all -T`

// labReplay runs the replay through a session, writing to w.
func labReplay(tb testing.TB, s *command.Session, w io.Writer) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	if err := s.Run(ctx, replayLine, w, io.Discard); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// realReplay runs the same replay with the real nats CLI, its output going
// to /dev/null as in `nats sub … > /dev/null`.
func realReplay(tb testing.TB, url string) time.Duration {
	tb.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer null.Close()
	home := tb.TempDir()
	cmd := exec.Command(brokertest.RealCLI(tb), "--server", url, "--no-context", "sub", "replay.>", "--all", "-T")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	cmd.Stdout, cmd.Stderr = null, null
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("real CLI replay: %v", err)
	}
	return time.Since(start)
}

// peakHeap samples the heap in use while f runs, and returns how far it
// rose above where it was before (server and client together: they share
// the process).
func peakHeap(f func()) uint64 {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	peak.Store(before.HeapInuse)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak.Load() - before.HeapInuse
}

// BenchmarkSubReplay replays 200,000 stored messages through the lab's
// sub --all -T into io.Discard.
func BenchmarkSubReplay(b *testing.B) {
	srv := brokertest.Start(b)
	fillStream(b, srv, replayMessages)
	s := command.NewSession(srv)
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	var heap uint64
	for i := 0; i < b.N; i++ {
		heap = max(heap, peakHeap(func() { labReplay(b, s, io.Discard) }))
	}
	b.ReportMetric(float64(replayMessages)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(heap)/(1<<20), "heap-rise-MiB")
}

// BenchmarkSubReplayVsRealCLI replays the same 200,000 messages from the
// same server with the lab and with the real CLI (writing to /dev/null),
// and reports lab time / real time: below 1 means the lab is faster.
func BenchmarkSubReplayVsRealCLI(b *testing.B) {
	srv := brokertest.Start(b)
	fillStream(b, srv, replayMessages)
	url := srv.ClientURL()
	if url == "" {
		b.Skip("the test server has no listener for the real CLI")
	}
	brokertest.RealCLI(b) // build it before timing
	s := command.NewSession(srv)
	defer s.Close()
	b.ResetTimer()
	var lab, real time.Duration
	for i := 0; i < b.N; i++ {
		lab += labReplay(b, s, io.Discard)
		real += realReplay(b, url)
	}
	b.ReportMetric(lab.Seconds()/real.Seconds(), "lab/real")
	b.ReportMetric(lab.Seconds()/float64(b.N), "lab-s/replay")
	b.ReportMetric(real.Seconds()/float64(b.N), "real-s/replay")
}

// TestSubReplayLargeStream checks a replay of many messages prints every
// one, in order, and ends by itself (a correctness check, not a timing).
func TestSubReplayLargeStream(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes 20,000 messages")
	}
	l := newLab(t)
	const n = 20_000
	fillStream(t, l.srv, n)
	var out bytes.Buffer
	labReplay(t, l.s, &out)
	text := out.String()
	if got := strings.Count(text, "Received JetStream message"); got != n {
		t.Fatalf("printed %d messages, want %d", got, n)
	}
	if !strings.Contains(text, fmt.Sprintf("[#%d] Received JetStream message: stream: REPLAY seq: 20,000 / pending: 0 / subject: replay.9 / time: ", n)) {
		t.Errorf("last message line missing; tail:\n%s", text[max(0, len(text)-300):])
	}
	if !strings.HasPrefix(text, "[#1] Received JetStream message: stream: REPLAY seq: 1 / pending: 19,999 / subject: replay.0 / time: ") {
		t.Errorf("first line: %s", text[:min(len(text), 200)])
	}
}
