package brokertest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NATSServerBinary returns a standalone nats-server, the version go.mod
// pins, built once per test process: the peer benchmarks measure against.
func NATSServerBinary(t testing.TB) string {
	t.Helper()
	return Build(t, "github.com/nats-io/nats-server/v2")
}

// StartStandalone runs `nats-server -js` as a separate process on a free
// loopback port with a store in t.TempDir(), and returns its URL. It is
// stopped when the test ends.
func StartStandalone(t testing.TB) string {
	t.Helper()
	bin := NATSServerBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir())
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The server logs to stderr, and says when it takes connections.
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "Server is ready") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("standalone nats-server ended before it was ready")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("standalone nats-server did not say it was ready")
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", port)
}
