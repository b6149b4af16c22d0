package contrast

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker/brokertest"
)

var rateRE = regexp.MustCompile(`stats: ([\d,]+) msgs/sec`)

// benchRate runs a real `nats bench pub` flood of n messages into events.>
// at url and returns the publisher's rate.
func benchRate(t *testing.T, url string, n int) float64 {
	t.Helper()
	res := brokertest.RunRealCLI(t, url, "bench", "pub", "events.flood", "--msgs", strconv.Itoa(n), "--size", "16", "--no-progress")
	m := rateRE.FindStringSubmatch(res.Stdout + res.Stderr)
	if res.ExitCode != 0 || m == nil {
		t.Fatalf("nats bench pub: %s%s", res.Stdout, res.Stderr)
	}
	r, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	return r
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// standaloneRate floods a standalone nats-server -js (the binary at bin)
// holding the same EVENTS stream; withApp adds what the scene has at the
// least, one subscriber on events.> (here in the test's process, over TCP).
func standaloneRate(t *testing.T, bin string, n int, withApp bool) float64 {
	port := freePort(t)
	cmd := exec.Command(bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatal("the standalone server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res := brokertest.RunRealCLI(t, url, "stream", "add", "EVENTS", "--subjects", "events.>", "--defaults"); res.ExitCode != 0 {
		t.Fatalf("stream add: %s%s", res.Stdout, res.Stderr)
	}
	if withApp {
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		var got atomic.Uint64
		sub, err := nc.Subscribe(Watch, func(*nats.Msg) { got.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		_ = sub.SetPendingLimits(pendingMsgs, pendingBytes)
		_ = nc.Flush()
	}
	return benchRate(t, url, n)
}

// labRate floods the lab's embedded server while the scene watches both
// sides (core app online, JetStream app offline so pending climbs).
func labRate(t *testing.T, n int) float64 {
	h := newHarness(t, Options{Mode: JetStream})
	h.Settle("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("offline")
	h.Do("mode", "split")
	done := make(chan float64, 1)
	go func() { done <- benchRate(t, h.srv.ClientURL(), n) }()
	for {
		select {
		case r := <-done:
			return r
		default:
			h.Step(20 * time.Millisecond)
			h.View(120, 30)
		}
	}
}

// The broker's rate under a flood while the scene watches, against a
// standalone nats-server with the same stream: rounds interleaved, medians
// compared. Set NATSLAB_NATS_SERVER to a nats-server binary to run it
// (go build -o /tmp/nats-server github.com/nats-io/nats-server/v2).
func TestFloodRateAgainstStandalone(t *testing.T) {
	bin := os.Getenv("NATSLAB_NATS_SERVER")
	if bin == "" || testing.Short() {
		t.Skip("set NATSLAB_NATS_SERVER to a nats-server binary")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(100 << 20)) // natslab's, lab/policy.SoftMemoryLimit
	const n, rounds = 1_000_000, 3
	var alone, aloneApp, lab []float64
	for i := 0; i < rounds; i++ {
		alone = append(alone, standaloneRate(t, bin, n, false))
		aloneApp = append(aloneApp, standaloneRate(t, bin, n, true))
		lab = append(lab, labRate(t, n))
	}
	med := func(v []float64) float64 { s := append([]float64(nil), v...); sort.Float64s(s); return s[len(s)/2] }
	t.Logf("standalone nats-server:               %v msgs/s, median %.0f", alone, med(alone))
	t.Logf("standalone with one subscriber:       %v msgs/s, median %.0f", aloneApp, med(aloneApp))
	t.Logf("lab with the scene (core app online): %v msgs/s, median %.0f", lab, med(lab))
	bare, fair := med(lab)/med(alone), med(lab)/med(aloneApp)
	t.Logf("lab / standalone %.2f; lab / standalone with a subscriber %.2f", bare, fair)
	// A subscriber receiving every message costs what it costs on any
	// server; what the lab adds on top of it must stay under 10%.
	if fair < 0.9 {
		t.Errorf("the lab floods at %.0f%% of a standalone server with the same subscriber, under 90%%", fair*100)
	}
}
