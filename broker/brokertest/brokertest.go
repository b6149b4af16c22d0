// Package brokertest starts real embedded NATS servers for tests: a fresh
// store in t.TempDir(), a random loopback port (never 4222), and cleanup when
// the test ends. There is no mock of NATS anywhere in natslab's tests.
//
// It imports broker only, never lab or scenes.
package brokertest

import (
	"testing"

	"github.com/nats-io/nats.go"

	"natslab/broker"
)

// Option adjusts the options of a test server.
type Option func(*broker.Options)

// WithoutJetStream starts the server with JetStream off.
func WithoutJetStream() Option { return func(o *broker.Options) { o.JetStream = false } }

// InProcessOnly starts the server with no TCP listener.
func InProcessOnly() Option { return func(o *broker.Options) { o.Listen = "none" } }

// Clustered starts the three-node JetStream cluster (n1, n2, n3) instead
// of the single server.
func Clustered() Option { return func(o *broker.Options) { o.Cluster = broker.ClusterSize } }

// WithStore uses dir as the store (to restart on a store a test kept).
func WithStore(dir string) Option { return func(o *broker.Options) { o.StoreDir = dir } }

// WithToken makes every client present token.
func WithToken(token string) Option { return func(o *broker.Options) { o.Token = token } }

// Start runs an embedded server with JetStream on a random loopback port.
func Start(t testing.TB, opts ...Option) *broker.Server {
	t.Helper()
	o := broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "127.0.0.1:0"}
	for _, f := range opts {
		f(&o)
	}
	if o.Cluster > 1 {
		holdClusterLock(t)
	}
	s, err := broker.Start(o)
	if err != nil {
		t.Fatalf("starting the embedded server: %v", err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// Connect opens an in-process connection closed at cleanup.
func Connect(t testing.TB, d broker.Deployment, name string) *nats.Conn {
	t.Helper()
	nc, err := d.Connect(name)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}
