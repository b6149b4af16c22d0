package broker

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Leaf is the lab's leaf node: a second nats-server in this process that
// joins the lab's server as a leaf node, as a server in a shop, a car or
// an edge site joins a central one. Clients of the leaf see the subjects
// of the lab's server and the other way round, as long as the leaf
// connection is up; the leaf can be stopped (gone offline) and started
// again. It runs Core NATS only, on the lab's account.
//
// The lab's server accepts leaf nodes only once a leaf has been started:
// nats-server opens its leaf node port from its configuration at start, so
// the first Start restarts the lab's server with one (on loopback, with a
// password only the leaf knows).
type Leaf struct {
	hub *Server

	mu   sync.Mutex
	ns   *server.Server
	port int // the leaf's client port, kept across its restarts
	gone int // clients it had when it stopped, who will try to come back
	// goneSubs is what those clients subscribed to: back, they subscribe
	// again, and the lab's server must hear of it.
	goneSubs []string
	log      *LogBuffer
	closed   bool
	// passed is how many messages the leaf had passed to the lab's server
	// passedTo over the connections it had before it stopped (by the
	// server's connection id): the server forgets a connection's counts
	// once it closes, and what crossed before the leaf went offline still
	// crossed.
	passed   map[uint64]int64
	passedTo *server.Server
	// running is ns, for readers that must not wait while Start holds mu
	// (the lab's server's Monitor, read at frame rate by scenes).
	running atomic.Pointer[server.Server]
}

// LeafName is the leaf node's server name, as its log and the lab's
// server's leaf connections show it.
const LeafName = "leaf"

// leafUser is the user the leaf logs in as at the lab's server's leaf node
// port.
const leafUser = "leaf"

// LeafStatus is the leaf node as it is now.
type LeafStatus struct {
	Running   bool   // the leaf's server runs
	Connected bool   // its leaf connection to the lab's server is up
	URL       string // where clients of the leaf connect; "" without a listener
	HubPort   int    // the lab's server's leaf node port; 0 until a leaf was started
}

// Leaf is the lab's leaf node (started or not); nil with a cluster, whose
// nodes it does not join.
func (s *Server) Leaf() *Leaf {
	if s.cluster != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf == nil {
		s.leaf = &Leaf{hub: s, port: server.RANDOM_PORT, log: NewLogBuffer(DefaultLogLines)}
	}
	return s.leaf
}

// Start starts the leaf node and waits until it has joined the lab's
// server. It restarts the lab's server first if that does not accept leaf
// nodes yet, and says so in restarted. After a Stop it also waits, a few
// seconds at most, for the clients the leaf had to reconnect and for the
// lab's server to know their subscriptions again, and says how many
// clients came back.
func (l *Leaf) Start() (restarted bool, clients int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false, 0, errors.New("the lab's server has been shut down")
	}
	if l.ns != nil {
		return false, 0, errors.New("the leaf node is running already (leaf stop takes it offline)")
	}
	hub := l.hub
	if !hub.Running() {
		return false, 0, errors.New("the lab's server is stopped: a leaf node has nothing to join (restart it first)")
	}
	hub.mu.Lock()
	accepting := hub.leafAccept
	hub.leafAccept = true
	if hub.leafSecret == "" {
		hub.leafSecret = randomSecret()
	}
	hub.mu.Unlock()
	if !accepting {
		if err := hub.Restart(hub.JetStream()); err != nil {
			return true, 0, err
		}
		restarted = true
	}
	hub.mu.Lock()
	remote := &url.URL{Scheme: "nats-leaf", User: url.UserPassword(leafUser, hub.leafSecret), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(hub.leafPort))}
	none := hub.listen.none
	hub.mu.Unlock()
	o := &server.Options{
		ServerName:    LeafName,
		Host:          "127.0.0.1",
		Port:          l.port,
		DontListen:    none,
		NoSigs:        true,
		Authorization: hub.opts.Token,
		Username:      hub.opts.User,
		Password:      hub.opts.Password,
		LeafNode: server.LeafNodeOpts{
			Remotes: []*server.RemoteLeafOpts{{URLs: []*url.URL{remote}}},
			// After the lab's server restarts, join again soon.
			ReconnectInterval: 250 * time.Millisecond,
		},
	}
	ns, err := server.NewServer(o)
	if err != nil {
		return restarted, 0, fmt.Errorf("cannot configure the leaf node: %w", err)
	}
	ns.SetLoggerV2(serverLogger{l.log}, false, false, false)
	ns.Start()
	if !ns.ReadyForConnections(hub.opts.ReadyTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return restarted, 0, fmt.Errorf("the leaf node did not start: %s", l.log.lastFatal())
	}
	if !waitFor(hub.opts.ReadyTimeout, func() bool { return ns.NumLeafNodes() > 0 }) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return restarted, 0, errors.New("the leaf node started but did not join the lab's server (see its log)")
	}
	if !none {
		if addr, ok := ns.Addr().(*net.TCPAddr); ok {
			l.port = addr.Port
		}
	}
	l.ns = ns
	l.running.Store(ns)
	hub.mu.Lock()
	hub.broadcastLocked()
	hub.mu.Unlock()
	if l.gone > 0 {
		// Clients retry every couple of seconds (nats.go's default wait).
		waitFor(leafReturn, func() bool { return ns.NumClients() >= l.gone })
		clients = min(ns.NumClients(), l.gone)
		l.gone = 0
		// Back, they subscribe again: what is published on the lab's
		// server next must reach them.
		subs := l.goneSubs
		l.goneSubs = nil
		waitFor(leafReturn, func() bool { return l.hubHas(subs) })
	}
	return restarted, clients, nil
}

// leafReturn bounds how long Start waits for the leaf's clients to come
// back after a Stop.
const leafReturn = 5 * time.Second

// Stop shuts the leaf node down: its clients lose their server, and the
// lab's server its leaf connection. Its client port stays reserved for
// the next Start, so its clients reconnect there. clients is how many
// clients it had.
func (l *Leaf) Stop() (clients int, err error) {
	l.mu.Lock()
	ns := l.ns
	l.ns = nil
	l.running.Store(nil)
	if ns != nil {
		l.gone = ns.NumClients()
		l.goneSubs = clientSubs(ns)
		clients = l.gone
	}
	l.mu.Unlock()
	if ns == nil {
		return 0, errors.New("the leaf node is not running (leaf start starts it)")
	}
	hub := l.hub
	hub.mu.Lock()
	hns := hub.ns
	hub.mu.Unlock()
	if hns != nil {
		now := passedNow(hns)
		l.mu.Lock()
		if l.passedTo != hns {
			l.passed, l.passedTo = map[uint64]int64{}, hns
		}
		maps.Copy(l.passed, now)
		l.mu.Unlock()
	}
	ns.Shutdown()
	ns.WaitForShutdown()
	hub.mu.Lock()
	hub.broadcastLocked()
	hub.mu.Unlock()
	return clients, nil
}

// close stops the leaf for good, with the lab's server.
func (l *Leaf) close() {
	l.mu.Lock()
	l.closed = true
	ns := l.ns
	l.ns = nil
	l.running.Store(nil)
	l.mu.Unlock()
	if ns != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
	}
}

// Status reports the leaf node as it is now.
func (l *Leaf) Status() LeafStatus {
	l.mu.Lock()
	ns := l.ns
	port := l.port
	l.mu.Unlock()
	l.hub.mu.Lock()
	st := LeafStatus{HubPort: l.hub.leafPort}
	none := l.hub.listen.none
	l.hub.mu.Unlock()
	if ns == nil {
		return st
	}
	st.Running = ns.Running()
	st.Connected = ns.NumLeafNodes() > 0
	if !none {
		st.URL = "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	return st
}

// Passed counts the messages the lab's server has received from the leaf
// node since that server started: over the leaf connection it has now, and
// over those it had before the leaf last stopped.
func (l *Leaf) Passed() (int64, error) {
	l.hub.mu.Lock()
	hns := l.hub.ns
	l.hub.mu.Unlock()
	if hns == nil {
		return 0, errors.New("the lab's server is not running")
	}
	counts := passedNow(hns)
	l.mu.Lock()
	if l.passedTo == hns {
		// A stopped leaf's connection may still be on the server's list
		// for a moment: its count is the one taken at the stop.
		maps.Copy(counts, l.passed)
	}
	l.mu.Unlock()
	var n int64
	for _, c := range counts {
		n += c
	}
	return n, nil
}

// passedNow is what hub received over each leaf connection it has now, by
// connection id.
func passedNow(hub *server.Server) map[uint64]int64 {
	counts := map[uint64]int64{}
	lz, err := hub.Leafz(nil)
	if err != nil {
		return counts
	}
	for _, c := range lz.Leafs {
		counts[c.ID] = c.InMsgs
	}
	return counts
}

// Credentials are what a client of the leaf presents: the lab's server's.
func (l *Leaf) Credentials() Credentials { return l.hub.Credentials() }

// Monitor asks the running leaf about itself (its clients and their
// subscriptions); nil while it is stopped.
func (l *Leaf) Monitor() *Monitor {
	l.mu.Lock()
	defer l.mu.Unlock()
	return newMonitor(l.ns)
}

// Log is the leaf's captured log.
func (l *Leaf) Log() *LogBuffer { return l.log }

// leafOptions is the lab's server's leaf node port, once a leaf asked for
// it: loopback only, for the leaf's user alone.
func (s *Server) leafOptions() server.LeafNodeOpts {
	if !s.leafAccept {
		return server.LeafNodeOpts{}
	}
	port := s.leafPort
	if port == 0 {
		port = server.RANDOM_PORT
	}
	return server.LeafNodeOpts{Host: "127.0.0.1", Port: port, Username: leafUser, Password: s.leafSecret}
}

// HubHears waits, timeout at most, until the lab's server has been told
// that a client of the leaf subscribes to each of subjects, and reports
// whether it was. The leaf passes a client's subscription on over its
// leaf connection a moment after the client made it (and the real CLI
// says "Subscribing on" before it even subscribes): until then a message
// published on the lab's server does not cross to that client.
func (l *Leaf) HubHears(subjects []string, timeout time.Duration) bool {
	return waitFor(timeout, func() bool { return l.hubHas(subjects) })
}

// hubHas reports whether the lab's server has been told that the leaf's
// clients subscribe to each of subjects.
func (l *Leaf) hubHas(subjects []string) bool {
	told := l.toldHub()
	for _, s := range subjects {
		if !told[s] {
			return false
		}
	}
	return true
}

// toldHub is what the lab's server has been told the leaf's clients
// subscribe to.
func (l *Leaf) toldHub() map[string]bool {
	told := map[string]bool{}
	hub := l.hub.NATS()
	if hub == nil {
		return told
	}
	lz, err := hub.Leafz(&server.LeafzOptions{Subscriptions: true})
	if err != nil {
		return told
	}
	for _, lf := range lz.Leafs {
		for _, s := range lf.Subs {
			told[s] = true
		}
	}
	return told
}

// Forgets waits, timeout at most, until the leaf node no longer hears
// from the lab's server of interest in any of subjects that the lab's
// server no longer has (no client of its subscribes to it, no stream
// stores it), and reports whether it did. A
// client of the lab's server that unsubscribes is forgotten at the leaf a
// moment after the lab's server has dropped it, once the leaf connection
// has carried the news: until then the leaf sends what its own clients
// publish on those subjects across, where nobody takes it, and a request
// made on the leaf waits for its timeout instead of finding no responders.
func (l *Leaf) Forgets(subjects []string, timeout time.Duration) bool {
	if len(subjects) == 0 {
		return true
	}
	return pollFor(timeout, func() bool { return l.forgot(subjects) })
}

// forgot reports whether the leaf no longer hears of the lab's server's
// interest in subjects, except where the lab's server still has it. A leaf that is stopped or cut off hears nothing.
func (l *Leaf) forgot(subjects []string) bool {
	l.mu.Lock()
	ns := l.ns
	l.mu.Unlock()
	if ns == nil || !ns.Running() {
		return true
	}
	lz, err := ns.Leafz(&server.LeafzOptions{Subscriptions: true})
	if err != nil {
		return true
	}
	heard := map[string]bool{}
	for _, lf := range lz.Leafs {
		for _, s := range lf.Subs {
			heard[s] = true
		}
	}
	var stale []string
	for _, s := range subjects {
		if heard[s] {
			stale = append(stale, s)
		}
	}
	if len(stale) == 0 {
		return true
	}
	hub := l.hub.NATS()
	if hub == nil {
		return true
	}
	// The lab's server's own subscriptions: its clients', and its
	// streams' and imports' (the server's list leaves the leaf's out).
	sz, err := hub.Subsz(&server.SubszOptions{Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return true
	}
	held := map[string]bool{}
	for _, sd := range sz.Subs {
		held[sd.Subject] = true
	}
	for _, s := range stale {
		if !held[s] {
			return false
		}
	}
	return true
}

// clientSubs is what the clients of ns, the leaf's server, subscribe to:
// the servers' own subjects ($SYS, $JS, $LDS) and the leaf connection's
// (what the lab's server wants) left out.
func clientSubs(ns *server.Server) []string {
	cz, err := ns.Connz(&server.ConnzOptions{Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return nil
	}
	var subs []string
	for _, c := range cz.Conns {
		if c.Kind != "Client" {
			continue
		}
		for _, s := range c.Subs {
			if !strings.HasPrefix(s, "$") {
				subs = append(subs, s)
			}
		}
	}
	return subs
}
