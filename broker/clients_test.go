package broker_test

import (
	"bufio"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// rawClient is a client process's socket, held by the test: the server
// notices it closed only when the test closes it.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
}

// dialRaw connects to a server's client URL and subscribes to subjects,
// speaking the NATS protocol itself; it returns once the server has them.
func dialRaw(t *testing.T, clientURL string, subjects ...string) *rawClient {
	t.Helper()
	u, err := url.Parse(clientURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{conn: conn, r: bufio.NewReader(conn)}
	c.expect(t, "INFO ")
	msg := "CONNECT {\"verbose\":false,\"pedantic\":false}\r\n"
	for i, s := range subjects {
		msg += "SUB " + s + " " + string(rune('1'+i)) + "\r\n"
	}
	if _, err := conn.Write([]byte(msg + "PING\r\n")); err != nil {
		t.Fatal(err)
	}
	c.expect(t, "PONG")
	return c
}

func (c *rawClient) expect(t *testing.T, prefix string) {
	t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := c.r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, prefix) {
		t.Fatalf("the server said %q (%v), want %s…", line, err, prefix)
	}
}

func (c *rawClient) local(t *testing.T) []netip.AddrPort {
	t.Helper()
	a, err := netip.ParseAddrPort(c.conn.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	return []netip.AddrPort{a}
}

// A client process's connections, found by their addresses, are gone once
// the server has dropped them and their subscriptions: not while the
// socket is open, and by the time Gone returns after it closed.
func TestClientsGoneOnceTheServerDroppedThem(t *testing.T) {
	s := brokertest.Start(t)
	c := dialRaw(t, s.ClientURL(), "greet")
	clients := broker.ClientsFrom(s, c.local(t))
	if clients.Gone(0) {
		t.Fatal("gone while the client is connected and subscribed")
	}
	c.conn.Close()
	if !clients.Gone(5 * time.Second) {
		t.Fatal("the server never dropped the closed client")
	}
	if n := s.Monitor().Listeners("greet"); n != 0 {
		t.Errorf("Gone returned while the server still had %d subscriptions to greet", n)
	}
	if other := broker.ClientsFrom(s, []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}); !other.Gone(0) {
		t.Error("addresses of no client's are not gone")
	}
}

// For a client of the leaf node, Gone waits too until the lab's server has
// been told that its interest went, unless another client of the leaf
// still has it. Several rounds: the lab's server often hears in time on
// its own.
func TestClientsOfTheLeafGoneOnceTheLabsServerForgotThem(t *testing.T) {
	s := brokertest.Start(t)
	leaf := s.Leaf()
	if _, _, err := leaf.Start(); err != nil {
		t.Fatal(err)
	}
	url := leaf.Status().URL
	other := dialRaw(t, url, "news")
	for round := range 10 {
		c := dialRaw(t, url, "greet", "news")
		if !leaf.HubHears([]string{"greet", "news"}, 5*time.Second) {
			t.Fatal("the lab's server never heard of the leaf's clients")
		}
		clients := broker.ClientsFrom(s, c.local(t))
		if clients.Gone(0) {
			t.Fatal("gone while the leaf's client is connected and subscribed")
		}
		c.conn.Close()
		if !clients.Gone(5 * time.Second) {
			t.Fatal("never gone: news, which another client of the leaf still has, must not be waited for")
		}
		// (the server's list of subscriptions leaves out a leaf's: ask
		// whether a message would go anywhere)
		if s.Monitor().Interest("greet") != 0 {
			t.Fatalf("round %d: Gone returned while the lab's server still routed greet to the leaf", round)
		}
		if n := leaf.Monitor().Listeners("greet"); n != 0 {
			t.Fatalf("round %d: Gone returned while the leaf still had %d subscriptions to greet", round, n)
		}
		if s.Monitor().Interest("news") == 0 {
			t.Fatalf("round %d: the other client's interest in news is gone from the lab's server", round)
		}
	}
	other.conn.Close()
}
