package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// Lines as docs annotate them, with a comment after the command: a shell
// drops the comment (a # that begins a word, outside quotes) and runs the
// rest. The lab's script prints what the real CLI prints for the lines a
// shell runs, the same lines without their comments.
func TestTrailingComments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	lines := []struct{ typed, shellRuns string }{
		{"nats stream add S --subjects 's.>' --defaults  # a stream for the examples", "nats stream add S --subjects 's.>' --defaults"},
		{"nats pub s.a hello # the greeting", "nats pub s.a hello"},
		{`nats pub s.a "quoted # not a comment" # but this is`, `nats pub s.a "quoted # not a comment"`},
		{`nats pub s.a 'it'"'"'s' # it's`, `nats pub s.a 'it'"'"'s'`},
		{`nats pub s.a a#b`, `nats pub s.a a#b`},
		{`nats pub s.a \#x`, `nats pub s.a \#x`},
		{"nats sub 's.>' --all -T --raw	# everything stored", "nats sub 's.>' --all -T --raw"},
		{"nats stream ls # then list", "nats stream ls"},
		{"nats # with nothing else", "nats"},
	}
	typed, shell := brokertest.Script{Name: "typed"}, brokertest.Script{Name: "as a shell runs them"}
	for _, l := range lines {
		typed.Lines = append(typed.Lines, l.typed)
		shell.Lines = append(shell.Lines, l.shellRuns)
	}
	real := brokertest.RunRealScript(t, shell, t.TempDir())
	lab := brokertest.RunLabScript(t, typed, t.TempDir())
	if d := brokertest.DiffLines(brokertest.Comparable(real.Stdout), brokertest.Comparable(lab.Stdout)); d != "" {
		t.Errorf("stdout differs from the real CLI's (-real +lab):\n%s", d)
	}
	if d := brokertest.DiffLines(brokertest.Comparable(real.Stderr), brokertest.Comparable(lab.Stderr)); d != "" {
		t.Errorf("stderr differs from the real CLI's (-real +lab):\n%s", d)
	}
	if (real.ExitCode == 0) != (lab.ExitCode == 0) {
		t.Errorf("%d lines failed with the real CLI, natslab run exited %d", real.ExitCode, lab.ExitCode)
	}
}
