package command_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"natslab/broker/brokertest"
)

// TestSubDirectSinceAsTheRealCLI: natscli's direct read with --since
// prints the first message since then and goes on from where --new would
// start, one further: the rest of what the stream held, and the first
// message stored after, it never prints. The lab prints the same, the real
// CLI and the lab reading the same stream while three more are published.
func TestSubDirectSinceAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	url := realURL(t, l)
	l.must(`stream add S --subjects 's.>' --defaults`)
	for _, m := range []string{"m1", "m2", "m3"} {
		l.must(`pub s.a ` + m)
	}
	const line = `sub --stream S --direct --since 1h --count 3 --raw`
	cmd := exec.Command(brokertest.RealCLI(t), "--server", url, "--no-context", "sub", "--stream", "S", "--direct", "--since", "1h", "--count", "3", "--raw")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuf
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	rd := bufio.NewReader(stderr)
	// The real CLI says what it reads once it has read where the stream
	// ends.
	status, err := rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	j, labOut := l.background(line)
	waitReady(t, j)
	for _, m := range []string{"m4", "m5", "m6"} {
		l.must(`pub s.a ` + m)
	}
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
	sameOutput(t, line, labOut.String(), status+string(rest)+stdout.String())
}
