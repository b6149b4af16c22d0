package command_test

import (
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
)

// With mirrors or sources, stream report adds the real CLI's Replication
// Report: each copy's origin, how long since it last heard from it
// (Active), its lag and the server's error, if any.
func TestStreamReportShowsReplicationAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.must(`stream add ORDERS --subjects 'orders.>' --defaults`)
	l.must(`stream add RETURNS --subjects 'returns.>' --defaults`)
	l.must(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	l.must(`pub returns.new "return" --jetstream`)
	l.must(`stream add BACKUP --mirror ORDERS --defaults`)
	l.must(`stream add ALL --source ORDERS --source RETURNS --defaults`)
	copied := func() bool {
		r := l.must("stream report")
		return strings.Contains(r.out, "│ BACKUP  │ File    │           │ 0         │ 3 ") && strings.Contains(r.out, "│ ALL     │ File    │           │ 0         │ 4 ")
	}
	for deadline := time.Now().Add(10 * time.Second); !copied(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the copies never caught up:\n%s", l.must("stream report").out)
		}
	}
	lab := l.must("stream report").out
	wantLines(t, "report", lab, "Replication Report", "│ BACKUP │ Mirror │", "│ ORDERS ", "│ ALL    │ Source │", "│ RETURNS ")
	real := brokertest.RunRealCLI(t, l.s.Deployment().ClientURL(), "stream", "report")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	streamCompare(t, "stream report", "stdout", lab, real.Stdout)

	// Without streams that copy, no replication report.
	l.must(`stream rm BACKUP -f`)
	l.must(`stream rm ALL -f`)
	if out := l.must("stream report").out; strings.Contains(out, "Replication Report") {
		t.Errorf("a report without copies has a replication report:\n%s", out)
	}
}
