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

// A deployment named with --server that stops mid-session: every command,
// the lab's own and the real CLI's, prints its error line and a note that
// the server is not reachable right now, not the error alone. The session
// keeps its connection, trying to reconnect, as the lab does whenever
// the server the lab is connected to goes away.
func TestServerStoppedMidSessionEveryCommandSaysSo(t *testing.T) {
	srv := brokertest.Start(t)
	dep, err := broker.Dial(broker.ExternalOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	s := command.NewSession(dep, command.WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	run := func(line string) (string, string, error) {
		var out, errb, note syncBuf
		e := s.RunStreams(context.Background(), line, command.Streams{Out: &out, Err: &errb, Note: &note})
		command.ReportError(command.Streams{Err: &errb, Note: &note}, e)
		return errb.String(), note.String(), e
	}
	for _, line := range []string{"stream add EVENTS --subjects 'events.>' --defaults", "consumer add EVENTS C --pull --defaults", "kv add CFG"} {
		if _, _, err := run(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	srv.Stop()
	if !broker.WaitFor(10*time.Second, func() bool { _, _, err := run("pub a b"); return err != nil }) {
		t.Fatal("publishing still works with the server stopped")
	}
	for _, line := range []string{
		"stream info EVENTS",
		"stream ls",
		"stream add OTHER --subjects 'other.>' --defaults",
		"stream rm EVENTS -f",
		"consumer info EVENTS C",
		"consumer ls EVENTS",
		"consumer add EVENTS D --pull --defaults",
		"consumer next EVENTS C",
		"kv get CFG a",
		"kv ls",
		"account info",
		"request a b",
		"object ls",
	} {
		errLine, note, err := run(line)
		if err == nil && line != "account info" {
			// (account info says in its output that it could not
			// obtain the account's information, as the real CLI does
			// on a connection that is down.)
			t.Errorf("%s: no error with the server stopped", line)
			continue
		}
		if !strings.Contains(note, "not reachable right now") {
			t.Errorf("%s: %q with the note %q, which does not say the server is not reachable", line, strings.TrimSpace(errLine), strings.TrimSpace(note))
		}
	}
}
