package command_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// A reload that stops letting a running sub's client in (here: users
// required, where the lab's clients present none) does what natscli does
// with it (nats.IgnoreAuthErrorAbort): the job says it was disconnected,
// says each refusal in the real CLI's words, with the lab's note apart, and
// keeps trying, further and further apart; a reload that lets the client
// in again (the users gone) has it listening again at once, not at its
// next try, and the verb waits for that: the session's timeout here is
// shorter than the wait after the fifth refusal (refusalBackoff), and
// long enough for a busy machine to disconnect and refuse the client.
func TestSubLockedOutByAReloadKeepsTryingAsTheRealCLIDoes(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []brokertest.Option
	}{{"tcp", nil}, {"in-process", []brokertest.Option{brokertest.InProcessOnly()}}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := brokertest.Start(t, mode.opts...)
			l := &lab{t: t, srv: srv, changed: make(chan struct{}, 1)}
			l.s = command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithObserver(func(command.Event) { l.poke() }))
			t.Cleanup(l.s.Close)
			out, note := &syncBuf{written: l.poke}, &syncBuf{written: l.poke}
			j := l.s.StartStreams(context.Background(), `sub 'orders.*'`, command.Streams{Out: out, Err: out, Note: note})
			waitReady(t, j)

			const users = `authorization { users: [ {user: alice, password: alice-pw} ] }`
			l.must("config add " + users)
			disconnected := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d >>> Disconnected due to: .+, will attempt reconnect$`)
			refused := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d >>> Unexpected NATS error: nats: authorization violation$`)
			l.await("the job to say it was disconnected and refused five times", func() bool {
				return disconnected.MatchString(out.String()) && len(refused.FindAllString(out.String(), -1)) >= 5
			})
			l.await("the lab's note on the refusal", func() bool { return strings.Contains(note.String(), "refuses this job's client") })
			if strings.Contains(out.String(), "refuses") {
				t.Errorf("the lab's note belongs on the note stream, not among the real CLI's lines:\n%s", out.String())
			}
			select {
			case <-j.Done():
				t.Fatalf("the job ended (%v); natscli keeps trying:\n%s", j.Err(), out.String())
			default:
			}

			path, text := l.srv.Config()
			if err := os.WriteFile(path, []byte(strings.Replace(text, users, "", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			l.must("config reload")
			l.must("pub orders.new hi")
			l.await("the job hearing the publish once let in again", func() bool { return strings.Contains(out.String(), `Received on "orders.new"`) })
			l.await("the lab's note on being let in again", func() bool { return strings.Contains(note.String(), "lets this job's client in again") })
		})
	}
}

// A sub that names its own user runs in the real CLI, which prints its own
// lines when a reload stops letting that user in; the lab adds its note
// on the first refusal, apart from them.
func TestRealCLISubLockedOutByAReloadGetsTheLabsNote(t *testing.T) {
	l := newLab(t)
	const alice = `authorization { users: [ {user: alice, password: alice-pw} ] }`
	l.must("config add " + alice)
	out, note := &syncBuf{written: l.poke}, &syncBuf{written: l.poke}
	j := l.s.StartStreams(context.Background(), `sub --user alice --password alice-pw 'orders.*'`, command.Streams{Out: out, Err: out, Note: note})
	waitReady(t, j)
	l.await("the real CLI saying it subscribed", func() bool { return strings.Contains(out.String(), "Subscribing on orders.*") })

	path, text := l.srv.Config()
	if err := os.WriteFile(path, []byte(strings.Replace(text, "user: alice", "user: bob", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	l.must("config reload")
	refused := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d >>> Unexpected NATS error: nats: authorization violation$`)
	l.await("the real CLI's refusal, twice", func() bool { return len(refused.FindAllString(out.String(), -1)) >= 2 })
	l.await("the lab's note on it", func() bool { return strings.Contains(note.String(), "refuses this client's user") })
	if strings.Contains(out.String(), "refuses") {
		t.Errorf("the lab's note belongs on the note stream, not among the real CLI's lines:\n%s", out.String())
	}
	if n := strings.Count(note.String(), "refuses"); n != 1 {
		t.Errorf("the note should come once, not %d times:\n%s", n, note.String())
	}
}
