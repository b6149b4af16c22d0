package episode

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// What the lesson texts of Part X say beyond their steps, on the real
// server with the client libraries the real CLI uses.

// object-store: a server takes messages of 1 MB by default; objects are cut
// into chunks of 128 KiB, each a message, plus one that describes it.
func TestClaimObjectsAreChunks(t *testing.T) {
	claimIn(t, "object-store", "a server takes 1 MB by default")
	claimIn(t, "object-store", "chunks hold 128 KiB each")
	srv := newServer(t)
	js, nc := claimJS(t, srv)
	ctx := claimCtx(t)
	if got := nc.MaxPayload(); got != 1<<20 {
		t.Errorf("the server's max payload is %d, the lesson says 1 MB", got)
	}
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "files"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		size   int
		chunks uint32
	}{{128 << 10, 1}, {128<<10 + 1, 2}, {300000, 3}} {
		data := bytes.Repeat([]byte("x"), c.size)
		info, err := obs.PutBytes(ctx, "o", data)
		if err != nil {
			t.Fatal(err)
		}
		if info.Chunks != c.chunks {
			t.Errorf("%d bytes take %d chunks, want %d", c.size, info.Chunks, c.chunks)
		}
		back, err := obs.GetBytes(ctx, "o")
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("reading %d bytes back: %v (equal %v)", c.size, err, bytes.Equal(back, data))
		}
	}
	st, err := js.Stream(ctx, "OBJ_files")
	if err != nil {
		t.Fatal(err)
	}
	// The last put replaced the object: its three chunks and its
	// description remain.
	if n := st.CachedInfo().State.Msgs; n != 4 {
		t.Errorf("OBJ_files holds %d messages for an object of three chunks, want 4", n)
	}
}

// services: every instance answers $SRV.PING, $SRV.INFO and $SRV.STATS for
// all services, by name, and by its ID; an error a handler answers with is
// counted, and the last one kept; the instances share the requests, and
// when one stops the other takes them all.
func TestClaimServicesDiscoveryStatsAndSharing(t *testing.T) {
	claimIn(t, "services", "every instance answers requests on `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS`, for all services, for one service by name, or for one instance by its ID")
	claimIn(t, "services", "is counted under **Errors**, and the last error is kept")
	claimIn(t, "services", "Stop one, and the other takes every request.")
	srv := newServer(t)
	_, nc := claimJS(t, srv)
	add := func() (micro.Service, *nats.Conn) {
		conn := connectLab(t, srv)
		svc, err := micro.AddService(conn, micro.Config{Name: "greeter", Version: "1.0.0"})
		if err != nil {
			t.Fatal(err)
		}
		err = svc.AddEndpoint("echo", micro.HandlerFunc(func(r micro.Request) {
			if string(r.Data()) == "fail" {
				_ = r.Error("500", "could not greet", nil)
				return
			}
			_ = r.Respond(r.Data())
		}), micro.WithEndpointSubject("greeter.echo"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Stop() })
		// The service subscribes on its own connection: a round trip on it
		// makes sure the server has its subscriptions before anyone asks.
		if err := conn.Flush(); err != nil {
			t.Fatal(err)
		}
		return svc, conn
	}
	a, aConn := add()
	b, _ := add()
	id := a.Info().ID
	for _, verb := range []string{"PING", "INFO", "STATS"} {
		for _, subject := range []string{"$SRV." + verb, "$SRV." + verb + ".greeter", "$SRV." + verb + ".greeter." + id} {
			if _, err := nc.Request(subject, nil, 2*time.Second); err != nil {
				t.Errorf("%s: %v", subject, err)
			}
		}
	}
	reply, err := nc.Request("greeter.echo", []byte("fail"), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Header.Get(micro.ErrorHeader) != "could not greet" {
		t.Errorf("the error reply's headers: %v", reply.Header)
	}
	for i := 0; i < 40; i++ {
		if _, err := nc.Request("greeter.echo", []byte("hi"), 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	sa, sb := a.Stats(), b.Stats()
	errs := sa.Endpoints[0].NumErrors + sb.Endpoints[0].NumErrors
	last := sa.Endpoints[0].LastError + sb.Endpoints[0].LastError
	if errs != 1 || last != "500:could not greet" {
		t.Errorf("errors counted %d, last %q", errs, last)
	}
	if sa.Endpoints[0].NumRequests == 0 || sb.Endpoints[0].NumRequests == 0 {
		t.Errorf("the instances did not share: %d and %d requests", sa.Endpoints[0].NumRequests, sb.Endpoints[0].NumRequests)
	}
	// The stats as a requester sees them are the same numbers.
	msg, err := nc.Request("$SRV.STATS.greeter."+id, nil, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var st micro.Stats
	if err := json.Unmarshal(msg.Data, &st); err != nil || st.Endpoints[0].NumRequests != a.Stats().Endpoints[0].NumRequests {
		t.Errorf("stats by request: %s (%v)", msg.Data, err)
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	// Once the server has read a's unsubscriptions, b is the only member.
	if err := aConn.Flush(); err != nil {
		t.Fatal(err)
	}
	before := b.Stats().Endpoints[0].NumRequests
	for i := 0; i < 10; i++ {
		if _, err := nc.Request("greeter.echo", []byte("hi"), 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Stats().Endpoints[0].NumRequests - before; got != 10 {
		t.Errorf("with one instance stopped the other took %d of 10", got)
	}
}

// connectLab opens a connection of its own to the lab's server.
func connectLab(t *testing.T, srv interface {
	Connect(string, ...nats.Option) (*nats.Conn, error)
}) *nats.Conn {
	t.Helper()
	nc, err := srv.Connect("claims service")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
