package command_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// freePorts finds n loopback ports free right now, for the cluster's
// routes, which must all be known before the servers start.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startCluster runs three JetStream servers routed to each other in this
// process and waits until JetStream answers.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	ports := freePorts(t, 3)
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var servers []*server.Server
	for i, p := range ports {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoSigs:     true,
			Cluster:    server.ClusterOpts{Name: "lab", Host: "127.0.0.1", Port: p},
			Routes:     routes,
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		servers = append(servers, s)
	}
	for _, s := range servers {
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("a cluster node did not start")
		}
	}
	nc, err := nats.Connect(servers[0].ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			return servers
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's JetStream never answered: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A replicated stream's info has the real CLI's Cluster Information block
// (leader and replicas), and stream report its Replicas column.
func TestStreamInfoInAClusterMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster and the real nats CLI")
	}
	servers := startCluster(t)
	url := servers[0].ClientURL()
	dep, err := broker.Dial(broker.ExternalOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	s := command.NewSession(dep, command.WithTimeout(5*time.Second))
	t.Cleanup(s.Close)
	l := &lab{t: t, s: s}

	// The meta group may still be gathering its peers: retry while the
	// server says it has no suitable peers.
	deadline := time.Now().Add(20 * time.Second)
	for r := l.run(`stream add R3 --subjects 'r3.>' --replicas 3 --defaults`); r.e != nil; r = l.run(`stream add R3 --subjects 'r3.>' --replicas 3 --defaults`) {
		if !strings.Contains(r.e.Error(), "peer") || time.Now().After(deadline) {
			t.Fatalf("stream add R3: %v", r.e)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A leader is elected a moment before its interest in the subjects has
	// reached every server; nothing announces that it has.
	if !broker.WaitFor(10*time.Second, func() bool {
		for _, srv := range servers {
			if !srv.GlobalAccount().SubscriptionInterest("r3.a") {
				return false
			}
		}
		return true
	}) {
		t.Fatal("stream R3 is not reachable from every server")
	}
	l.must(`pub r3.a hello -J`)
	// Wait until every replica has caught up, so both reads see the same.
	for deadline := time.Now().Add(20 * time.Second); strings.Count(l.must("stream info R3").out, ", current,") != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the replicas never caught up:\n%s", l.must("stream info R3").out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	lab := l.must("stream info R3")
	wantLines(t, "info", lab.out, "Cluster Information:\n", "Name: lab\n", "Leader: n", "Replica: n", ", current, seen ", "Replicas: 3\n")
	real := brokertest.RunRealCLI(t, url, "stream", "info", "R3")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	streamCompare(t, "stream info R3", "stdout", lab.out, real.Stdout)

	rep := l.must("stream report")
	wantLines(t, "report", rep.out, "*") // the leader is marked
	real = brokertest.RunRealCLI(t, url, "stream", "report")
	streamCompare(t, "stream report", "stdout", rep.out, real.Stdout)
	wantLines(t, "report -l", l.must("stream report -l").out, "RAFT Leader Report", "│ lab ")
	l.fails(`stream add R5 --subjects 'r5.>' --replicas 5 --defaults`, "no 5 servers", "fewer --replicas")
}
