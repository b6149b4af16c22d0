package command_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// TestNoJetStreamAccountAsTheRealCLI: a user of an account without
// JetStream, on a server that has it, gets the real CLI's lines from the
// lab's own commands (natscli's errors through jsm.go read otherwise than
// nats.go's), and the notes say the account has no JetStream.
func TestNoJetStreamAccountAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.must(`config add accounts { JS: { jetstream: enabled, users: [ {user: js, password: js-pw} ] }, NOJS: { users: [ {user: nojs, password: nojs-pw} ] } }`)
	url := l.srv.ClientURL()
	dep, err := broker.Dial(broker.ExternalOptions{URL: url, User: "nojs", Password: "nojs-pw"})
	if err != nil {
		t.Fatal(err)
	}
	s := command.NewSession(dep, command.WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	for _, tc := range []struct{ line, note string }{
		{"account info", "this account has no JetStream"},
		{"kv ls", ""},
		{"kv ls --names", ""},
		{"stream ls", ""},
		{"pub a x -J", "this account has no JetStream, so no stream stores what it publishes"},
	} {
		var out, errb, note syncBuf
		labErr := s.RunStreams(context.Background(), tc.line, command.Streams{Out: &out, Err: &errb, Note: &note})
		command.ReportError(command.Streams{Err: &errb, Note: &note}, labErr)
		words, err := command.SplitWords(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		real := brokertest.RunRealCLI(t, url, append([]string{"--user", "nojs", "--password", "nojs-pw"}, words...)...)
		if (labErr == nil) != (real.ExitCode == 0) {
			t.Errorf("%s: the lab's error %v, the real CLI's exit code %d", tc.line, labErr, real.ExitCode)
		}
		if d := brokertest.DiffLines(conComparable(real.Stderr), conComparable(errb.String())); d != "" {
			t.Errorf("%s: stderr differs from the real CLI's (-real +lab):\n%s", tc.line, d)
		}
		if d := brokertest.DiffLines(conComparable(real.Stdout), conComparable(out.String())); d != "" {
			t.Errorf("%s: stdout differs from the real CLI's (-real +lab):\n%s", tc.line, d)
		}
		if !strings.Contains(note.String(), tc.note) {
			t.Errorf("%s: the note does not say %q:\n%s", tc.line, tc.note, note.String())
		}
	}
}
