package broker

import (
	"github.com/nats-io/nats.go"
)

// Deployment is a NATS deployment the lab talks to.
type Deployment interface {
	// Connect opens a new client connection named name (the name shows in
	// the server's connection list and log).
	Connect(name string, extra ...nats.Option) (*nats.Conn, error)
	// ClientURL is what a real nats client should use to reach the
	// deployment, or "" when nothing outside this process can.
	ClientURL() string
	// Describe says in a few words what this is, for status lines.
	Describe() string
	// Embedded returns the embedded server, or nil for an external deployment.
	Embedded() *Server
}

// Stats are the live facts the status bar shows.
type Stats struct {
	JetStream   bool
	Streams     int
	Consumers   int
	Connections int // -1 when the deployment does not say
}
