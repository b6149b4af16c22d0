package command_test

import (
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// A stream that refuses a JetStream publish for one of its limits: the
// real CLI's line as the real CLI prints it against the same stream, then
// the lab's note with the limit read from the stream and what to type.
func TestJetStreamPublishOverAStreamLimitSaysWhichLimit(t *testing.T) {
	l := newLab(t)
	l.must(`stream add SIZE --subjects 'size.>' --max-msg-size 10 --defaults`)
	l.must(`stream add CAP --subjects 'cap.>' --max-msgs 2 --discard new --defaults`)
	l.must(`stream add PER --subjects 'per.>' --max-msgs-per-subject 1 --discard new --discard-per-subject --defaults`)
	l.must(`stream add BYTES --subjects 'bytes.>' --max-bytes 100 --discard new --defaults`)
	l.must(`pub cap.a x --count 2 --jetstream`)
	l.must(`pub per.a x --jetstream`)
	for _, tc := range []struct {
		args []string
		note []string
	}{
		{[]string{"size.a", "longer than ten", "-H", "K:V"},
			[]string{"stream SIZE takes messages of at most 10 B (its --max-msg-size), and this one is 33 B with its headers", "stream edit SIZE --max-msg-size=-1 --force", "max_payload, 1.0 MiB"}},
		{[]string{"cap.a", "x"},
			[]string{"stream CAP holds 2 messages, and its --max-msgs is 2; with --discard new", "stream purge CAP --force", "stream edit CAP --max-msgs N --force", "stream edit CAP --discard old --force"}},
		{[]string{"per.a", "x"},
			[]string{"stream PER holds 1 message on per.a, and its --max-msgs-per-subject is 1", "stream purge PER --subject per.a --force", "stream edit PER --no-discard-per-subject --force"}},
		{[]string{"bytes.a", strings.Repeat("x", 90)},
			[]string{"stream BYTES is empty, and its --max-bytes is 100 B", "stream edit BYTES --max-bytes SIZE --force"}},
	} {
		line := "pub --jetstream " + strings.Join(quoteAll(tc.args), " ")
		r := l.run(line)
		if r.e == nil {
			t.Fatalf("%s: want a refusal\n%s", line, r.all())
		}
		real := brokertest.RunRealCLI(t, l.srv.ClientURL(), append([]string{"pub", "--jetstream"}, tc.args...)...)
		realLines := strings.Split(strings.TrimRight(real.Stderr, "\n"), "\n")
		if got, want := command.ErrorLine(r.e), realLines[len(realLines)-1]; got != want {
			t.Errorf("%s: the lab says %q, the real CLI %q", line, got, want)
		}
		wantLines(t, line, command.ErrorNote(r.e), tc.note...)
	}
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + a + "'"
	}
	return out
}
