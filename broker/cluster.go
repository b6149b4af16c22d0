package broker

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// With --cluster 3 the lab runs three nats-servers (n1, n2, n3) inside its
// process, routed to each other on loopback: a real JetStream cluster with
// Raft elections, replicated streams and catch-up, without Docker or three
// terminals. Each node keeps its own store under the store directory
// (AREA/cluster/nN), the lab keeps its one lock, and every node logs into
// the one LogBuffer with its name in front.

// ClusterSize is the one cluster size the lab runs: three nodes is the
// smallest cluster that survives losing one, and what the lessons teach.
const ClusterSize = 3

// ClusterName is the name of the lab's cluster, as stream info shows it.
const ClusterName = "natslab"

// NodeNames are the lab's cluster nodes, in order.
var NodeNames = []string{"n1", "n2", "n3"}

// checkClusterSize explains an unsupported --cluster value.
func checkClusterSize(n int) error {
	if n == 0 || n == 1 || n == ClusterSize {
		return nil
	}
	return fmt.Errorf("--cluster %d: the lab runs a three-node cluster (--cluster 3) or a single server (--cluster 1, the default); other sizes are not supported", n)
}

// cluster is the state of the three nodes. Its fields are guarded by the
// Server's mu; lifecycle changes (start, stop) are serialised by life.
type cluster struct {
	life       sync.Mutex
	user, pass string // route credentials, random per run: only the lab's own nodes may join
	nodes      []*node
	// How long the last whole start took to have every node up, and to
	// have a meta leader too (the benchmark reports them).
	formed, elected time.Duration
}

// Route ports are planned before any node starts (JetStream clustering
// wants each node to have routes configured). They come from below the
// kernels' ephemeral ranges (Linux 32768-60999, macOS and Windows
// 49152-65535), so that an outgoing connection is not handed a planned port
// between planning and binding.
const routePortLow, routePortHigh = 20000, 32000

// planRoutePort finds a route port nobody uses right now.
func planRoutePort() (int, error) {
	for range 50 {
		if p := routePortLow + mrand.IntN(routePortHigh-routePortLow); portFree("127.0.0.1", p) {
			return p, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free loopback port for the cluster's routes: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// node is one nats-server of the cluster.
type node struct {
	name      string
	ns        *server.Server // nil while stopped
	host      string         // client listener host
	port      int            // client port: 0 until first bound, then kept across restarts
	routePort int            // route port, planned at the first start and kept
	fatal     *fatalBox      // the running server's fatal error, if any
}

// newCluster plans the nodes: n1's clients where --listen asked, the
// others' on free loopback ports (bound by the servers, then kept).
func newCluster(spec listenSpec, port int) *cluster {
	c := &cluster{user: "natslab", pass: randomSecret()}
	for i, name := range NodeNames {
		n := &node{name: name, host: "127.0.0.1"}
		if i == 0 && !spec.none {
			n.host, n.port = spec.host, port
		}
		c.nodes = append(c.nodes, n)
	}
	return c
}

func randomSecret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *cluster) node(name string) (*node, error) {
	for _, n := range c.nodes {
		if n.name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("there is no node %q: the cluster's nodes are %s", name, strings.Join(NodeNames, ", "))
}

// nodeOptions are nats-server's options for one node: the single server's,
// plus its name, its store, its ports and routes to the other nodes.
func (s *Server) nodeOptions(n *node) *server.Options {
	o := s.serverOptions()
	s.addLabUser(o)
	o.ServerName = n.name
	o.StoreDir = filepath.Join(s.clusterDir(), n.name)
	o.Host, o.Port = n.host, n.port
	if o.Port == 0 {
		o.Port = server.RANDOM_PORT
	}
	if s.listen.none {
		// nats-server starts routing only once its client listener is up,
		// so a node cannot go without one (DontListen): with --listen none
		// each binds a random loopback port that the lab does not advertise.
		o.DontListen = false
		o.Host, o.Port = "127.0.0.1", server.RANDOM_PORT
	}
	c := s.cluster
	o.Cluster = server.ClusterOpts{
		Name:     ClusterName,
		Host:     "127.0.0.1", // never the default 0.0.0.0: routes stay on this machine
		Port:     n.routePort,
		Username: c.user,
		Password: c.pass,
		// Loopback needs no compression; it would only cost CPU.
		Compression: server.CompressionOpts{Mode: server.CompressionOff},
	}
	for _, other := range c.nodes {
		if other == n {
			continue
		}
		o.Routes = append(o.Routes, &url.URL{Scheme: "nats-route", User: url.UserPassword(c.user, c.pass), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(other.routePort))})
	}
	return o
}

// clusterDir holds the nodes' stores for the current area.
func (s *Server) clusterDir() string { return filepath.Join(s.dataDir(), "cluster") }

// bootNode starts one node and waits until it accepts clients and routes
// (and runs JetStream if it should). It does not publish the node: the
// caller sets n.ns. A route port taken meanwhile by another program is
// given up for a new one; the node then tells the others where it is.
func (s *Server) bootNode(n *node) (*server.Server, error) {
	ns, err := s.bootNodeOnce(n)
	if err != nil && strings.Contains(err.Error(), "router port") {
		p, perr := planRoutePort()
		if perr != nil {
			return nil, errors.Join(err, perr)
		}
		s.mu.Lock()
		n.routePort = p
		s.mu.Unlock()
		ns, err = s.bootNodeOnce(n)
	}
	return ns, err
}

func (s *Server) bootNodeOnce(n *node) (*server.Server, error) {
	s.mu.Lock()
	o := s.nodeOptions(n)
	s.mu.Unlock()
	ns, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("cannot configure node %s: %w", n.name, err)
	}
	fatal := &fatalBox{}
	ns.SetLoggerV2(nodeLogger{buf: s.log, prefix: "[" + n.name + "] ", fatal: fatal}, false, false, false)
	ns.Start()
	fail := func(err error) (*server.Server, error) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, err
	}
	deadline := time.Now().Add(s.opts.ReadyTimeout)
	// Short looks: a node is ready in milliseconds, and one whose listener
	// failed never is, so its fatal error ends the wait at once.
	for !ns.ReadyForConnections(time.Millisecond) {
		if f := fatal.get(); f != "" {
			return fail(fmt.Errorf("node %s did not start: %s", n.name, f))
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("node %s was not ready after %s (see its log)", n.name, s.opts.ReadyTimeout))
		}
		time.Sleep(2 * time.Millisecond)
	}
	if s.JetStream() && !ns.JetStreamEnabled() {
		return fail(fmt.Errorf("node %s started without JetStream: %s", n.name, fatal.get()))
	}
	s.mu.Lock()
	n.fatal = fatal
	if !s.listen.none {
		if addr, ok := ns.Addr().(*net.TCPAddr); ok {
			n.port = addr.Port
			if n == s.cluster.nodes[0] {
				s.port = addr.Port
			}
		}
	}
	s.mu.Unlock()
	return ns, nil
}

// startCluster starts the nodes one after the other, then waits until the
// cluster has formed: all nodes accept clients and, with JetStream, agree on
// a meta leader that knows them all, so that the first `stream add` does
// not meet an election.
func (s *Server) startCluster() error {
	c := s.cluster
	c.life.Lock()
	defer c.life.Unlock()
	start := time.Now()
	for _, n := range c.nodes {
		if n.routePort != 0 {
			continue
		}
		p, err := planRoutePort()
		if err != nil {
			return err
		}
		s.mu.Lock()
		n.routePort = p
		s.mu.Unlock()
	}
	_, err := os.Stat(filepath.Join(s.clusterDir(), c.nodes[0].name, "jetstream"))
	recovering := err == nil
	if say := s.opts.Starting; say != nil {
		line := fmt.Sprintf("starting three servers (%s)…", strings.Join(NodeNames, ", "))
		if recovering && s.JetStream() {
			line = fmt.Sprintf("starting three servers (%s) from their stores: Raft elects the meta leader after its election timeout, 4 to 9 seconds…", strings.Join(NodeNames, ", "))
		}
		say(line)
	}
	booted := make([]*server.Server, 0, len(c.nodes))
	for _, n := range c.nodes {
		ns, err := s.bootNode(n)
		if err != nil {
			shutdownAll(booted)
			return err
		}
		booted = append(booted, ns)
	}
	s.mu.Lock()
	for i, n := range c.nodes {
		n.ns = booted[i]
	}
	s.broadcastLocked()
	s.mu.Unlock()
	formed := time.Since(start)
	if s.JetStream() && recovering {
		s.log.Append("INF", "natslab: the nodes recovered their stores, so Raft elects the meta leader only after its election timeout (4 to 9 seconds); a new cluster elects at once")
	}
	if !s.JetStream() {
		s.log.Append("INF", fmt.Sprintf("natslab: cluster %s formed in %s: %s", ClusterName, formed.Round(time.Millisecond), strings.Join(NodeNames, ", ")))
		return nil
	}
	if err := s.waitMeta(s.metaTimeout()); err != nil {
		s.mu.Lock()
		for _, n := range c.nodes {
			n.ns = nil
		}
		s.broadcastLocked()
		s.mu.Unlock()
		shutdownAll(booted)
		return err
	}
	c.formed, c.elected = formed, time.Since(start)
	s.log.Append("INF", fmt.Sprintf("natslab: cluster %s formed in %s: %s; JetStream meta leader %s elected after %s", ClusterName, formed.Round(time.Millisecond), strings.Join(NodeNames, ", "), s.MetaLeader(), c.elected.Round(time.Millisecond)))
	return nil
}

// restartCluster stops every node and starts them all again. A cluster
// restarting from its stores elects its leaders only after Raft's election
// timeout (4 to 9 seconds): nats-server offers no way to hurry that, and a
// rolling restart is no quicker once each node must catch up before the
// next stops. The log says why the wait.
func (s *Server) restartCluster() error {
	s.stopCluster()
	return s.start()
}

// metaTimeout bounds the wait for a meta leader: a cluster restarting from
// its stores only elects one after Raft's election timeout, up to 9 seconds,
// and a split vote starts another round.
func (s *Server) metaTimeout() time.Duration {
	return max(s.opts.ReadyTimeout, 30*time.Second)
}

// stopCluster shuts every running node down at once: one at a time, the
// survivors would hold an election after each.
func (s *Server) stopCluster() {
	c := s.cluster
	c.life.Lock()
	defer c.life.Unlock()
	s.mu.Lock()
	running := make([]*server.Server, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.ns != nil {
			running = append(running, n.ns)
			n.ns = nil
		}
	}
	s.broadcastLocked()
	s.mu.Unlock()
	shutdownAll(running)
}

func shutdownAll(servers []*server.Server) {
	var wg sync.WaitGroup
	for _, ns := range servers {
		if ns == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns.Shutdown()
			ns.WaitForShutdown()
		}()
	}
	wg.Wait()
}

// runningNodes returns the servers that are up, in node order.
func (s *Server) runningNodes() []*server.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*server.Server
	for _, n := range s.cluster.nodes {
		if n.ns != nil {
			out = append(out, n.ns)
		}
	}
	return out
}

// waitMeta waits until the running nodes agree on a JetStream meta leader,
// each has caught up with it, and it knows them all as JetStream peers.
func (s *Server) waitMeta(timeout time.Duration) error {
	ok := waitFor(timeout, func() bool {
		nodes := s.runningNodes()
		if len(nodes) == 0 {
			return false
		}
		leaders := 0
		for _, ns := range nodes {
			if ns.JetStreamIsLeader() {
				leaders++
				// The leader places streams only on peers it has
				// heard from: until then R3 gets "no suitable peers".
				if len(ns.JetStreamClusterPeers()) < len(nodes) {
					return false
				}
			}
			if !ns.JetStreamIsCurrent() {
				return false
			}
		}
		return leaders == 1
	})
	if !ok {
		return fmt.Errorf("the cluster elected no JetStream meta leader within %s (see the log)", timeout)
	}
	return nil
}

// waitFor polls cond until it holds or timeout passes. Elections take tens
// of milliseconds, so a short poll costs little and answers quickly.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// clusterURL lists every node's client URL, comma-separated, as nats
// clients and the real CLI accept it.
func (s *Server) clusterURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	urls := make([]string, 0, len(s.cluster.nodes))
	for _, n := range s.cluster.nodes {
		urls = append(urls, s.nodeURL(n))
	}
	return strings.Join(urls, ",")
}

// nodeURL is one node's client URL. s.mu must be held.
func (s *Server) nodeURL(n *node) string {
	if s.listen.none {
		return ""
	}
	host := n.host
	if host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "nats://" + net.JoinHostPort(host, strconv.Itoa(n.port))
}

// nodeLogger writes a node's log into the lab's one buffer, the node's name
// first, so three servers' lines can be told apart.
type nodeLogger struct {
	buf    *LogBuffer
	prefix string
	fatal  *fatalBox
}

func (l nodeLogger) Noticef(f string, v ...any) { l.buf.Append("INF", l.prefix+fmt.Sprintf(f, v...)) }
func (l nodeLogger) Warnf(f string, v ...any)   { l.buf.Append("WRN", l.prefix+fmt.Sprintf(f, v...)) }
func (l nodeLogger) Fatalf(f string, v ...any) {
	l.fatal.set(fmt.Sprintf(f, v...))
	l.buf.Append("FTL", l.prefix+fmt.Sprintf(f, v...))
}
func (l nodeLogger) Errorf(f string, v ...any) { l.buf.Append("ERR", l.prefix+fmt.Sprintf(f, v...)) }
func (l nodeLogger) Debugf(f string, v ...any) { l.buf.Append("DBG", l.prefix+fmt.Sprintf(f, v...)) }
func (l nodeLogger) Tracef(f string, v ...any) { l.buf.Append("TRC", l.prefix+fmt.Sprintf(f, v...)) }

// clusterStats counts the streams and consumers as the JetStream API's
// account info does on a cluster: from the meta group's assignments, which
// every node keeps, so a stream whose every replica is on a stopped node
// still counts (stream ls lists it, as inaccessible). The meta leader's are
// the freshest; the connections are every running node's clients.
func (s *Server) clusterStats() Stats {
	nodes := s.runningNodes()
	if len(nodes) == 0 {
		return Stats{}
	}
	st := Stats{JetStream: nodes[0].JetStreamEnabled()}
	ask := nodes[0]
	for _, ns := range nodes {
		st.Connections += ns.NumClients()
		if ns.JetStreamIsLeader() {
			ask = ns
		}
	}
	if !st.JetStream {
		return st
	}
	jsi, err := ask.Jsz(&server.JSzOptions{Accounts: true})
	if err != nil {
		return st
	}
	for _, ad := range jsi.AccountDetails {
		acc, err := ask.LookupAccount(ad.Name)
		if err != nil {
			continue
		}
		u := acc.JetStreamUsage()
		st.Streams += u.Streams
		st.Consumers += u.Consumers
	}
	return st
}

// fatalBox holds a node's fatal error (a listener that failed), so that
// starting it fails at once with the reason instead of timing out.
type fatalBox struct {
	mu  sync.Mutex
	msg string
}

func (f *fatalBox) set(msg string) {
	f.mu.Lock()
	f.msg = msg
	f.mu.Unlock()
}

func (f *fatalBox) get() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.msg
}
