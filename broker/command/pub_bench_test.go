package command_test

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

var benchJSRate = regexp.MustCompile(`publisher stats: ([0-9,]+) msgs/sec`)

// BenchmarkPubJetStreamCountVsRealBench publishes 100,000 messages with
// `pub … --count 100000 -J` in the lab, and measures the real CLI's
// `nats bench js pub async` against a standalone nats-server in the same
// run. It reports both rates and their ratio (lab/peer; the goal is >= 1).
func BenchmarkPubJetStreamCountVsRealBench(b *testing.B) {
	const msgs = 100000
	srv := brokertest.Start(b, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	nc := brokertest.Connect(b, srv, "setup")
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BENCH", Subjects: []string{"bench.>"}}); err != nil {
		b.Fatal(err)
	}
	standalone := brokertest.StartStandalone(b)
	var labRate, peerRate float64
	for b.Loop() {
		start := time.Now()
		if err := s.Run(ctx, "pub bench.x 0123456789abcdef --count "+strconv.Itoa(msgs)+" -J -q", io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		labRate = msgs / time.Since(start).Seconds()

		res := brokertest.RunRealCLI(b, standalone, "bench", "js", "pub", "async", "bench.x", "--msgs", strconv.Itoa(msgs), "--size", "16", "--create", "--purge", "--no-progress")
		m := benchJSRate.FindStringSubmatch(res.Stdout + res.Stderr)
		if m == nil {
			b.Fatalf("no rate in nats bench output:\n%s%s", res.Stdout, res.Stderr)
		}
		peerRate, _ = strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	}
	b.ReportMetric(labRate, "lab-msgs/s")
	b.ReportMetric(peerRate, "peer-msgs/s")
	b.ReportMetric(labRate/peerRate, "lab/peer")
}
