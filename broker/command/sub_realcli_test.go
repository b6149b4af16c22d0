package command_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
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
	cmd := exec.Command(brokertest.RealCLI(t), "--server", url, "--no-context", "sub", "greet.*", "--count", "3")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	rd := bufio.NewReader(stderr)
	status, err := rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	// The line is printed just before subscribing, and nothing announces
	// a subscription: look at the server's interest until the CLI's is in.
	eventually(t, "the real CLI's subscription", func() bool { return l.srv.Monitor().Interest("greet.hello") > 0 })

	j, labOut := l.background(`sub 'greet.*' --count 3`)
	waitReady(t, j)
	l.must(`pub greet.hello 'Hello World'`)
	l.must(`pub greet.bob 'hi bob' -H X-Trace:abc`)
	l.must(`pub greet.y ''`)
	waitDone(t, j)
	rest, _ := io.ReadAll(rd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("real CLI: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the real CLI did not end")
	}
	sameOutput(t, "sub greet.* --count 3", labOut.String(), status+string(rest)+stdout.String())
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
