package broker_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
)

func addStreamAndPublish(t *testing.T, nc *nats.Conn, n int) {
	t.Helper()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := js.Publish(ctx, "events.x", []byte("hi")); err != nil {
			t.Fatal(err)
		}
	}
}

func streamMsgs(t *testing.T, nc *nats.Conn) uint64 {
	t.Helper()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	return st.CachedInfo().State.Msgs
}

func TestStartServesJetStreamOnLoopback(t *testing.T) {
	s := brokertest.Start(t)
	if !s.Running() || !s.JetStream() {
		t.Fatal("server should run with JetStream")
	}
	url := s.ClientURL()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || strings.HasSuffix(url, ":4222") {
		t.Fatalf("want a random loopback URL, got %q", url)
	}
	// A real TCP client, as the nats CLI would be.
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	addStreamAndPublish(t, nc, 2)
	if got := streamMsgs(t, nc); got != 2 {
		t.Fatalf("want 2 messages, got %d", got)
	}
	if !s.Log().Contains("Starting JetStream") || !s.Log().Contains("Server is ready") {
		t.Fatalf("log should hold the startup lines, got:\n%s", strings.Join(s.Log().Lines(), "\n"))
	}
	st := s.Stats()
	if st.Streams != 1 || st.Connections < 1 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestRestartKeepsDataAndReconnectsInProcessClients(t *testing.T) {
	s := brokertest.Start(t)
	nc := brokertest.Connect(t, s, "test")
	addStreamAndPublish(t, nc, 3)
	port := s.ClientURL()
	if err := s.Restart(true); err != nil {
		t.Fatal(err)
	}
	if s.ClientURL() != port {
		t.Fatalf("restart moved the port: %s -> %s", port, s.ClientURL())
	}
	// IsConnected alone can still be true for the old server, before the
	// client has noticed the restart: wait until it is on the new one.
	if !broker.WaitFor(5*time.Second, func() bool { return s.Attached(nc) }) {
		t.Fatal("the client did not reconnect after the restart")
	}
	if got := streamMsgs(t, nc); got != 3 {
		t.Fatalf("after restart want 3 messages, got %d", got)
	}
}

func TestJetStreamOffAndOn(t *testing.T) {
	s := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, s, "test")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err == nil {
		t.Fatal("JetStream should be off")
	}
	if err := s.Restart(true); err != nil {
		t.Fatal(err)
	}
	if !s.JetStream() || !s.NATS().JetStreamEnabled() {
		t.Fatal("JetStream should be on after Restart(true)")
	}
	nc2 := brokertest.Connect(t, s, "test2")
	js2, _ := jetstream.New(nc2)
	if _, err := js2.AccountInfo(ctx); err != nil {
		t.Fatalf("JetStream should answer: %v", err)
	}
}

func TestStoreLockRefusesSecondServer(t *testing.T) {
	s := brokertest.Start(t)
	_, err := broker.Start(broker.Options{StoreDir: s.StoreDir(), JetStream: true, Listen: "none"})
	if err == nil {
		t.Fatal("second server on the same store should be refused")
	}
	if !strings.Contains(err.Error(), broker.LockFile) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("error should name the lock: %v", err)
	}
	// Once the first is gone, the store is free again.
	dir := s.StoreDir()
	s.Shutdown()
	s2, err := broker.Start(broker.Options{StoreDir: dir, JetStream: true, Listen: "none"})
	if err != nil {
		t.Fatalf("store should be free after shutdown: %v", err)
	}
	s2.Shutdown()
}

func TestBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().String()
	// Asked for explicitly: a clear refusal.
	_, err = broker.Start(broker.Options{StoreDir: t.TempDir(), Listen: busy})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("want a port-in-use error, got %v", err)
	}
}

func TestDefaultListenMovesOffABusyPort(t *testing.T) {
	// The default is 4222; another server may well hold it. Hold it ourselves
	// if it is free, so the fallback is exercised either way.
	if l, err := net.Listen("tcp", broker.DefaultListen); err == nil {
		defer l.Close()
	}
	s, err := broker.Start(broker.Options{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if strings.HasSuffix(s.ClientURL(), ":4222") || !strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:") {
		t.Fatalf("want a free loopback port, got %s", s.ClientURL())
	}
	if !strings.Contains(s.Notice(), "4222") {
		t.Fatalf("notice should say why: %q", s.Notice())
	}
}

func TestNonLoopbackNeedsAuth(t *testing.T) {
	_, err := broker.Start(broker.Options{StoreDir: t.TempDir(), Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("want a refusal naming --token, got %v", err)
	}
	_, err = broker.Start(broker.Options{StoreDir: t.TempDir(), Listen: "0.0.0.0:0", User: "a"})
	if err == nil {
		t.Fatal("user without password should be refused")
	}
}

func TestTokenIsRequiredOfEveryClient(t *testing.T) {
	s, err := broker.Start(broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "127.0.0.1:0", Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if nc, err := nats.Connect(s.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("a client without the token should be refused")
	}
	nc, err := nats.Connect(s.ClientURL(), nats.Token("s3cret"))
	if err != nil {
		t.Fatalf("a client with the token should connect: %v", err)
	}
	nc.Close()
	// The lab's own in-process clients carry the token themselves.
	lab := brokertest.Connect(t, s, "lab")
	if !lab.IsConnected() {
		t.Fatal("lab client should connect")
	}
}

func TestInProcessOnlyHasNoListener(t *testing.T) {
	s := brokertest.Start(t, brokertest.InProcessOnly())
	if s.ClientURL() != "" || s.Describe() != "in-process only" {
		t.Fatalf("no URL expected, got %q", s.ClientURL())
	}
	nc := brokertest.Connect(t, s, "lab")
	addStreamAndPublish(t, nc, 1)
}

func TestExternalDeployment(t *testing.T) {
	existing := brokertest.Start(t) // stands in for an existing deployment
	ext, err := broker.Dial(broker.ExternalOptions{URL: existing.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Own() || ext.Monitor() != nil || ext.Log() != nil || ext.Cluster() != nil {
		t.Fatal("an external deployment is not the lab's own server")
	}
	if err := ext.Restart(true); !errors.Is(err, broker.ErrNotEmbedded) {
		t.Fatalf("restarting an external deployment: %v, want ErrNotEmbedded", err)
	}
	nc := brokertest.Connect(t, ext, "lab")
	addStreamAndPublish(t, nc, 4)
	if got := streamMsgs(t, brokertest.Connect(t, existing, "check")); got != 4 {
		t.Fatalf("messages should land in the existing deployment, got %d", got)
	}
	if _, err := broker.Dial(broker.ExternalOptions{URL: "nats://127.0.0.1:1"}); err == nil {
		t.Fatal("dialing nothing should fail")
	}
}

func TestServeStopsCleanly(t *testing.T) {
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- broker.Serve(ctx, broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "127.0.0.1:0"}, &out)
	}()
	if !out.waitFor("serving NATS at nats://127.0.0.1:", 10*time.Second) {
		t.Fatalf("serve did not say where it serves:\n%s", out.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Starting JetStream", "Server is ready", "serving NATS at nats://127.0.0.1:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve output lacks %q:\n%s", want, out.String())
		}
	}
}

func BenchmarkStartFreshStore(b *testing.B) {
	for b.Loop() {
		s, err := broker.Start(broker.Options{StoreDir: b.TempDir(), JetStream: true, Listen: "none"})
		if err != nil {
			b.Fatal(err)
		}
		s.Shutdown()
	}
}

func TestAreasKeepLessonsApartFromTheSandbox(t *testing.T) {
	s := brokertest.Start(t)
	nc := brokertest.Connect(t, s, "test")
	addStreamAndPublish(t, nc, 2) // the sandbox's EVENTS
	if err := s.UseArea("lessons/first-stream", true, true); err != nil {
		t.Fatal(err)
	}
	if s.Area() != "lessons/first-stream" || !strings.Contains(s.JetStreamDir(), "lessons") {
		t.Fatalf("area not switched: %q %q", s.Area(), s.JetStreamDir())
	}
	nc2 := brokertest.Connect(t, s, "lesson")
	addStreamAndPublish(t, nc2, 5) // the lesson's own EVENTS
	if got := streamMsgs(t, nc2); got != 5 {
		t.Fatalf("lesson stream: want 5, got %d", got)
	}
	if err := s.UseArea("", true, false); err != nil {
		t.Fatal(err)
	}
	nc3 := brokertest.Connect(t, s, "back")
	if got := streamMsgs(t, nc3); got != 2 {
		t.Fatalf("sandbox should be untouched: want 2, got %d", got)
	}
	if err := s.UseArea("../x", true, false); err == nil {
		t.Fatal("an area outside the store must be refused")
	}
}

// Many labs in one process (a workshop) each cap their JetStream: a stream
// that asks for more than the cap is refused, one within it is made.
func TestJetStreamCapsPerServer(t *testing.T) {
	s, err := broker.Start(broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "none", MaxMemory: 4 << 20, MaxStore: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nc := brokertest.Connect(t, s, "test")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BIG", Subjects: []string{"big"}, Storage: jetstream.MemoryStorage, MaxBytes: 16 << 20}); err == nil {
		t.Fatal("a 16 MiB memory stream was made under a 4 MiB cap")
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BIGFILE", Subjects: []string{"bigfile"}, MaxBytes: 32 << 20}); err == nil {
		t.Fatal("a 32 MiB file stream was made under an 8 MiB cap")
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "SMALL", Subjects: []string{"small"}, Storage: jetstream.MemoryStorage, MaxBytes: 1 << 20}); err != nil {
		t.Fatalf("a 1 MiB memory stream under a 4 MiB cap: %v", err)
	}
}

// A deployment that cannot be reached gets one line that says what to
// check: the address where nothing answers, the credentials where the
// server refused them, the scheme where a ws:// URL meets a NATS port (not
// the server's INFO, which nats.go's error quotes whole).
func TestDialSaysWhatToCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := l.Addr().String()
	l.Close()
	guarded := brokertest.Start(t, brokertest.WithToken("s3cret"))
	hostPort := strings.TrimPrefix(guarded.ClientURL(), "nats://")
	for _, tc := range []struct {
		name      string
		opts      broker.ExternalOptions
		want, not []string
	}{
		{"nothing listens", broker.ExternalOptions{URL: "nats://" + nothing}, []string{"cannot connect to nats://" + nothing, "nothing answers there", "host and port"}, []string{"credentials"}},
		{"no credentials", broker.ExternalOptions{URL: "nats://" + hostPort}, []string{"Authorization Violation", "asks for credentials, and none were given", "--token"}, []string{"refused the credentials"}},
		{"a wrong token", broker.ExternalOptions{URL: "nats://" + hostPort, Token: "wrong"}, []string{"Authorization Violation", "refused the credentials", "--token"}, []string{"nothing answers"}},
		{"a ws URL for a NATS port", broker.ExternalOptions{URL: "ws://" + hostPort, Token: "s3cret"}, []string{"cannot connect to ws://" + hostPort, "use nats://"}, []string{"server_id", "credentials"}},
	} {
		_, err := broker.Dial(tc.opts)
		if err == nil {
			t.Errorf("%s: dialing should fail", tc.name)
			continue
		}
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(msg, n) {
				t.Errorf("%s: %q says %q", tc.name, msg, n)
			}
		}
	}
}
