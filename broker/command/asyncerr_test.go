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

// A user the server forbids a subject or the JetStream API: the real CLI's
// error handler prints the server's violation as it comes, while the
// command waits for its answer, and the lab's commands print the same line
// (they share the session's connection, the real CLI's have one each),
// but not for the questions the lab asks on its own.
func TestPermissionViolationsPrintedAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.must(`config add authorization { users: [ {user: limited, password: limited-pw, permissions: {publish: {allow: ["ok.>", "_INBOX.>"]}, subscribe: "_INBOX.>"}} ] }`)
	url := l.srv.ClientURL()
	dep, err := broker.Dial(broker.ExternalOptions{URL: url, User: "limited", Password: "limited-pw"})
	if err != nil {
		t.Fatal(err)
	}
	s := command.NewSession(dep, command.WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	for _, line := range []string{
		"request no.a x --timeout 300ms",
		"stream ls --timeout 600ms",
		"kv get K a --timeout 300ms",
		// On a job's own connection. (Not a refused subscription: the
		// real CLI ends with it as its error, and its handler prints it
		// too only now and then, when it wins the race to the exit.)
		"sub ok.a --all --count 1 --timeout 300ms",
		// Stored nowhere, and the lab's questions for its note meet
		// violations the real CLI, which never asks them, does not print.
		"pub ok.a x -J --timeout 300ms",
	} {
		var out, errb, note syncBuf
		labErr := s.RunStreams(context.Background(), line, command.Streams{Out: &out, Err: &errb, Note: &note})
		command.ReportError(command.Streams{Err: &errb, Note: &note}, labErr)
		words, err := command.SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		real := brokertest.RunRealCLI(t, url, append([]string{"--user", "limited", "--password", "limited-pw"}, words...)...)
		if (labErr == nil) != (real.ExitCode == 0) {
			t.Errorf("%s: the lab's error %v, the real CLI's exit code %d", line, labErr, real.ExitCode)
		}
		if d := brokertest.DiffLines(brokertest.Comparable(real.Stderr), brokertest.Comparable(errb.String())); d != "" {
			t.Errorf("%s: stderr differs from the real CLI's (-real +lab):\n%s", line, d)
		}
		if d := brokertest.DiffLines(brokertest.Comparable(real.Stdout), brokertest.Comparable(out.String())); d != "" {
			t.Errorf("%s: stdout differs from the real CLI's (-real +lab):\n%s", line, d)
		}
		if strings.HasPrefix(line, "request") && !strings.Contains(note.String(), `does not allow this user to publish to "no.a"`) {
			t.Errorf("%s: the note does not say the publish was refused:\n%s", line, note.String())
		}
		if strings.HasPrefix(line, "pub") && !strings.Contains(note.String(), "may not ask JetStream which stream captures") {
			t.Errorf("%s: the note does not say the user may not ask JetStream:\n%s", line, note.String())
		}
	}
}

// TestRefusedUserMeetsNatscliRequests: for a user the server refuses the
// JetStream API and most subjects, the lab's commands make the requests
// natscli makes, in its order, so the violations printed are natscli's:
// consumer add loads the consumer before it picks the stream, consumer
// rm --force and kv rm --force delete without the lab's own look first
// printing a violation natscli never meets (and consumer rm says its
// delete timed out, as natscli does). A refused publish prints the
// handler's line before the error, as natscli mostly manages before it
// exits; a publish after another line's violation is not failed by it
// (the shared connection keeps its last error, natscli's own connection
// has none).
func TestRefusedUserMeetsNatscliRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.must("stream add ORDERS --subjects 'orders.>' --defaults")
	l.must("consumer add ORDERS C --pull --defaults")
	l.must("kv add K")
	l.must(`config add authorization { users: [ {user: limited, password: limited-pw, permissions: {publish: {allow: ["ok.>", "_INBOX.>"]}, subscribe: "_INBOX.>"}} ] }`)
	url := l.srv.ClientURL()
	dep, err := broker.Dial(broker.ExternalOptions{URL: url, User: "limited", Password: "limited-pw"})
	if err != nil {
		t.Fatal(err)
	}
	s := command.NewSession(dep, command.WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	violation := func(subject string) string {
		return `TIME >>> Unexpected NATS error: nats: permissions violation: Permissions Violation for Publish to "` + subject + `"`
	}
	for _, tc := range []struct {
		line string
		// racy is natscli's handler line, which its process prints
		// before or after its error line, or exits before printing; the
		// lab always prints it first.
		racy string
		note string
	}{
		{line: "consumer add ORDERS X --pull --defaults --timeout 300ms"},
		{line: "consumer rm ORDERS C --force --timeout 300ms", note: "refuse it the delete (a publish to $JS.API.CONSUMER.DELETE.ORDERS.C)"},
		{line: "kv rm K --force --timeout 300ms", note: "refuse it the delete (a publish to $JS.API.STREAM.DELETE.KV_K)"},
		{line: "pub no.a x", racy: violation("no.a")},
		{line: "pub ok.a x"},
	} {
		var out, errb, note syncBuf
		labErr := s.RunStreams(context.Background(), tc.line, command.Streams{Out: &out, Err: &errb, Note: &note})
		command.ReportError(command.Streams{Err: &errb, Note: &note}, labErr)
		words, err := command.SplitWords(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		real := brokertest.RunRealCLI(t, url, append([]string{"--user", "limited", "--password", "limited-pw"}, words...)...)
		if (labErr == nil) != (real.ExitCode == 0) {
			t.Errorf("%s: the lab's error %v, the real CLI's exit code %d", tc.line, labErr, real.ExitCode)
		}
		labErrs, realErrs := brokertest.Comparable(errb.String()), brokertest.Comparable(real.Stderr)
		if tc.racy != "" {
			if !strings.HasPrefix(labErrs, tc.racy+"\n") {
				t.Errorf("%s: the lab does not print the handler's line first:\n%s", tc.line, labErrs)
			}
			// natscli's handler prints on a goroutine of its own: before
			// the error line, after it, or not at all when the process
			// exits first.
			realErrs = tc.racy + "\n" + strings.Replace(realErrs, tc.racy+"\n", "", 1)
		}
		if d := brokertest.DiffLines(realErrs, labErrs); d != "" {
			t.Errorf("%s: stderr differs from the real CLI's (-real +lab):\n%s", tc.line, d)
		}
		if d := brokertest.DiffLines(brokertest.Comparable(real.Stdout), brokertest.Comparable(out.String())); d != "" {
			t.Errorf("%s: stdout differs from the real CLI's (-real +lab):\n%s", tc.line, d)
		}
		if !strings.Contains(note.String(), tc.note) {
			t.Errorf("%s: the note does not say %q:\n%s", tc.line, tc.note, note.String())
		}
	}
}
