package command_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// streamSquash normalises an output for comparison: dates, times, durations
// and IDs as brokertest.Normalize does; table padding evened out (a
// duration is DUR in both, but its column was padded to the real width);
// go-cmp's deliberately random non-breaking spaces made plain.
func streamSquash(s string) string {
	s = strings.ReplaceAll(s, "\u00a0", " ")
	lines := strings.Split(brokertest.Normalize(s), "\n")
	for i, l := range lines {
		if strings.ContainsAny(l, "│╭├╰") {
			l = streamDashes.ReplaceAllString(l, "─")
			lines[i] = streamSpaces.ReplaceAllString(l, " ")
		}
	}
	return strings.Join(lines, "\n")
}

var (
	streamDashes = regexp.MustCompile(`─+`)
	streamSpaces = regexp.MustCompile(` +`)
)

// realInTerminal runs the real CLI inside a pseudo-terminal (util-linux
// script), for stream view, which refuses to run without one. Output
// comes back as the terminal showed it: stdout and stderr merged.
func realInTerminal(t *testing.T, url string, args ...string) (string, bool) {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		return "", false
	}
	bin := brokertest.RealCLI(t)
	line := command.Quote(append([]string{bin, "--server", url, "--no-context"}, args...))
	cmd := exec.Command(script, "-qec", line, "/dev/null")
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"), "TZ=UTC", "TERM=dumb"}
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("real CLI in a terminal: %v\n%s", err, out.String())
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), true
}

type streamDiffCase struct {
	lab   string // the line typed into the lab
	real  string // the real CLI's arguments when they differ from lab's
	setup func() // the state each side starts from
	tty   bool   // the real CLI needs a terminal for this one
	// after is a real-CLI command run after each side, whose outputs must
	// match too: the state a command left behind.
	after string
	// fails: both refuse the line; their error output and exit status
	// must match.
	fails bool
}

// TestStreamMatchesRealCLI runs each command through the lab and through the
// real nats CLI, on the same server from the same state, and compares what
// they printed line by line, stdout and stderr apart.
func TestStreamMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real nats CLI")
	}
	l := newLab(t)
	url := l.srv.ClientURL()
	runReal := func(line string) brokertest.CLIResult {
		t.Helper()
		words, err := command.SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		return brokertest.RunRealCLI(t, url, words...)
	}
	clean := func() {
		for _, name := range strings.Fields(l.must("stream ls --names").out) {
			l.must("stream rm " + name + " -f")
		}
	}
	empty := clean
	filled := func() { clean(); fill(t, l) }
	seed000 := func() {
		clean()
		l.must(`stream add EVENTS --subjects "events.>" --defaults`)
		l.must(`pub events.page_loaded '{"page":"/home"}' --jetstream`)
		l.must(`pub events.input_changed '{"field":"email"}' --jetstream`)
		l.must(`pub events.page_loaded '{"page":"/pricing"}' --jetstream`)
	}
	seed003 := func() {
		clean()
		l.must(`stream add ORDERS --subjects "orders.>" --storage file --retention limits --defaults`)
		l.must(`pub orders.created "pesanan-1" -J`)
	}
	// A pane-like session answers the real CLI's terminal prompts (stream
	// view's "Next Page?") with yes.
	pane := command.NewSession(l.srv, command.WithTimeout(2*time.Second), command.WithConfirm(func(string) bool { return true }))
	t.Cleanup(pane.Close)

	cases := []streamDiffCase{
		{lab: "stream ls", setup: empty},
		{lab: "stream report", setup: empty},
		{lab: "stream ls --names", setup: empty},
		{lab: `stream add ORDERS --subjects 'orders.*' --defaults`, setup: empty, after: "stream ls --names"},
		{lab: `stream add EVENTS --subjects 'events.>' --storage file --retention limits --max-age 1h --max-bytes 1MB --max-msgs 1000 --max-msgs-per-subject 10 --replicas 1 --dupe-window 5m --discard old --description 'Event log' --defaults`, setup: empty},
		{lab: `stream add JOBS --subjects 'jobs.>' --storage memory --retention work --defaults`, setup: empty},
		{lab: `stream add ALERTS --subjects 'alerts.>' --retention interest --storage file --defaults`, setup: empty},
		{lab: `stream add LOG --subjects 'log.>' --max-age 30s --max-msg-size 1KB --allow-rollup --deny-delete --max-consumers 3 --defaults`, setup: empty},
		{lab: `stream add ORDERS --subjects 'orders.*' --defaults`, setup: filled}, // exists, same configuration
		{lab: "stream info ORDERS", setup: filled},
		{lab: "stream info EVENTS", setup: filled},
		{lab: "stream info ORDERS --json", setup: filled},
		{lab: "stream info ORDERS --state", setup: filled},
		{lab: "stream state ORDERS", setup: filled},
		{lab: "str i ORDERS", setup: filled},
		{lab: "stream ls", setup: filled},
		{lab: "stream ls --names", setup: filled},
		{lab: "stream ls --json", setup: filled},
		{lab: "stream ls --subject orders.new", setup: filled},
		{lab: "stream report", setup: filled},
		{lab: "stream report --name", setup: filled},
		{lab: "stream subjects ORDERS", setup: filled},
		{lab: "stream subjects ORDERS --sort name", setup: filled},
		{lab: "stream subjects ORDERS --names", setup: filled},
		{lab: "stream subjects ORDERS --json", setup: filled},
		{lab: "stream subjects ORDERS orders.new", setup: filled},
		{lab: "stream get ORDERS 1", setup: filled},
		{lab: "stream get ORDERS 6", setup: filled}, // with a header
		{lab: "stream get ORDERS 1 --json", setup: filled},
		{lab: "stream get ORDERS -S orders.cancelled", setup: filled},
		{lab: "stream view ORDERS 25", setup: filled, tty: true},
		{lab: "stream view ORDERS --subject orders.cancelled", setup: filled, tty: true},
		{lab: "stream rmm ORDERS 2 -f", setup: filled, after: "stream info ORDERS"},
		{lab: "stream purge ORDERS --subject orders.new -f", setup: filled, after: "stream info ORDERS"},
		{lab: "stream purge ORDERS --keep 2 -f", setup: filled},
		{lab: "stream purge ORDERS -f", setup: filled, after: "stream info ORDERS"},
		{lab: "stream rm ORDERS -f", setup: filled, after: "stream ls"},

		// The seed tutorials' stream commands, verbatim.
		{lab: `stream add EVENTS --subjects "events.>" --defaults`, setup: empty},
		{lab: "stream info EVENTS", setup: seed000},
		// Without --defaults the real CLI cannot run without a terminal
		// (it would prompt): both refuse alike.
		{lab: `stream add ORDERS --subjects "orders.>" --storage file --retention limits`, setup: empty, fails: true},
		{lab: `stream add ORDERS --subjects "orders.>" --storage file --retention limits --defaults`, setup: empty},
		// Limits below what JetStream's schema takes: natscli checks the
		// new stream against it and refuses before asking the server.
		{lab: `stream add ORDERS --subjects "orders.>" --max-msgs=-5 --defaults`, setup: empty, fails: true},
		{lab: `stream add ORDERS --subjects "orders.>" --max-age=-3s --defaults`, setup: empty, fails: true},
		{lab: "stream view ORDERS", setup: seed003, tty: true},
		{lab: "stream info ORDERS", setup: seed003},
		{lab: "stream report", setup: seed003},
	}

	for _, tc := range cases {
		tc.setup()
		lab := l.run(tc.lab)
		if tc.tty {
			var out bytes.Buffer
			err := pane.Run(context.Background(), tc.lab, &out, &out)
			lab = result{out: out.String(), e: err}
		}
		if tc.fails {
			tc.setup()
			real := runReal(tc.real + tc.lab)
			if lab.e == nil || real.ExitCode != 1 {
				t.Errorf("%s: want both to fail; lab: %v, real: exit %d", tc.lab, lab.e, real.ExitCode)
				continue
			}
			streamCompare(t, tc.lab, "stdout", lab.out, real.Stdout)
			streamCompare(t, tc.lab, "stderr", lab.err+command.ErrorLine(lab.e)+"\n", real.Stderr)
			continue
		}
		if lab.e != nil {
			t.Errorf("lab: %s: %v", tc.lab, lab.e)
			continue
		}
		var labAfter, realAfter brokertest.CLIResult
		if tc.after != "" {
			labAfter = runReal(tc.after)
		}

		tc.setup()
		realLine := tc.real
		if realLine == "" {
			realLine = tc.lab
		}
		if tc.tty {
			words, _ := command.SplitWords(realLine)
			out, ok := realInTerminal(t, url, words...)
			if !ok {
				t.Logf("%s: no util-linux script here to give the real CLI a terminal; not compared", tc.lab)
				continue
			}
			streamCompare(t, tc.lab, "output", lab.out+lab.err, out)
			continue
		}
		real := runReal(realLine)
		if real.ExitCode != 0 {
			t.Errorf("real CLI: %s: exit %d\n%s%s", realLine, real.ExitCode, real.Stdout, real.Stderr)
			continue
		}
		if tc.after != "" {
			realAfter = runReal(tc.after)
		}
		streamCompare(t, tc.lab, "stdout", lab.out, real.Stdout)
		streamCompare(t, tc.lab, "stderr", lab.err, real.Stderr)
		if tc.after != "" {
			streamCompare(t, tc.lab+" then "+tc.after, "stdout", labAfter.Stdout, realAfter.Stdout)
		}
	}
}

// streamEditMatchesRealCLI: stream edit prints go-cmp's diff, whose layout
// go-cmp varies on purpose; the changed lines and everything after the
// diff must match.
func TestStreamEditMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real nats CLI")
	}
	l := newLab(t)
	url := l.srv.ClientURL()
	line := "stream edit ORDERS --max-msgs 4 --description 'Newest orders' --force"
	fill(t, l)
	lab := l.must(line)
	l.must("stream rm ORDERS -f")
	l.must("stream rm EVENTS -f")
	fill(t, l)
	words, _ := command.SplitWords(line)
	real := brokertest.RunRealCLI(t, url, words...)
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: exit %d: %s", real.ExitCode, real.Stderr)
	}
	split := func(s string) (changes []string, rest string) {
		head, rest, ok := strings.Cut(s, "Stream ORDERS was updated\n")
		if !ok {
			t.Fatalf("no 'was updated' line:\n%s", s)
		}
		for _, l := range strings.Split(strings.ReplaceAll(head, "\u00a0", " "), "\n") {
			if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
				changes = append(changes, strings.Join(strings.Fields(l), " "))
			}
		}
		return changes, rest
	}
	labChanges, labRest := split(lab.out)
	realChanges, realRest := split(real.Stdout)
	streamCompare(t, line, "changed lines", strings.Join(labChanges, "\n"), strings.Join(realChanges, "\n"))
	streamCompare(t, line, "after the diff", labRest, realRest)
	// Description and max msgs, and the real CLI's own quirk: the empty
	// metadata map it reads becomes nil in its copy of the configuration.
	if len(labChanges) != 6 {
		t.Errorf("want 6 changed lines (description, max msgs, metadata), got %q", labChanges)
	}
}

// streamCompare reports the first line where the lab's output differs from
// the real CLI's, after normalising both.
func streamCompare(t *testing.T, line, what, lab, real string) {
	t.Helper()
	a, b := streamSquash(lab), streamSquash(real)
	if a == b {
		return
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			t.Errorf("%s: %s differs at line %d:\n lab:  %q\n real: %q\n--- lab:\n%s\n--- real:\n%s", line, what, i+1, x, y, lab, real)
			return
		}
	}
}
