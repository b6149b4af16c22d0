package realcli_test

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/brokertest"
	"natslab/broker/realcli"
)

// firstWrite closes written at the first write.
type firstWrite struct {
	once    sync.Once
	written chan struct{}
}

func (f *firstWrite) Write(p []byte) (int, error) {
	f.once.Do(func() { close(f.written) })
	return len(p), nil
}

// A running child says where its connections come from, as the server it
// is connected to lists them; asked once more just before it is stopped;
// never once it has ended.
func TestProbeFindsTheChildsConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	srv := brokertest.Start(t)
	var mu sync.Mutex
	var found [][]netip.AddrPort
	probe := &realcli.Probe{Found: func(local []netip.AddrPort) {
		mu.Lock()
		found = append(found, local)
		mu.Unlock()
	}}
	out := &firstWrite{written: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- realcli.Child{Args: []string{"sub", "greet"}, Conn: realcli.Conn{URL: srv.ClientURL()}, Home: t.TempDir(), Stdout: out, Stderr: out, Probe: probe}.Run(ctx)
	}()
	select {
	case <-out.written:
	case err := <-done:
		t.Fatalf("the child ended before it printed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the child never printed")
	}
	probe.Look()
	cz, err := srv.Monitor().Connz(&server.ConnzOptions{Limit: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(found) != 1 {
		t.Fatalf("one look, %d answers", len(found))
	}
	var cli []string
	for _, ci := range cz.Conns {
		for _, a := range found[0] {
			if a.Addr().String() == ci.IP && int(a.Port()) == ci.Port {
				cli = append(cli, ci.Name)
			}
		}
	}
	mu.Unlock()
	if len(cli) != 1 || !strings.HasPrefix(cli[0], "NATS CLI Version") {
		t.Fatalf("the child's addresses %v name the server's connections %v, want the real CLI's one", found[0], cli)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("stopped, the child's run ended with %v", err)
	}
	mu.Lock()
	n := len(found)
	same := n == 2 && slices.Equal(found[1], found[0])
	mu.Unlock()
	if !same {
		t.Fatalf("%d answers after the stop, want one more just before the child was interrupted, still connected", n)
	}
	probe.Look()
	mu.Lock()
	defer mu.Unlock()
	if len(found) != 2 {
		t.Errorf("a child that has ended answered")
	}
}
