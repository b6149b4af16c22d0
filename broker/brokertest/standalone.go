package brokertest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := nats.Connect(url)
		if err == nil {
			nc.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("standalone nats-server did not start: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
