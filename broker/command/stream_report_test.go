package command_test

import (
	"sort"
	"strings"
	"testing"

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
	// The server copies in the background and announces no copy: poll.
	eventually(t, "the mirror and the source to catch up", copied)
	lab := l.must("stream report").out
	wantLines(t, "report", lab, "Replication Report", "│ BACKUP │ Mirror │", "│ ORDERS ", "│ ALL    │ Source │", "│ RETURNS ")
	real := brokertest.RunRealCLI(t, l.s.Deployment().ClientURL(), "stream", "report")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	// The server lists a stream's sources in no fixed order, so each side
	// prints ALL's two rows either way round: compare the rows as a set.
	streamCompare(t, "stream report", "stdout", sortedTableRows(lab), sortedTableRows(real.Stdout))

	// Without streams that copy, no replication report.
	l.must(`stream rm BACKUP -f`)
	l.must(`stream rm ALL -f`)
	if out := l.must("stream report").out; strings.Contains(out, "Replication Report") {
		t.Errorf("a report without copies has a replication report:\n%s", out)
	}
}

// sortedTableRows sorts the body rows of the Replication Report (the lines
// between its header's ├─…┼ rule and the closing ╰), leaving the rest,
// the Stream Report's order included, as it is.
func sortedTableRows(out string) string {
	lines := strings.Split(out, "\n")
	from := 0
	for from < len(lines) && !strings.Contains(lines[from], "Replication Report") {
		from++
	}
	for i := from; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "├") || !strings.Contains(lines[i], "┼") {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.HasPrefix(lines[end], "│") {
			end++
		}
		sort.Strings(lines[i+1 : end])
		i = end
	}
	return strings.Join(lines, "\n")
}
