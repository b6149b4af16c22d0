package command_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"reflect"
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

// Differential tests: the same command against the same server, by the real
// nats CLI and by the lab; outputs must match once times and durations are
// normalised.

func realURL(t *testing.T, l *lab) string {
	t.Helper()
	url := l.srv.ClientURL()
	if url == "" {
		t.Skip("the test server has no listener for the real CLI")
	}
	return url
}

func sameOutput(t *testing.T, what, lab, real string) {
	t.Helper()
	if l, r := brokertest.Normalize(lab), brokertest.Normalize(real); l != r {
		t.Errorf("%s differs from the real CLI's\nlab:\n%s\nreal:\n%s", what, l, r)
	}
}

func TestSubReplayMatchesRealCLI(t *testing.T) {
	l := newLab(t)
	url := realURL(t, l)
	seedEvents(t, l)
	// A message with a header and one with an empty body, as well.
	nc := brokertest.Connect(t, l.srv, "setup")
	js, _ := jetstream.New(nc)
	m := nats.NewMsg("events.tagged")
	m.Header.Set("X-Trace", "abc")
	m.Data = []byte("with header\n")
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), "events.empty", nil); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"sub", "events.>", "--all", "--terminate-at-end"},
		{"sub", "events.>", "--all", "-T", "--raw"},
		{"sub", "events.page_loaded", "--last", "-T"},
		{"sub", "--stream", "EVENTS", "--start-sequence", "4", "-T"},
	} {
		real := brokertest.RunRealCLI(t, url, args...)
		if real.ExitCode != 0 {
			t.Fatalf("real CLI %v: exit %d\n%s", args, real.ExitCode, real.Stderr)
		}
		r := l.must(quoteLine(args))
		sameOutput(t, strings.Join(args, " ")+" stdout", r.out, real.Stdout)
		sameOutput(t, strings.Join(args, " ")+" stderr", r.err, real.Stderr)
	}
}

func TestRequestMatchesRealCLI(t *testing.T) {
	l := newLab(t)
	url := realURL(t, l)
	rep, _ := l.background(`reply svc.echo 'echo: {{Request}}'`)
	waitReady(t, rep)
	echo, _ := l.background(`reply svc.echo2 --echo`)
	waitReady(t, echo)
	for _, args := range [][]string{
		{"req", "svc.echo", "hello"},
		{"req", "svc.echo", "hello", "-H", "X:1"},
		{"req", "svc.echo", "hello", "--raw"},
		{"req", "svc.echo", "n {{Count}}", "--count", "2"},
		{"req", "svc.echo2", "hello there"},
	} {
		real := brokertest.RunRealCLI(t, url, args...)
		if real.ExitCode != 0 {
			t.Fatalf("real CLI %v: exit %d\n%s", args, real.ExitCode, real.Stderr)
		}
		r := l.must(quoteLine(args))
		sameOutput(t, strings.Join(args, " ")+" stdout", r.out, real.Stdout)
		// The echo's counter differs between the two runs; the rest must not.
		labErr := strings.NewReplacer("NATS-Reply-Counter: 1", "NATS-Reply-Counter: N", "NATS-Reply-Counter: 0", "NATS-Reply-Counter: N").Replace(r.err)
		realErr := strings.NewReplacer("NATS-Reply-Counter: 1", "NATS-Reply-Counter: N", "NATS-Reply-Counter: 0", "NATS-Reply-Counter: N").Replace(real.Stderr)
		sameOutput(t, strings.Join(args, " ")+" stderr", labErr, realErr)
	}
}

// TestCoreSubMatchesRealCLI runs the real CLI's sub in the background while
// the lab publishes, then the lab's sub the same way.
func TestCoreSubMatchesRealCLI(t *testing.T) {
	l := newLab(t)
	url := realURL(t, l)
	real := startRealSub(t, url, "sub", "greet.*", "--count", "3")
	// The line is printed just before subscribing, and nothing announces
	// a subscription: look at the server's interest until the CLI's is in.
	eventually(t, "the real CLI's subscription", func() bool { return l.srv.Monitor().Interest("greet.hello") > 0 })

	j, labOut := l.background(`sub 'greet.*' --count 3`)
	waitReady(t, j)
	l.must(`pub greet.hello 'Hello World'`)
	l.must(`pub greet.bob 'hi bob' -H X-Trace:abc`)
	l.must(`pub greet.y ''`)
	waitDone(t, j)
	sameOutput(t, "sub greet.* --count 3", labOut.String(), real.output())
}

// realSub is the real CLI's sub (or another command that runs until it
// has what it waits for) against the lab's server.
type realSub struct {
	t      *testing.T
	cmd    *exec.Cmd
	rd     *bufio.Reader
	stdout syncBuf
	status string // the first line on stderr
}

// startRealSub runs the real CLI with args against url, and returns once
// it has printed its first line (sub: what it subscribes to, printed just
// before it does).
func startRealSub(t *testing.T, url string, args ...string) *realSub {
	t.Helper()
	r := &realSub{t: t}
	r.cmd = exec.Command(brokertest.RealCLI(t), append([]string{"--server", url, "--no-context"}, args...)...)
	r.cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdout = &r.stdout
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	r.rd = bufio.NewReader(stderr)
	if r.status, err = r.rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return r
}

// output waits for the real CLI to end and returns what it printed: its
// first line, the rest of stderr, then stdout.
func (r *realSub) output() string {
	r.t.Helper()
	rest, _ := io.ReadAll(r.rd)
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			r.t.Fatalf("real CLI: %v", err)
		}
	case <-time.After(10 * time.Second):
		r.t.Fatal("the real CLI did not end")
	}
	return r.status + string(rest) + r.stdout.String()
}

// quoteLine turns arguments back into a lab command line.
func quoteLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// pullSubject is a pull's subject, whose consumer name is made up anew at
// each run.
var pullSubject = regexp.MustCompile(`MSG\.NEXT\.ORDERS\.[A-Za-z0-9]+`)

// handlerLine is natscli's error handler's line: its process exits on the
// same error, and whether the handler gets the line in first varies from
// run to run.
const handlerLine = ">>> Unexpected NATS error: "

// withoutHandlerLine drops handlerLine's lines, and says how many there were.
func withoutHandlerLine(s string) (string, int) {
	var kept []string
	n := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, handlerLine) {
			n++
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, ""), n
}

// TestSubFromStreamRefusedThePullAsTheRealCLI: natscli reads a stream
// through a consumer it pulls from; for a user the server refuses the pull
// ($JS.API.CONSUMER.MSG.NEXT.>), it prints the violation and exits 1,
// whatever the stream holds. The lab says the same, and receives nothing.
func TestSubFromStreamRefusedThePullAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	labSrv, realSrv := conRefusalServer(t), conRefusalServer(t)
	for _, line := range []string{
		"sub orders.new --all",
		"sub --stream ORDERS",
		"sub orders.new --last",
		"sub orders.new --all -T --count 2",
		"sub --stream ORDERS --durable C",
		"sub --stream ORDERS --durable NEW",
	} {
		dep, err := broker.Dial(broker.ExternalOptions{URL: labSrv.ClientURL(), User: "nopull", Password: "nopull-pw"})
		if err != nil {
			t.Fatal(err)
		}
		s := command.NewSession(dep, command.WithTimeout(2*time.Second))
		var out, errb, note syncBuf
		// A sub that is let read waits for more: the deadline ends it, and
		// what it printed differs from the real CLI's.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		labErr := s.RunStreams(ctx, line, command.Streams{Out: &out, Err: &errb, Note: &note})
		cancel()
		command.ReportError(command.Streams{Err: &errb, Note: &note}, labErr)
		s.Close()
		words, err := command.SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		real := brokertest.RunRealCLI(t, realSrv.ClientURL(), append([]string{"--user", "nopull", "--password", "nopull-pw"}, words...)...)
		if real.ExitCode != 1 || labErr == nil {
			t.Errorf("%s: the lab's error %v, the real CLI's exit code %d (want 1)", line, labErr, real.ExitCode)
		}
		realErr, _ := withoutHandlerLine(real.Stderr)
		labStderr, n := withoutHandlerLine(errb.String())
		if n != 1 {
			t.Errorf("%s: the lab printed natscli's handler line %d times, want once:\n%s", line, n, errb.String())
		}
		comparable := func(s string) string { return pullSubject.ReplaceAllString(conComparable(s), "MSG.NEXT.ORDERS.NAME") }
		if d := brokertest.DiffLines(comparable(realErr), comparable(labStderr)); d != "" {
			t.Errorf("%s: stderr differs from the real CLI's (-real +lab):\n%s", line, d)
		}
		if d := brokertest.DiffLines(comparable(real.Stdout), comparable(out.String())); d != "" {
			t.Errorf("%s: stdout differs from the real CLI's (-real +lab):\n%s", line, d)
		}
	}
}

// ordersConsumers lists ORDERS' consumers.
func ordersConsumers(t *testing.T, js jetstream.JetStream) []*jetstream.ConsumerInfo {
	t.Helper()
	st, err := js.Stream(context.Background(), "ORDERS")
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.ConsumerInfo
	for ci := range st.ListConsumers(context.Background()).Info() {
		out = append(out, ci)
	}
	return out
}

// removeOrdersConsumers removes what a read left behind (an ephemeral
// consumer outlives its reader by its inactive threshold).
func removeOrdersConsumers(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	for _, ci := range ordersConsumers(t, js) {
		if err := js.DeleteConsumer(context.Background(), "ORDERS", ci.Name); err != nil {
			t.Fatal(err)
		}
	}
}

// theOnlyConsumer is the configuration of ORDERS' one consumer, with what
// differs from one read to the next (its name, a start time) left out.
func theOnlyConsumer(t *testing.T, js jetstream.JetStream) jetstream.ConsumerConfig {
	t.Helper()
	var got []jetstream.ConsumerConfig
	for _, ci := range ordersConsumers(t, js) {
		got = append(got, ci.Config)
	}
	if len(got) != 1 {
		t.Fatalf("ORDERS has %d consumers, want the sub's alone", len(got))
	}
	cfg := got[0]
	cfg.Name, cfg.OptStartTime = "", nil
	return cfg
}

// TestSubReadsThroughTheRealCLIsConsumer: reading a stream, sub makes the
// consumer natscli makes (pulled from, no acks, filtered on the subject
// or on ">"), so that consumer ls and info, the scenes and the lessons
// show what a learner running the real CLI sees.
func TestSubReadsThroughTheRealCLIsConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	url := realURL(t, l)
	conFreshOrders(t, l.srv)
	nc := brokertest.Connect(t, l.srv, "look")
	js, _ := jetstream.New(nc)
	for _, line := range []string{
		"sub orders.new --all",
		"sub --stream ORDERS --last",
		"sub orders.new --since 1h --headers-only",
		"sub --stream ORDERS --start-sequence 3 --subjects-only",
		"sub orders.new --last-per-subject",
	} {
		words, err := command.SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		read := func(out func() string) bool { return strings.Contains(out(), "pending: 0 ") }
		real := brokertest.StartRealCLI(t, brokertest.RealEnv{URL: url}, append([]string{"--no-context"}, words...)...)
		if !real.AwaitOutput(10*time.Second, func(stdout, _ string) bool { return read(func() string { return stdout }) }) {
			out, errs := real.Output()
			t.Fatalf("%s: the real CLI never read the stream's end\n%s%s", line, errs, out)
		}
		want := theOnlyConsumer(t, js)
		real.Stop()
		removeOrdersConsumers(t, js)

		j, out := l.background(line)
		l.await(line+" to read the stream's end", func() bool { return read(out.String) })
		got := theOnlyConsumer(t, js)
		j.Stop()
		<-j.Done()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the lab's consumer\n%+v\nthe real CLI's\n%+v", line, got, want)
		}
		removeOrdersConsumers(t, js)
	}
}

// natscli's sub gives a --translate command no stream: {{Stream}} is empty
// whether the message came from a consumer, a direct get or a core
// subscription (only stream view fills it in).
func TestSubTranslateStreamMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	brokertest.CompareScript(t, brokertest.Script{
		Name: "sub --translate with {{Stream}}",
		Lines: []string{
			"nats stream add T --subjects 't.>' --defaults",
			"nats pub t.a hello",
			"nats sub 't.>' --all -T --translate 'echo {{Subject}} in [{{Stream}}]'",
			"nats sub 't.>' --all -T --raw --translate 'echo {{Subject}} in [{{Stream}}]'",
			// natscli's direct read ignores -T, and prints the server's
			// headers in random order: one message, its body alone.
			"nats sub 't.>' --all --count 1 --direct --raw --translate 'echo {{Subject}} in [{{Stream}}]'",
		},
	})
}
