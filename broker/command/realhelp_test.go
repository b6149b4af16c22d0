package command_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// Help is the real CLI's, for the lab's own commands too: `CMD --help` and
// `help CMD` through natslab run print what the pinned `nats` prints, byte
// for byte, whether or not the lab has a listener (here it has none: the
// lab's own grammar must not answer).
func TestHelpOfEveryNativeCommandIsTheRealCLIs(t *testing.T) {
	var lines []string
	for _, spec := range command.CommandSpecs() {
		name := strings.Join(spec.Path, " ")
		lines = append(lines, name+" --help", "help "+name)
	}
	lines = append(lines,
		"stream --help", "help stream", "kv -h", "help consumer",
		"--help", "--help-long", "--version",
	)
	compareLines(t, lines, 0)
}

// A line the real CLI's parser refuses gets the real CLI's refusal: its
// error on stderr, its usage on stdout, exit status 1. The lab's own
// explanation is only a note (natslab run --explain).
func TestRefusalsAreTheRealCLIs(t *testing.T) {
	for _, line := range []string{
		"stream lss",         // a sub-command the lab's grammar lacks, and the real one too
		"pubb greet hi",      // no command at all
		"stream add --bogus", // a flag neither has
		"pub",                // a missing argument
		"sub",                // refused by the command's action, with usage
		"help pubb",          // help for no command
		"help stream lss",    // help for no sub-command
		"kv",                 // a sub-command required
		"top",                // a missing argument, for a command only the real CLI runs
		"--timeout 2s",       // global flags and no command: the usage, exit 0
	} {
		t.Run(line, func(t *testing.T) { compareLines(t, []string{line}, 0) })
	}
}

// compareLines runs lines through natslab run (no listener, no --explain)
// and each through the real CLI, and compares stdout and stderr byte for
// byte, and whether they failed. width is COLUMNS for both (0 for none).
func compareLines(t *testing.T, lines []string, width int) {
	t.Helper()
	var want brokertest.CLIResult
	failed := 0
	for _, line := range lines {
		r := runReal(t, strings.Fields(line), width)
		want.Stdout += r.Stdout
		want.Stderr += r.Stderr
		if r.ExitCode != 0 {
			failed++
		}
	}
	extra := []string{"--listen", "none"}
	got := brokertest.RunLabScript(t, brokertest.Script{Name: strings.Join(lines, "; "), Lines: lines}, t.TempDir(), extra...)
	if d := brokertest.DiffLines(clock(want.Stdout), clock(got.Stdout)); d != "" {
		t.Errorf("stdout differs from the real CLI's (-real +lab):\n%s", d)
	}
	if d := brokertest.DiffLines(clock(want.Stderr), clock(got.Stderr)); d != "" {
		t.Errorf("stderr differs from the real CLI's (-real +lab):\n%s", d)
	}
	if (failed == 0) != (got.ExitCode == 0) {
		t.Errorf("%d lines failed with the real CLI; natslab run exited %d", failed, got.ExitCode)
	}
}

// clock replaces the times help prints (consumer add's --pause has an
// example of now), which differ between two runs.
func clock(s string) string {
	return timeOfDay.ReplaceAllString(date.ReplaceAllString(s, "YYYY-MM-DD"), "HH:MM:SS")
}

var (
	date      = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	timeOfDay = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}\b`)
)

// runReal runs the pinned real CLI once, with no server (help needs none),
// no terminal, a HOME of its own, and COLUMNS=width unless 0.
func runReal(t *testing.T, args []string, width int) brokertest.CLIResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, brokertest.RealCLI(t), args...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	if width > 0 {
		cmd.Env = append(cmd.Env, "COLUMNS="+strconv.Itoa(width))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := brokertest.CLIResult{Stdout: out.String(), Stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("nats %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// The lab's own words come after the real CLI's, as notes: its description
// of a command it runs itself, what an unknown word may have meant.
func TestHelpNotesFollowTheRealCLIsLines(t *testing.T) {
	l := newLab(t)
	for line, note := range map[string]string{
		"stream add --help":  "stream add: Create a stream",
		"help consumer next": "consumer next: Pulls messages from a pull consumer, acknowledging them by default",
		"pubb greet hi":      `unknown command "pubb": did you mean pub? (type help for the list)`,
		"stream lss":         `stream has no sub-command "lss": did you mean ls?`,
		"help stream lss":    `stream has no sub-command "lss": did you mean ls? (help stream lists them)`,
		"object lss":         `object has no sub-command "lss": did you mean ls?`,
	} {
		r := l.run(line)
		// A note about a failure travels with its error (see
		// command.ReportError).
		notes := r.note + command.ErrorNote(r.e)
		if !strings.Contains(notes, note) {
			t.Errorf("%s: notes %q, want %q among them", line, notes, note)
		}
		if strings.Contains(r.out+r.err, note) {
			t.Errorf("%s: the lab's note %q is among the real CLI's lines:\n%s%s", line, note, r.err, r.out)
		}
	}
}

// In a terminal of another width (the lab's pane is one), help is wrapped
// as the real CLI wraps it in a terminal that wide.
func TestHelpIsWrappedAtTheSessionsWidth(t *testing.T) {
	l := newLab(t)
	for _, width := range []int{100, 64} {
		l.s.SetHelpWidth(width)
		for _, line := range []string{"stream add --help", "help kv put", "pubb"} {
			want := runReal(t, strings.Fields(line), width)
			got := l.run(line)
			if d := brokertest.DiffLines(want.Stdout, got.out); d != "" {
				t.Errorf("%s at %d columns: stdout differs from the real CLI's (-real +lab):\n%s", line, width, d)
			}
			if d := brokertest.DiffLines(want.Stderr, got.err); d != "" {
				t.Errorf("%s at %d columns: stderr differs from the real CLI's (-real +lab):\n%s", line, width, d)
			}
		}
	}
}
