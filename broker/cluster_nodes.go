package broker

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// What the lab's node verbs and the replicas scene need: stop and start one
// node, and ask each node what it holds and leads. Everything here comes
// from the nodes themselves, in-process.

// ErrNotClustered is what a node verb says without --cluster.
var ErrNotClustered = errors.New("the lab runs a single server: start it with --cluster 3 for a three-node cluster (natslab --cluster 3, natslab run --cluster 3 FILE)")

// Clustered reports whether the lab runs the three-node cluster.
func (s *Server) Clustered() bool { return s.cluster != nil }

// NodeStatus is what `node ls` shows of one node.
type NodeStatus struct {
	Name       string
	Running    bool
	ClientURL  string   // "" with --listen none
	MetaLeader bool     // leads the JetStream meta group (stream and consumer assignments)
	Leads      []string // the streams this node leads, sorted
	Streams    int      // how many streams it holds a copy of
}

// Nodes reports every node, in order; nil without --cluster.
func (s *Server) Nodes() []NodeStatus {
	if s.cluster == nil {
		return nil
	}
	s.mu.Lock()
	type entry struct {
		st NodeStatus
		ns *server.Server
	}
	entries := make([]entry, len(s.cluster.nodes))
	for i, n := range s.cluster.nodes {
		entries[i] = entry{NodeStatus{Name: n.name, Running: n.ns != nil, ClientURL: s.nodeURL(n)}, n.ns}
	}
	s.mu.Unlock()
	out := make([]NodeStatus, len(entries))
	for i, e := range entries {
		st := e.st
		if e.ns != nil {
			st.MetaLeader = e.ns.JetStreamIsLeader()
			for _, r := range nodeStreams(e.ns) {
				st.Streams++
				if r.Leader {
					st.Leads = append(st.Leads, r.Stream)
				}
			}
			sort.Strings(st.Leads)
		}
		out[i] = st
	}
	return out
}

// Node returns the running nats-server of one node, or nil while it is
// stopped (or without --cluster).
func (s *Server) Node(name string) *server.Server {
	if s.cluster == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.cluster.node(name)
	if err != nil {
		return nil
	}
	return n.ns
}

// NodeUp reports whether the named node is running.
func (s *Server) NodeUp(name string) bool { return s.Node(name) != nil }

// StopNode shuts one node down gracefully, as an operator stopping a server
// would: the others hold elections for what it led and carry on. Its store
// stays, so StartNode brings it back to catch up. The last running node is
// refused: the lab needs one to talk to.
func (s *Server) StopNode(name string) error {
	if s.cluster == nil {
		return ErrNotClustered
	}
	c := s.cluster
	c.life.Lock()
	defer c.life.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("the lab's cluster has been shut down")
	}
	n, err := c.node(name)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if n.ns == nil {
		s.mu.Unlock()
		return fmt.Errorf("node %s is already stopped (start it with node start %s)", name, name)
	}
	running := 0
	for _, o := range c.nodes {
		if o.ns != nil {
			running++
		}
	}
	if running == 1 {
		s.mu.Unlock()
		return fmt.Errorf("node %s is the last one running: the lab needs one to talk to (start another first: node start NAME)", name)
	}
	ns := n.ns
	n.ns = nil // from now on in-process clients reconnect to the others
	s.broadcastLocked()
	s.mu.Unlock()
	ns.Shutdown()
	ns.WaitForShutdown()
	// The others notice the closed routes a moment later; until then they
	// still forward to the stopped node what its subscriptions (an R1
	// stream's subjects) ask for, and a publish is lost instead of meeting
	// "no responders". Return once they have let go.
	waitFor(s.opts.ReadyTimeout, func() bool { return !s.routedTo(name) })
	return nil
}

// routedTo reports whether a running node still has a route to the named one.
func (s *Server) routedTo(name string) bool {
	for _, ns := range s.runningNodes() {
		rz, err := ns.Routez(&server.RoutezOptions{})
		if err != nil {
			continue
		}
		for _, r := range rz.Routes {
			if r.RemoteName == name {
				return true
			}
		}
	}
	return false
}

// StartNode starts a stopped node again on its own store and ports. It
// returns once the node accepts clients and, with JetStream, has caught up
// with the meta leader (or after the ready timeout; its streams catch up
// on their own).
func (s *Server) StartNode(name string) error {
	if s.cluster == nil {
		return ErrNotClustered
	}
	c := s.cluster
	c.life.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.life.Unlock()
		return errors.New("the lab's cluster has been shut down")
	}
	n, err := c.node(name)
	if err == nil && n.ns != nil {
		err = c.alreadyRunning(name)
	}
	s.mu.Unlock()
	if err != nil {
		c.life.Unlock()
		return err
	}
	ns, err := s.bootNode(n)
	if err != nil {
		c.life.Unlock()
		return err
	}
	s.mu.Lock()
	n.ns = ns
	s.broadcastLocked()
	s.mu.Unlock()
	c.life.Unlock()
	if s.JetStream() {
		// Caught up, and heard by the meta leader: until it has the
		// node's report it places no replica there.
		waitFor(s.opts.ReadyTimeout, func() bool { return ns.JetStreamIsCurrent() && s.metaLeaderHears(name) })
	}
	return nil
}

// metaLeaderHears reports whether the meta leader counts the named node
// among the peers it may place replicas on.
func (s *Server) metaLeaderHears(name string) bool {
	for _, ns := range s.runningNodes() {
		if ns.JetStreamIsLeader() {
			return slices.Contains(ns.JetStreamClusterPeers(), name)
		}
	}
	return false
}

// alreadyRunning is the refusal to start a node that runs: it names the
// one to start instead, if one is down (a lesson's example may name
// another than the node the learner stopped). s.mu is held.
func (c *cluster) alreadyRunning(name string) error {
	var down []string
	for _, n := range c.nodes {
		if n.ns == nil {
			down = append(down, n.name)
		}
	}
	switch len(down) {
	case 0:
		return fmt.Errorf("node %s is already running, as every node is (node ls shows them)", name)
	case 1:
		return fmt.Errorf("node %s is already running; %s is the one down: node start %s", name, down[0], down[0])
	}
	return fmt.Errorf("node %s is already running; %s are down: node start starts them", name, strings.Join(down, " and "))
}

// Attached reports whether nc is connected to a server running now. Right
// after a node stops, a client may not have noticed yet (what it sends then
// is lost with the old connection): wait for this before using it.
func (s *Server) Attached(nc *nats.Conn) bool {
	if nc == nil || !nc.IsConnected() {
		return false
	}
	id := nc.ConnectedServerId()
	if s.cluster == nil {
		ns := s.NATS()
		return ns != nil && ns.ID() == id
	}
	for _, ns := range s.runningNodes() {
		if ns.ID() == id {
			return true
		}
	}
	return false
}

// WaitFor polls cond every few milliseconds until it holds or timeout
// passes, and reports whether it held: elections and catch-up take tens of
// milliseconds, and the verbs and scenes wait for them this way.
func WaitFor(timeout time.Duration, cond func() bool) bool { return waitFor(timeout, cond) }

// AwaitReachable waits, up to timeout, until a publish on the stream's
// subjects made on any node of the lab's cluster reaches the stream's
// leader (Server.Reachable); a single server or an external deployment
// waits for nothing. The server answers a stream's creation or change
// before every node has learned of its leader's interest, and a publish in
// between meets "no responders", or no answer where something else
// listens on the subject.
func AwaitReachable(dep Deployment, stream string, timeout time.Duration) {
	if cl := dep.Cluster(); cl != nil {
		WaitFor(timeout, func() bool { return cl.Reachable(stream) })
	}
}

// Replica is one node's copy of a stream, as that node reports it.
type Replica struct {
	Node     string
	Stream   string
	Account  string
	Leader   bool     // this copy is the stream's leader
	Current  bool     // the leader counts this copy as caught up (always true for the leader)
	Msgs     uint64   // messages in this copy
	LastSeq  uint64   // the last sequence this copy holds
	Group    string   // the stream's Raft group, "" until this node has its assignment
	R        int      // the replicas the stream asks for (its config's Replicas)
	Subjects []string // the subjects it captures

	peers []*server.PeerInfo // the other replicas, as this copy sees them
}

// nodeStreams lists the streams one node holds, from its own Jsz.
func nodeStreams(ns *server.Server) []Replica {
	if ns == nil || !ns.JetStreamEnabled() {
		return nil
	}
	jsi, err := ns.Jsz(&server.JSzOptions{Accounts: true, Streams: true, Config: true, RaftGroups: true})
	if err != nil {
		return nil
	}
	name := ns.Name()
	var out []Replica
	for _, acc := range jsi.AccountDetails {
		for _, sd := range acc.Streams {
			r := Replica{Node: name, Stream: sd.Name, Account: acc.Name, Msgs: sd.State.Msgs, LastSeq: sd.State.LastSeq, Group: sd.RaftGroup, Current: true}
			if sd.Config != nil {
				r.R, r.Subjects = sd.Config.Replicas, sd.Config.Subjects
			}
			switch {
			case sd.Config != nil && sd.Config.Replicas <= 1:
				r.Leader = true // an R1 stream has no election: its one copy serves it
			case sd.Cluster != nil && sd.Cluster.RaftGroup != "":
				// Only a running Raft node reports its group. Before it
				// runs (a node just started, its assignment not yet
				// applied) the server names itself leader, which it is not.
				r.Leader = sd.Cluster.Leader == name
				r.peers = sd.Cluster.Replicas
			}
			out = append(out, r)
		}
	}
	return out
}

// Copies lists the stream copies one node holds, as it reports them; none
// while it is stopped (or without --cluster).
func (s *Server) Copies(name string) []Replica { return nodeStreams(s.Node(name)) }

// SoloConsumers lists the consumers ("STREAM > NAME") whose one copy the
// named node holds, on streams with copies elsewhere too (a stream's own
// one copy, Copies says): stopping the node takes them offline. None while
// it is stopped (or without --cluster).
func (s *Server) SoloConsumers(name string) []string {
	ns := s.Node(name)
	if ns == nil || !ns.JetStreamEnabled() {
		return nil
	}
	jsi, err := ns.Jsz(&server.JSzOptions{Accounts: true, Streams: true, Consumer: true, Config: true})
	if err != nil {
		return nil
	}
	var out []string
	for _, acc := range jsi.AccountDetails {
		for _, sd := range acc.Streams {
			if sd.Config == nil || sd.Config.Replicas <= 1 {
				continue
			}
			for _, ci := range sd.Consumer {
				if ci == nil || ci.Cluster == nil || ci.Cluster.Leader != name || len(ci.Cluster.Replicas) > 0 {
					continue
				}
				out = append(out, sd.Name+" > "+ci.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Replicas reports each node's copy of a stream: one entry per node, in
// node order; a node that is stopped or holds no copy has a zero entry
// with just its name (Stream == ""). Without --cluster it is nil.
func (s *Server) Replicas(stream string) []Replica {
	if s.cluster == nil {
		return nil
	}
	s.mu.Lock()
	names := make([]string, len(s.cluster.nodes))
	servers := make([]*server.Server, len(s.cluster.nodes))
	for i, n := range s.cluster.nodes {
		names[i], servers[i] = n.name, n.ns
	}
	s.mu.Unlock()
	out := make([]Replica, len(names))
	var leader *Replica
	for i, ns := range servers {
		out[i] = Replica{Node: names[i]}
		for _, r := range nodeStreams(ns) {
			if r.Stream == stream {
				out[i] = r
				if r.Leader {
					leader = &out[i]
				}
			}
		}
	}
	// Current is the leader's view: it knows which followers keep up.
	if leader != nil {
		for i := range out {
			if out[i].Stream == "" || out[i].Leader {
				continue
			}
			out[i].Current = false
			for _, p := range leader.peers {
				if p.Name == out[i].Node {
					out[i].Current = p.Current && !p.Offline
				}
			}
		}
	}
	return out
}

// Reachable reports whether a publish on the stream's subjects, made on
// any running node, reaches its leader's copy: on the leader the stream
// itself has subscribed to them, and every other node has heard of that
// interest over its route to the leader. Interest alone does not tell: a
// client subscribed to the same subjects (a scene's tap, a learner's sub)
// gives every node interest while the new leader's stream has not
// subscribed yet, and a JetStream publish then reaches only that client
// and goes unanswered. A node names the new leader a few milliseconds
// before its stream subscribes (it first applies what the old leader
// committed), and the other nodes hear of the subscription a moment later.
func (s *Server) Reachable(stream string) bool {
	var leader *Replica
	reps := s.Replicas(stream)
	for i := range reps {
		if reps[i].Leader {
			leader = &reps[i]
		}
	}
	if leader == nil {
		return false
	}
	for _, ns := range s.runningNodes() {
		acc, err := ns.LookupAccount(leader.Account)
		if err != nil {
			return false
		}
		for _, subj := range leader.Subjects {
			sample := sampleSubject(subj)
			if !acc.SubscriptionInterest(sample) {
				return false
			}
			if ns.Name() == leader.Node {
				if !serverSubscribed(ns, leader.Account, sample) {
					return false
				}
			} else if !routedFrom(ns, leader.Node, sample) {
				return false
			}
		}
	}
	return true
}

// serverSubscribed reports whether the server itself (one of its internal
// clients, as a stream's is) subscribes to subject in the account, not
// only a client connected to it: the monitoring API lists both, and only
// clients appear among the connections, open or recently closed.
func serverSubscribed(ns *server.Server, account, subject string) bool {
	sz, err := ns.Subsz(&server.SubszOptions{Subscriptions: true, Account: account, Test: subject, Limit: 1 << 16})
	if err != nil || len(sz.Subs) == 0 {
		return false
	}
	cz, err := ns.Connz(&server.ConnzOptions{State: server.ConnAll, Limit: 1 << 16})
	if err != nil {
		return false
	}
	clients := make(map[uint64]bool, len(cz.Conns))
	for _, ci := range cz.Conns {
		clients[ci.Cid] = true
	}
	for _, sd := range sz.Subs {
		if !clients[sd.Cid] {
			return true
		}
	}
	return false
}

// routedFrom reports whether the server has heard, over a route from the
// named node, of a subscription that subject matches: a publish there is
// forwarded to that node.
func routedFrom(ns *server.Server, node, subject string) bool {
	rz, err := ns.Routez(&server.RoutezOptions{Subscriptions: true})
	if err != nil {
		return false
	}
	for _, r := range rz.Routes {
		if r.RemoteName != node {
			continue
		}
		for _, sub := range r.Subs {
			if server.SubjectMatchesFilter(subject, sub) {
				return true
			}
		}
	}
	return false
}

// sampleSubject is one literal subject a filter matches: "orders.*.>"
// gives "orders.x.x".
func sampleSubject(filter string) string {
	tokens := strings.Split(filter, ".")
	for i, t := range tokens {
		if t == "*" || t == ">" {
			tokens[i] = "x"
		}
	}
	return strings.Join(tokens, ".")
}

// StreamLeader is the node leading a stream now, or "" when none does
// (no stream by that name, an election going on, its nodes stopped).
func (s *Server) StreamLeader(stream string) string {
	for _, r := range s.Replicas(stream) {
		if r.Leader {
			return r.Node
		}
	}
	return ""
}

// MetaLeader is the node leading the JetStream meta group, or "".
func (s *Server) MetaLeader() string {
	for _, n := range s.Nodes() {
		if n.MetaLeader {
			return n.Name
		}
	}
	return ""
}
