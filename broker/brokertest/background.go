package brokertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kballard/go-shellquote"
	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
)

// Background lines of a script: a line ending in " &" runs, as in a
// shell, as a process of its own that the next lines do not wait for. The
// real CLI's runs with its stdout and stderr kept apart from the other
// lines'; the next line starts once it is in place on the server; at the
// end, once it has printed what Script.Shown says it will, it is
// interrupted as a person's Ctrl-C would.

// backgroundDeadline bounds each wait on a background process (in place,
// printed what it shows): generous, so a loaded machine is not a failure,
// and a failure when passed.
const backgroundDeadline = 30 * time.Second

// splitBackground reports whether line is a background line (its last
// shell word a bare &) and returns its words without the &.
func splitBackground(line string) ([]string, bool, error) {
	words, err := shellquote.Split(line)
	if err != nil {
		return nil, false, err
	}
	trimmed := strings.TrimSpace(line)
	if len(words) > 1 && words[len(words)-1] == "&" && strings.HasSuffix(trimmed, " &") && !strings.HasSuffix(trimmed, "'&'") {
		return words[:len(words)-1], true, nil
	}
	return words, false, nil
}

// startInPlace starts a background line's real CLI process and returns
// once it is in place on srv (or has already ended): for kv watch, once
// the server has created its consumer (the advisory says so; from then
// on what the watch gets does not depend on how fast it started); for
// anything else, once a new client connection has a subscription (which
// nothing announces, so the server's connections are looked at until
// then).
func startInPlace(t testing.TB, srv *broker.Server, env RealEnv, line string, args []string) *RealProcess {
	t.Helper()
	if isKVWatch(args) {
		nc := Connect(t, srv, "brokertest background")
		created, err := nc.SubscribeSync("$JS.EVENT.ADVISORY.CONSUMER.CREATED.>")
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		p := StartRealCLI(t, env, args...)
		inPlace := make(chan error, 1)
		go func() {
			_, err := created.NextMsg(backgroundDeadline)
			inPlace <- err
		}()
		select {
		case err := <-inPlace:
			if err != nil {
				t.Fatalf("%s: the server created no consumer for it within %s: %v", line, backgroundDeadline, err)
			}
		case <-p.Done():
		}
		_ = created.Unsubscribe()
		return p
	}
	before := map[uint64]bool{}
	for _, c := range connections(t, srv) {
		before[c.Cid] = true
	}
	p := StartRealCLI(t, env, args...)
	deadline := time.Now().Add(backgroundDeadline)
	for {
		for _, c := range connections(t, srv) {
			if !before[c.Cid] && c.NumSubs > 0 {
				return p
			}
		}
		select {
		case <-p.Done():
			return p
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no new connection with a subscription on the server within %s", line, backgroundDeadline)
		}
	}
}

func isKVWatch(args []string) bool {
	return len(args) >= 2 && (args[0] == "kv" || args[0] == "kvs") && args[1] == "watch"
}

func connections(t testing.TB, srv *broker.Server) []*server.ConnInfo {
	t.Helper()
	cz, err := srv.Monitor().Connz(&server.ConnzOptions{Limit: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	return cz.Conns
}

// stopShown waits until p's stdout, normalised (Comparable), holds the
// lines shown in that order (or p has ended), interrupts it, and fails t
// unless its stdout is then exactly shown: what a background line prints
// is said in the test, so it is never stopped before it printed it.
func stopShown(t testing.TB, line string, p *RealProcess, shown []string, home string) CLIResult {
	t.Helper()
	clean := func(s string) string { return Comparable(strings.ReplaceAll(s, home, "HOME")) }
	if !p.AwaitOutput(backgroundDeadline, func(stdout, _ string) bool {
		return isSubsequence(shown, splitLines(clean(stdout)))
	}) {
		select {
		case <-p.Done():
		default:
			stdout, stderr := p.Output()
			t.Errorf("%s: did not print what Shown says within %s\nwant (in order):\n%s\nstdout:\n%s\nstderr:\n%s", line, backgroundDeadline, strings.Join(shown, "\n"), clean(stdout), clean(stderr))
		}
	}
	p.Stop()
	code, interrupted := p.Ended()
	stdout, stderr := p.Output()
	res := CLIResult{Stdout: strings.ReplaceAll(stdout, home, "HOME"), Stderr: strings.ReplaceAll(stderr, home, "HOME")}
	if !interrupted {
		res.ExitCode = code
	}
	if got := splitLines(Comparable(res.Stdout)); !slices.Equal(got, shown) {
		t.Errorf("%s: printed other lines than Shown says (list every line it prints; -Shown +printed):\n%s", line, cmp.Diff(shown, got, cmpopts.EquateEmpty()))
	}
	return res
}

// splitLines is s's lines, without the empty one after a final newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// isSubsequence reports whether every line of want appears in got, in
// want's order.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, l := range got {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	return i == len(want)
}

// interleaves reports whether got is exactly the lines of seqs merged,
// each sequence's lines in their order: what one terminal shows of a
// script's foreground lines and its background processes, which may
// print between each other's lines.
func interleaves(got []string, seqs [][]string) bool {
	total := 0
	for _, s := range seqs {
		total += len(s)
	}
	if total != len(got) {
		return false
	}
	pos := make([]int, len(seqs))
	failed := map[string]bool{} // positions known to lead nowhere
	var from func(at int) bool
	from = func(at int) bool {
		if at == len(got) {
			return true
		}
		key := fmt.Sprint(pos)
		if failed[key] {
			return false
		}
		for i, s := range seqs {
			if pos[i] < len(s) && s[pos[i]] == got[at] {
				pos[i]++
				ok := from(at + 1)
				pos[i]--
				if ok {
					return true
				}
			}
		}
		failed[key] = true
		return false
	}
	return from(0)
}

// interleavingDiff explains why got is not an interleaving of fg and bgs:
// the lines one side has more of than the other, and fg against what is
// left of got once each background sequence's lines are taken out of it.
func interleavingDiff(fg []string, bgs [][]string, got []string) string {
	var b strings.Builder
	count := map[string]int{}
	for _, l := range fg {
		count[l]++
	}
	for _, s := range bgs {
		for _, l := range s {
			count[l]++
		}
	}
	for _, l := range got {
		count[l]--
	}
	var missing, extra []string
	for l, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, l)
		}
		for ; n < 0; n++ {
			extra = append(extra, l)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	for _, l := range missing {
		fmt.Fprintf(&b, "only the real CLI printed: %q\n", l)
	}
	for _, l := range extra {
		fmt.Fprintf(&b, "only the lab printed: %q\n", l)
	}
	rest := got
	for i, s := range bgs {
		if !isSubsequence(s, rest) {
			fmt.Fprintf(&b, "background line %d's lines are not all there in its order: %q\n", i+1, s)
		}
		rest = without(rest, s)
	}
	if d := DiffLines(strings.Join(fg, "\n"), strings.Join(rest, "\n")); d != "" {
		fmt.Fprintf(&b, "the foreground lines against the lab's without the background lines (-real +lab):\n%s", d)
	}
	if b.Len() == 0 {
		b.WriteString("the same lines, in an order no interleaving of the real CLI's gives\n")
	}
	return b.String()
}

// without is got with the lines of s taken out, each line's first
// occurrences, whatever their order.
func without(got, s []string) []string {
	take := map[string]int{}
	for _, l := range s {
		take[l]++
	}
	var rest []string
	for _, l := range got {
		if take[l] > 0 {
			take[l]--
			continue
		}
		rest = append(rest, l)
	}
	return rest
}
