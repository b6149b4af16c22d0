package broker

import (
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Deployment is the NATS deployment the lab talks to: the lab's own embedded
// server (*Server) or an existing deployment (*External). Callers ask it what
// they need and never which kind it is. What only the lab's own server can do
// (restart it, switch JetStream, move it to a lesson's store area, read its
// log or its connection list) answers ErrNotEmbedded, nil or a zero value on
// an external deployment, as each method says; Own tells the two apart where
// the words a learner reads differ.
type Deployment interface {
	// Connect opens a new client connection named name (the name shows in
	// the server's connection list and log): the lab's own, which gets in
	// whatever a lesson's configuration asks of clients.
	Connect(name string, extra ...nats.Option) (*nats.Conn, error)
	// ConnectAs opens a connection that presents cred and nothing more, as
	// a learner's client does: refused where the server refuses cred.
	ConnectAs(name string, cred Credentials, extra ...nats.Option) (*nats.Conn, error)
	// ClientURL is what a real nats client should use to reach the
	// deployment, or "" when nothing outside this process can.
	ClientURL() string
	// Credentials are what a client outside this process presents along
	// with ClientURL (a real nats CLI started by the lab). Never print them.
	Credentials() Credentials
	// Describe says in a few words what this is, for status lines.
	Describe() string
	// Access says where real clients connect from this machine and from a
	// room, and what they must present, for showing: never a secret.
	Access() Access
	// Own reports whether this is the lab's own embedded server.
	Own() bool

	// Running reports whether the deployment's servers accept clients (with
	// a cluster, whether any node does). An external deployment is taken
	// as running: its clients find out when it is not.
	Running() bool
	// JetStream reports whether the lab's server runs JetStream; false for
	// an external deployment, whose JetStream is its accounts' business
	// (ask its JetStream API).
	JetStream() bool
	// Stats counts streams, consumers and connections.
	Stats() Stats
	// Changed returns a channel closed at the next change of state: the
	// lab's server started, stopped, restarted or switched JetStream, a
	// node stopped or started. An external deployment's never closes.
	Changed() <-chan struct{}
	// Monitor asks the server running now about itself (with a cluster,
	// the first node running); nil while it is stopped, and for an
	// external deployment.
	Monitor() *Monitor
	// Monitors asks each server running now: every node of a cluster, the
	// one server otherwise; none while stopped or for an external
	// deployment.
	Monitors() []*Monitor
	// Log is the lab's server's captured log; nil for an external deployment.
	Log() *LogBuffer
	// Notice is a remark about how the server was started that the user
	// should see (a busy port moved), or "".
	Notice() string
	// Version is the lab's nats-server's version; "" for an external
	// deployment.
	Version() string

	// StoreDir is the lab's absolute store directory; "" for an external
	// deployment.
	StoreDir() string
	// JetStreamDir is where the lab's server keeps its JetStream store now;
	// "" for an external deployment.
	JetStreamDir() string
	// Area is the store area in use: "" for the sandbox, else e.g.
	// "lessons/first-stream". Always "" for an external deployment.
	Area() string
	// UseArea restarts the lab's server on another area of its store (see
	// Server.UseArea); ErrNotEmbedded for an external deployment.
	UseArea(area string, jetstream, fresh bool) error
	// Restart stops the lab's server and starts it again on the same store
	// and port, with JetStream on or off; ErrNotEmbedded for an external
	// deployment.
	Restart(jetstream bool) error
	// Reset erases every stream, consumer and bucket of the lab's server
	// and starts it again; ErrNotEmbedded for an external deployment.
	Reset() error
	// Configure runs the lab's server with a lesson's configuration, in
	// nats-server's syntax ("" for the lab's plain settings); ReloadConfig
	// reads the configuration file again; Config is the file's path and
	// text (see config.go). The configuration belongs to the store area:
	// UseArea starts another one plain. ErrNotEmbedded (and "") for an
	// external deployment; ErrClusterConfig with --cluster.
	Configure(conf string) error
	ReloadConfig() error
	Config() (path, text string)
	// Cluster is the lab's three-node cluster (natslab --cluster 3), or nil
	// for a single server and an external deployment.
	Cluster() Cluster
	// Leaf is the lab's leaf node, a second server in this process that
	// joins the lab's (leaf.go), started or not; nil with a cluster and
	// for an external deployment.
	Leaf() *Leaf

	// Close releases the deployment: the embedded server stops for good and
	// its store is unlocked; an external deployment is left running.
	Close()
}

// Credentials are a client's user and password, token, or credentials
// file: at most one kind is set, or none when the deployment asks for none.
type Credentials struct {
	User, Password string
	Token          string
	Creds          string // a .creds file
}

// Cluster is what the node verbs and the replicas scene do with the lab's
// three-node cluster: stop and start one node, and ask each node what it
// holds and leads. Everything comes from the nodes themselves, in-process.
type Cluster interface {
	// Nodes reports every node, in order.
	Nodes() []NodeStatus
	// NodeUp reports whether the named node is running.
	NodeUp(name string) bool
	// StopNode shuts one node down gracefully (see Server.StopNode).
	StopNode(name string) error
	// StartNode starts a stopped node again (see Server.StartNode).
	StartNode(name string) error
	// Attached reports whether nc is connected to a node running now.
	Attached(nc *nats.Conn) bool
	// Copies lists the stream copies one node holds.
	Copies(name string) []Replica
	// SoloConsumers lists the consumers ("STREAM > NAME") whose one copy
	// a node holds, on streams with copies elsewhere too.
	SoloConsumers(name string) []string
	// Replicas lists a stream's copies, one per running node that holds one.
	Replicas(stream string) []Replica
	// Reachable reports whether a publish on the stream's subjects, made on
	// any running node, reaches its leader.
	Reachable(stream string) bool
	// StreamLeader is the node leading a stream now, or "".
	StreamLeader(stream string) string
	// MetaLeader is the node leading the JetStream meta group, or "".
	MetaLeader() string
}

// Stats are the live facts the status bar shows.
type Stats struct {
	JetStream   bool
	Streams     int
	Consumers   int
	Connections int // -1 when the deployment does not say
}

// Monitor asks one running nats-server about itself, in-process, with the
// answers its monitoring endpoints give (/connz, /subsz): who is connected,
// what they subscribe to, how much interest a subject has. It is bound to
// the server that ran when it was asked for: after a restart, ask the
// Deployment for a new one (its ID differs).
type Monitor struct {
	ns *server.Server
	// leaf is the lab's leaf node, running, for the lab's server's
	// Monitor: a server lists the subscriptions of its own clients only,
	// and of a leaf node's it knows no more than that some client of the
	// leaf wants a subject.
	leaf *server.Server
}

func newMonitor(ns *server.Server) *Monitor {
	if ns == nil {
		return nil
	}
	return &Monitor{ns: ns}
}

// ID identifies the server process: it changes at every start.
func (m *Monitor) ID() string { return m.ns.ID() }

// StreamIngest is how many published messages the server's streams have
// taken in and not yet stored, or stored and not yet told their consumers
// of: a stream stores what it captures on a goroutine of its own, after
// the publisher's flush has returned, and its consumers count the new
// message as pending on yet another (the stream's "obs" queue).
func (m *Monitor) StreamIngest() int {
	return m.queued("stream '", "' messages", "' obs")
}

// AckIngest is how many acknowledgements (acks, naks, terms) the
// server's consumers have been sent and not yet taken in: a consumer takes
// them in on a goroutine of its own (its "ackMsgs" queue), after the
// connection that sent them has been flushed, and only then counts the
// message as acknowledged.
func (m *Monitor) AckIngest() int {
	return m.queued("consumer '", "' ackMsgs")
}

// queued is how much the server's internal queues whose names hold filter
// and end with one of suffixes hold, waiting or being worked on.
func (m *Monitor) queued(filter string, suffixes ...string) int {
	n := 0
	for name, q := range *m.ns.Ipqueuesz(&server.IpqueueszOptions{Filter: filter}) {
		for _, suffix := range suffixes {
			if strings.HasSuffix(name, suffix) {
				n += q.Pending + q.InProgress
				break
			}
		}
	}
	return n
}

// Connz lists the server's connections, as its /connz endpoint would.
func (m *Monitor) Connz(opts *server.ConnzOptions) (*server.Connz, error) {
	return m.ns.Connz(opts)
}

// Subsz lists the server's subscriptions, as its /subsz endpoint would.
func (m *Monitor) Subsz(opts *server.SubszOptions) (*server.Subsz, error) {
	return m.ns.Subsz(opts)
}

// Jsz describes the server's JetStream (its streams and consumers, with
// the options' details), as its /jsz endpoint would, without a message.
func (m *Monitor) Jsz(opts *server.JSzOptions) (*server.JSInfo, error) {
	return m.ns.Jsz(opts)
}

// Accountz describes the server's accounts, as its /accountz endpoint
// would: their names, or one account's exports and imports.
func (m *Monitor) Accountz(opts *server.AccountzOptions) (*server.Accountz, error) {
	return m.ns.Accountz(opts)
}

// Leafz lists the server's leaf node connections, as its /leafz endpoint
// would.
func (m *Monitor) Leafz(opts *server.LeafzOptions) (*server.Leafz, error) {
	return m.ns.Leafz(opts)
}

// Interest is at least how many subscriptions in the default account a
// message on subject would reach now, and 0 only when none would. It is
// cheap, and exact for a subject a message has just gone to (the server
// keeps that match); for another, the server's count may stop at the
// first level a wildcard subscription matches at: with orders.> and
// orders.new, orders.new can count 1. Listeners counts every one.
func (m *Monitor) Interest(subject string) int {
	acc := m.ns.GlobalAccount()
	if acc == nil {
		return 0
	}
	return acc.Interest(subject)
}

// Listeners is how many subscriptions in the default account a message on
// subject would reach now, every one counted: at the lab's server, its
// leaf node's clients' too. It walks the account's subscriptions: for a
// look now and then, not for every message (Subscriptions says when to
// look again).
func (m *Monitor) Listeners(subject string) int {
	n := listeners(m.ns, subject)
	if m.leaf != nil && m.leaf.Running() {
		n += listeners(m.leaf, subject)
	}
	return n
}

// listeners is how many subscriptions of ns's own clients in its default
// account a message on subject would reach.
func listeners(ns *server.Server, subject string) int {
	acc := ns.GlobalAccount()
	if acc == nil {
		return 0
	}
	sz, err := ns.Subsz(&server.SubszOptions{Account: acc.GetName(), Test: subject, Subscriptions: true})
	if err != nil {
		return 0
	}
	return sz.Total
}

// Subscribed is how many subscriptions of the server's own clients, in
// any account, are to subject exactly as written (a wildcard as a
// wildcard): a look to see a new subscriber arrive, not for every message.
func (m *Monitor) Subscribed(subject string) int {
	sz, err := m.ns.Subsz(&server.SubszOptions{Subscriptions: true, Limit: maxSubscriptions})
	if err != nil {
		return 0
	}
	n := 0
	for _, sd := range sz.Subs {
		if sd.Subject == subject {
			n++
		}
	}
	return n
}

// Subscriptions is how many subscriptions the default account has (at
// the lab's server, with its leaf node's), read cheaply: a change says
// some came or went.
func (m *Monitor) Subscriptions() int {
	n := totalSubs(m.ns)
	if m.leaf != nil && m.leaf.Running() {
		n += totalSubs(m.leaf)
	}
	return n
}

func totalSubs(ns *server.Server) int {
	acc := ns.GlobalAccount()
	if acc == nil {
		return 0
	}
	return acc.TotalSubs()
}
