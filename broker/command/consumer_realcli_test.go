package command_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// The same consumer commands through the lab and through the real nats CLI,
// against one embedded server, from the same starting state each time: the
// normalised outputs must be the same.

// conFreshOrders (re)creates the ORDERS stream with the same five messages.
func conFreshOrders(t *testing.T, srv *broker.Server) {
	t.Helper()
	nc := brokertest.Connect(t, srv, "setup")
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = js.DeleteStream(ctx, "ORDERS")
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if _, err := js.Publish(ctx, "orders.new", fmt.Appendf(nil, "order %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	m := nats.NewMsg("orders.new")
	m.Data = []byte("with headers")
	m.Header.Set("Priority", "high")
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
}

// conTransportRows are account info rows that describe the connection itself:
// the lab's runs in-process, the real CLI's over TCP.
var conTransportRows = regexp.MustCompile(`(?m)^( *(Client ID|Client IP|Connected URL|Connected Address|RTT):).*$`)

// conComparable normalises output for comparison: times, IDs and durations
// (brokertest.Normalize), the table padding that follows from their widths,
// and the transport rows.
func conComparable(s string) string {
	s = brokertest.Normalize(s)
	s = conTransportRows.ReplaceAllString(s, "$1 X")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.ContainsAny(l, "│─") {
			l = regexp.MustCompile(`─+`).ReplaceAllString(l, "─")
			lines[i] = regexp.MustCompile(` +`).ReplaceAllString(l, " ")
		}
	}
	return strings.Join(lines, "\n")
}

func TestConsumerCommandsMatchTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real nats CLI")
	}
	srv := brokertest.Start(t)
	url := srv.ClientURL()
	steps := []string{
		"consumer add ORDERS PROCESSOR --pull --defaults",
		"consumer info ORDERS PROCESSOR",
		"consumer ls ORDERS",
		"consumer ls ORDERS --names",
		"consumer next ORDERS PROCESSOR --ack",
		"consumer next ORDERS PROCESSOR --no-ack",
		"consumer next ORDERS PROCESSOR --count 2",
		"consumer info ORDERS PROCESSOR",
		"consumer report ORDERS",
		"consumer add ORDERS NOACK --pull --ack none --deliver all --defaults",
		// natscli settles whatever the ack policy, and says so.
		"consumer next ORDERS NOACK",
		"consumer next ORDERS NOACK --nak",
		"consumer next ORDERS NOACK --term",
		"consumer next ORDERS NOACK --raw",
		"consumer add ORDERS NEWONLY --pull --deliver new --ack explicit --wait 10s --max-deliver 3 --filter orders.new --description 'new orders only' --defaults",
		"consumer add ORDERS FROM5 --pull --deliver 5 --defaults",
		"consumer add ORDERS LASTONE --pull --deliver last --ack explicit --defaults",
		"consumer add ORDERS bad.name --pull --defaults",
		"consumer add ORDERS 'bad name' --pull --defaults",
		"consumer add ORDERS NOFILTER --pull --filter '' --defaults",
		"consumer add ORDERS SAMPLED --pull --sample 50 --defaults",
		"consumer rm ORDERS NOFILTER -f",
		"consumer rm ORDERS SAMPLED -f",
		"consumer next ORDERS LASTONE",
		"consumer report ORDERS",
		"consumer rm ORDERS NOACK --force",
		"consumer rm ORDERS NEWONLY -f",
		"account info",
		"consumer rm ORDERS PROCESSOR -f",
		"consumer rm ORDERS FROM5 -f",
		"consumer rm ORDERS LASTONE -f",
		"consumer ls ORDERS",
	}
	type out struct{ stdout, stderr string }
	var lab, real []out

	conFreshOrders(t, srv)
	s := command.NewSession(srv, command.WithTimeout(2*time.Second))
	for _, line := range steps {
		var o, e syncBuf
		err := s.Run(context.Background(), line, &o, &e)
		stderr := e.String()
		if err != nil {
			stderr += command.ErrorLine(err) + "\n"
		}
		lab = append(lab, out{o.String(), stderr})
	}
	s.Close()

	conFreshOrders(t, srv)
	for _, line := range steps {
		words, err := command.SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		r := brokertest.RunRealCLI(t, url, words...)
		real = append(real, out{r.Stdout, r.Stderr})
	}

	for i, line := range steps {
		if a, b := conComparable(lab[i].stdout), conComparable(real[i].stdout); a != b {
			t.Errorf("%s: stdout differs\nlab:\n%s\nreal CLI:\n%s", line, lab[i].stdout, real[i].stdout)
		}
		if a, b := conComparable(lab[i].stderr), conComparable(real[i].stderr); a != b {
			t.Errorf("%s: stderr differs\nlab:\n%s\nreal CLI:\n%s", line, lab[i].stderr, real[i].stderr)
		}
	}
}

// TestConsumerErrorsBeatTheRealCLI runs mistakes through both: the real CLI
// fails, and so does the lab, but the lab names what exists.
func TestConsumerErrorsBeatTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real nats CLI")
	}
	srv := brokertest.Start(t)
	conFreshOrders(t, srv)
	l := &lab{t: t, srv: srv, s: command.NewSession(srv, command.WithTimeout(2*time.Second))}
	t.Cleanup(l.s.Close)
	l.must("consumer add ORDERS PROCESSOR --pull --defaults")
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"consumer info ORDERS NOPE", []string{"there is no consumer NOPE on stream ORDERS", "PROCESSOR"}},
		{"consumer next ORDERS PROCESOR", []string{"did you mean PROCESSOR?"}},
		{"consumer ls NOPE", []string{"there is no stream NOPE", "ORDERS"}},
		{"consumer add NOSTREAM C1 --pull --defaults", []string{"there is no stream NOSTREAM", "ORDERS"}},
		{"consumer add ORDERS PROCESSOR --pull --deliver new --defaults", []string{"already exists", "deliver policy All, not New", "consumer edit", "consumer rm ORDERS PROCESSOR --force"}},
		{"consumer add ORDERS X --pull --wait 10s --defaults --deliver nope", []string{"--deliver takes all, new, last"}},
	} {
		words, _ := command.SplitWords(tc.line)
		if r := brokertest.RunRealCLI(t, srv.ClientURL(), words...); r.ExitCode == 0 {
			t.Errorf("%s: the real CLI succeeded; this test expects a mistake", tc.line)
		}
		l.fails(tc.line, tc.want...)
	}
}

// conUsers are users of conRefusalServer's: one the server refuses the
// JetStream API, one it refuses the pull alone, one it lets pull (and
// ack) but not look at streams or consumers.
const conUsers = `config add authorization { users: [
	{user: nojs, password: nojs-pw, permissions: {publish: {allow: ["ok.>", "_INBOX.>"]}, subscribe: "_INBOX.>"}},
	{user: nopull, password: nopull-pw, permissions: {publish: {deny: ["$JS.API.CONSUMER.MSG.NEXT.>"]}}},
	{user: pullonly, password: pullonly-pw, permissions: {publish: {allow: ["$JS.API.CONSUMER.MSG.NEXT.ORDERS.*", "$JS.ACK.>"]}, subscribe: "_INBOX.>"}}
] }`

// conRefusalServer is a server with ORDERS and its five messages, a pull
// consumer C, and conUsers.
func conRefusalServer(t *testing.T) *broker.Server {
	t.Helper()
	l := newLab(t)
	conFreshOrders(t, l.srv)
	l.must("consumer add ORDERS C --pull --defaults")
	l.must(conUsers)
	return l.srv
}

// TestConsumerNextRefusedAsTheRealCLI: for a user the server refuses some
// of the JetStream API, consumer next makes natscli's requests in its
// order (it loads the consumer, pulls anyway, loads it again to say why
// nothing came), so the same violations are printed, and a user allowed
// the pull alone reads messages as with natscli.
func TestConsumerNextRefusedAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	steps := []struct{ user, line, note string }{
		{"nojs", "consumer next ORDERS C --timeout 300ms", "refuse it the pull (a publish to $JS.API.CONSUMER.MSG.NEXT.ORDERS.C) and the look at consumer C"},
		{"nojs", "consumer next ORDERS NOPE --timeout 300ms --count 2", "refuse it the pull"},
		{"nopull", "consumer next ORDERS C --timeout 300ms", "refuse it the pull (a publish to $JS.API.CONSUMER.MSG.NEXT.ORDERS.C): no message can come"},
		{"nopull", "consumer next ORDERS NOPE --timeout 300ms", "consumer NOPE not found on stream ORDERS"},
		{"pullonly", "consumer next ORDERS C --timeout 300ms --count 2", ""},
		{"pullonly", "consumer next ORDERS C --timeout 300ms --nak", ""},
		{"pullonly", "consumer next ORDERS NOPE --timeout 300ms", "refuse it the look at consumer NOPE that would say why"},
	}
	labSrv, realSrv := conRefusalServer(t), conRefusalServer(t)
	for _, st := range steps {
		dep, err := broker.Dial(broker.ExternalOptions{URL: labSrv.ClientURL(), User: st.user, Password: st.user + "-pw"})
		if err != nil {
			t.Fatal(err)
		}
		s := command.NewSession(dep, command.WithTimeout(2*time.Second))
		var out, errb, note syncBuf
		labErr := s.RunStreams(context.Background(), st.line, command.Streams{Out: &out, Err: &errb, Note: &note})
		command.ReportError(command.Streams{Err: &errb, Note: &note}, labErr)
		s.Close()
		words, err := command.SplitWords(st.line)
		if err != nil {
			t.Fatal(err)
		}
		real := brokertest.RunRealCLI(t, realSrv.ClientURL(), append([]string{"--user", st.user, "--password", st.user + "-pw"}, words...)...)
		if (labErr == nil) != (real.ExitCode == 0) {
			t.Errorf("%s as %s: the lab's error %v, the real CLI's exit code %d", st.line, st.user, labErr, real.ExitCode)
		}
		if d := brokertest.DiffLines(conComparable(real.Stderr), conComparable(errb.String())); d != "" {
			t.Errorf("%s as %s: stderr differs from the real CLI's (-real +lab):\n%s", st.line, st.user, d)
		}
		if d := brokertest.DiffLines(conComparable(real.Stdout), conComparable(out.String())); d != "" {
			t.Errorf("%s as %s: stdout differs from the real CLI's (-real +lab):\n%s", st.line, st.user, d)
		}
		if !strings.Contains(note.String(), st.note) {
			t.Errorf("%s as %s: the note does not say %q:\n%s", st.line, st.user, st.note, note.String())
		}
	}
}
