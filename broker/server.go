package broker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Options configure the embedded server.
type Options struct {
	// StoreDir holds the JetStream store, the lock, and the lab's own files.
	StoreDir string
	// JetStream switches JetStream on.
	JetStream bool
	// Listen is where real clients connect: "" for DefaultListen (moving to
	// a free port when 4222 is busy), "HOST:PORT", or "none".
	Listen string
	// Token, or User and Password, are required of every client when set.
	// A listener beyond loopback refuses to start without them.
	Token, User, Password string
	// Log receives the server's log; nil makes a new bounded buffer.
	Log *LogBuffer
	// ReadyTimeout bounds how long Start waits for the server; 0 means 10s.
	ReadyTimeout time.Duration
	// Cluster is 3 for a three-node JetStream cluster (n1, n2, n3) inside
	// the process; 0 or 1 for the single server. See cluster.go.
	Cluster int
	// MaxMemory and MaxStore cap what JetStream may keep in memory and on
	// disk, in bytes; 0 leaves nats-server's defaults (75% of the
	// machine's memory, and of the store's disk). Many servers in one
	// process (a workshop's labs) each need a small cap.
	MaxMemory, MaxStore int64
	// Starting, when set, is told in a line what the first start waits
	// for when that takes long enough for a person to wonder (a cluster
	// electing its leaders), before the screen is up.
	Starting func(line string)
}

// Server is a nats-server running inside this process.
type Server struct {
	opts   Options
	listen listenSpec
	lock   *storeLock
	log    *LogBuffer

	mu        sync.Mutex
	ns        *server.Server
	jetstream bool
	area      string // the store area in use: "" for the sandbox, else a sub-directory (a lesson's)
	port      int    // the client port actually bound, kept across restarts
	notice    string // e.g. why the port differs from the one asked for
	changed   chan struct{}
	closed    bool
	cluster   *cluster // nil for the single server

	// conf is the configuration file's text for the current area ("" for
	// the lab's plain settings; see config.go); accountsRan says whether
	// the server running now has accounts.
	conf        string
	accountsRan bool
	// labKey is the lab's own user (see labUser): an nkey whose seed
	// never leaves this process. It waits for the key makeLabKey began.
	labKey func() nkeys.KeyPair
	// The leaf node (leaf.go): once one was started, the server listens
	// for it on leafPort (kept across restarts), for the leaf user alone.
	leaf       *Leaf
	leafAccept bool
	leafPort   int
	leafSecret string
}

// ErrNotEmbedded is what a lab verb that needs the embedded server says when
// the lab points at an existing deployment.
var ErrNotEmbedded = errors.New("the lab is connected to an external NATS deployment: this only works with the lab's own embedded server (start natslab without --server)")

// Start locks the store directory and starts the server.
func Start(opts Options) (*Server, error) {
	if opts.StoreDir == "" {
		return nil, errors.New("no store directory: pass --store DIR")
	}
	spec, err := parseListen(opts.Listen)
	if err != nil {
		return nil, err
	}
	if !spec.loopback() && opts.Token == "" && (opts.User == "" || opts.Password == "") {
		return nil, fmt.Errorf("--listen %s reaches beyond this machine: add --token SECRET or --user NAME --password SECRET so only your room can connect", net.JoinHostPort(spec.host, strconv.Itoa(spec.port)))
	}
	if (opts.User == "") != (opts.Password == "") {
		return nil, errors.New("--user and --password go together: give both, or use --token")
	}
	if err := checkClusterSize(opts.Cluster); err != nil {
		return nil, err
	}
	labKey := makeLabKey()
	abs, err := filepath.Abs(opts.StoreDir)
	if err != nil {
		return nil, fmt.Errorf("store directory %q: %w", opts.StoreDir, err)
	}
	opts.StoreDir = abs
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the store directory: %w (choose another with --store DIR)", err)
	}
	lock, err := lockStore(abs)
	if err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = NewLogBuffer(DefaultLogLines)
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 10 * time.Second
	}
	s := &Server{opts: opts, listen: spec, lock: lock, log: opts.Log, jetstream: opts.JetStream, port: spec.port, changed: make(chan struct{}), labKey: labKey}
	if !spec.none && spec.port != 0 && !portFree(spec.host, spec.port) {
		if !spec.fallback {
			lock.release()
			return nil, fmt.Errorf("cannot listen on %s: the port is in use (pick another with --listen HOST:PORT, or --listen none)", net.JoinHostPort(spec.host, strconv.Itoa(spec.port)))
		}
		s.notice = fmt.Sprintf("port %d is in use, so the lab listens on a free port instead", spec.port)
		s.port = 0
	}
	if opts.Cluster == ClusterSize {
		s.cluster = newCluster(spec, s.port)
	}
	err = s.start()
	s.opts.Starting = nil // only the first start: later ones show in the lab
	if err != nil {
		lock.release()
		return nil, err
	}
	return s, nil
}

// serverOptions builds nats-server's options for the current state.
func (s *Server) serverOptions() *server.Options {
	o := &server.Options{
		ServerName: "natslab",
		JetStream:  s.jetstream,
		StoreDir:   s.dataDir(),
		NoSigs:     true, // never let the server os.Exit behind the TUI's back
		NoLog:      false,
		Host:       s.listen.host,
		Port:       s.port,
		DontListen: s.listen.none,
		// The HTTP monitor and cluster ports stay off: nothing beyond the
		// client port is opened.
		Authorization: s.opts.Token,
		Username:      s.opts.User,
		Password:      s.opts.Password,

		JetStreamMaxMemory: s.opts.MaxMemory,
		JetStreamMaxStore:  s.opts.MaxStore,
	}
	if o.Port == 0 {
		o.Port = server.RANDOM_PORT
	}
	if s.listen.none {
		o.Host, o.Port = "127.0.0.1", server.RANDOM_PORT
	}
	return o
}

func (s *Server) start() error {
	if s.cluster != nil {
		return s.startCluster()
	}
	o, err := s.options()
	if err != nil {
		return err
	}
	s.mu.Lock()
	o.LeafNode = s.leafOptions() // the leaf node joins the single server only
	s.mu.Unlock()
	ns, err := server.NewServer(o)
	if err != nil {
		return fmt.Errorf("cannot configure nats-server: %w", err)
	}
	ns.SetLoggerV2(serverLogger{s.log}, false, false, false)
	ns.Start()
	if !ns.ReadyForConnections(s.opts.ReadyTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		if f := s.log.lastFatal(); f != "" {
			return fmt.Errorf("nats-server did not start: %s", f)
		}
		return fmt.Errorf("nats-server was not ready after %s (see its log)", s.opts.ReadyTimeout)
	}
	if s.jetstream && !ns.JetStreamEnabled() {
		ns.Shutdown()
		ns.WaitForShutdown()
		return fmt.Errorf("nats-server started without JetStream: %s", s.log.lastFatal())
	}
	leafPort := 0
	if o.LeafNode.Port != 0 {
		if v, err := ns.Varz(nil); err == nil {
			leafPort = v.LeafNode.Port // the port bound, when asked for any
		}
	}
	s.mu.Lock()
	s.ns = ns
	s.accountsRan = hasAccounts(o)
	if leafPort != 0 {
		s.leafPort = leafPort
	}
	if !s.listen.none {
		if addr, ok := ns.Addr().(*net.TCPAddr); ok {
			s.port = addr.Port
		}
	}
	s.broadcastLocked()
	s.mu.Unlock()
	return nil
}

func (s *Server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Changed returns a channel closed at the next change of state: a start, a
// stop, JetStream switched.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Restart stops the server and starts it again on the same store and port,
// with JetStream on or off: what a learner means by `nats-server -js`.
func (s *Server) Restart(jetstream bool) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("the lab's server has been shut down")
	}
	if s.cluster != nil {
		s.jetstream = jetstream
		s.mu.Unlock()
		return s.restartCluster()
	}
	old := s.ns
	s.ns = nil
	s.jetstream = jetstream
	s.broadcastLocked()
	s.mu.Unlock()
	if old != nil {
		old.Shutdown()
		old.WaitForShutdown()
	}
	return s.start()
}

// Stop shuts the server down but keeps the store locked, so Restart can
// bring it back; while stopped, clients cannot connect.
func (s *Server) Stop() {
	if s.cluster != nil {
		s.stopCluster()
		return
	}
	s.mu.Lock()
	old := s.ns
	s.ns = nil
	s.broadcastLocked()
	s.mu.Unlock()
	if old != nil {
		old.Shutdown()
		old.WaitForShutdown()
	}
}

// Shutdown stops the server for good and releases the store.
func (s *Server) Shutdown() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	leaf := s.leaf
	s.mu.Unlock()
	if leaf != nil {
		leaf.close()
	}
	s.Stop()
	s.lock.release()
}

// Running reports whether the server is up and accepting clients (with
// --cluster, whether any node is).
func (s *Server) Running() bool {
	if s.cluster != nil {
		return len(s.runningNodes()) > 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ns != nil
}

// NATS returns the running nats-server, or nil while it is stopped. With
// --cluster it is the first node running (see Node for a given one); what it
// reports about JetStream covers the streams that node holds.
func (s *Server) NATS() *server.Server {
	if s.cluster != nil {
		if nodes := s.runningNodes(); len(nodes) > 0 {
			return nodes[0]
		}
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ns
}

// JetStream reports whether JetStream is switched on.
func (s *Server) JetStream() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jetstream
}

// StoreDir is the absolute store directory.
func (s *Server) StoreDir() string { return s.opts.StoreDir }

// Log is the server's captured log.
func (s *Server) Log() *LogBuffer { return s.log }

// Notice is a remark about how the server was started that the user should
// see (a busy port moved), or "".
func (s *Server) Notice() string { return s.notice }

// Version is the embedded nats-server's version.
func (s *Server) Version() string { return server.VERSION }

// ClientURL is the URL real clients use, or "" with --listen none. With
// --cluster it lists every node: nats://127.0.0.1:P1,nats://127.0.0.1:P2,…
func (s *Server) ClientURL() string {
	if s.listen.none {
		return ""
	}
	if s.cluster != nil {
		return s.clusterURL()
	}
	s.mu.Lock()
	port := s.port
	s.mu.Unlock()
	host := s.listen.host
	if host == "0.0.0.0" || host == "::" {
		// Reachable from everywhere; on this machine loopback is the address that surely works.
		host = "127.0.0.1"
	}
	return "nats://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// Credentials implements Deployment: what every client must present.
func (s *Server) Credentials() Credentials {
	return Credentials{User: s.opts.User, Password: s.opts.Password, Token: s.opts.Token}
}

// Describe implements Deployment.
func (s *Server) Describe() string {
	if u := s.ClientURL(); u != "" {
		return u
	}
	return "in-process only"
}

// Own implements Deployment: this is the lab's own server.
func (s *Server) Own() bool { return true }

// Close implements Deployment: Shutdown.
func (s *Server) Close() { s.Shutdown() }

// Monitor implements Deployment.
func (s *Server) Monitor() *Monitor {
	m := newMonitor(s.NATS())
	if m != nil && s.cluster == nil {
		s.mu.Lock()
		leaf := s.leaf
		s.mu.Unlock()
		if leaf != nil {
			m.leaf = leaf.running.Load()
		}
	}
	return m
}

// Monitors implements Deployment.
func (s *Server) Monitors() []*Monitor {
	var nodes []*server.Server
	if s.cluster != nil {
		nodes = s.runningNodes()
	} else if ns := s.NATS(); ns != nil {
		nodes = []*server.Server{ns}
	}
	out := make([]*Monitor, 0, len(nodes))
	for _, ns := range nodes {
		out = append(out, newMonitor(ns))
	}
	return out
}

// Cluster implements Deployment.
func (s *Server) Cluster() Cluster {
	if s.cluster == nil {
		return nil
	}
	return s
}

// InProcessConn hands nats.go a pipe into whichever server is running now,
// so in-process clients reconnect by themselves after a restart. The pipe
// has a send buffer, as a socket has (bufferedConn).
func (s *Server) InProcessConn() (net.Conn, error) {
	ns := s.NATS() // with --cluster, a running node: clients fail over when one stops
	if ns == nil {
		return nil, errors.New("the lab's server is stopped")
	}
	c, err := ns.InProcessConn()
	if err != nil {
		return nil, err
	}
	return newBufferedConn(c), nil
}

// Connect opens an in-process client connection named name.
// It is the lab's own connection: it presents the lab's nkey user, which
// the lab adds wherever the server requires clients to authenticate, so it
// gets in whatever natslab's --token or --user or a lesson's configuration
// asks. A learner's client connects with ConnectAs.
func (s *Server) Connect(name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := append(s.connectOptions(name), nats.InProcessServer(s), s.labNkey())
	opts = append(opts, extra...)
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the lab's server: %w", err)
	}
	return nc, nil
}

// connectOptions are what every connection the lab makes is.
func (s *Server) connectOptions(name string) []nats.Option {
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(50 * time.Millisecond),
		nats.ReconnectBufSize(-1), // never buffer publishes while the server is down: say so instead
		// nats.go prints async errors to stderr by default, which is the
		// terminal the TUI draws on. Commands that care pass their own.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	}
}

// Stats counts streams, consumers and connections from the server itself.
func (s *Server) Stats() Stats {
	if s.cluster != nil {
		return s.clusterStats()
	}
	ns := s.NATS()
	if ns == nil {
		return Stats{Connections: 0}
	}
	st := Stats{JetStream: ns.JetStreamEnabled(), Connections: ns.NumClients()}
	if st.JetStream {
		if jsi, err := ns.Jsz(&server.JSzOptions{}); err == nil {
			st.Streams, st.Consumers = jsi.Streams, jsi.Consumers
		}
	}
	return st
}

// startupSummary is the one line `natslab serve` prints after the log:
// where to connect (from the room first, when there is one) and what a
// client must present, never the secret itself.
func startupSummary(a Access) string {
	url := a.URL()
	line := "natslab is serving NATS at " + url
	if len(a.Room) > 0 {
		line += " for the room"
		if len(a.Room) > 1 {
			line += " (also " + strings.Join(a.Room[1:], ", ") + ")"
		}
		line += ", " + a.Local + " on this machine"
	}
	if a.Needs != "" {
		line += "; clients need " + a.Needs
	}
	flags := ""
	if f := a.Flags(); f != "" {
		flags = " " + f
	}
	return line + fmt.Sprintf("  (point the nats CLI at it: nats --server %s%s …, or export NATS_URL=%s)", url, flags, url)
}

// dataDir is the directory nats-server stores into for the current area.
func (s *Server) dataDir() string {
	if s.area == "" {
		return s.opts.StoreDir
	}
	return filepath.Join(s.opts.StoreDir, s.area)
}

// JetStreamDir is where the server keeps its JetStream store now.
func (s *Server) JetStreamDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster != nil {
		return s.clusterDir() // every node's store: n1/jetstream, n2/jetstream, n3/jetstream
	}
	return filepath.Join(s.dataDir(), "jetstream")
}

// Area is the store area in use: "" for the sandbox, else e.g. "lessons/first-stream".
func (s *Server) Area() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.area
}

// UseArea restarts the server on another area of the store, so that a
// lesson's streams live apart from the sandbox's and neither disturbs the
// other: "" is the sandbox, "lessons/ID" a lesson's. fresh erases the area
// first (a lesson starting over). The port, the lock and the log stay.
func (s *Server) UseArea(area string, jetstream, fresh bool) error {
	clean := filepath.Clean("/" + area)[1:]
	if area != "" && (clean != area || strings.HasPrefix(area, "..")) {
		return fmt.Errorf("invalid store area %q", area)
	}
	if l := s.Leaf(); l != nil {
		_, _ = l.Stop() // a lesson starts without a leaf node (an error: none was running)
	}
	s.Stop()
	s.mu.Lock()
	s.area = area
	s.jetstream = jetstream
	s.conf = ""
	s.mu.Unlock()
	if fresh {
		if err := os.RemoveAll(s.JetStreamDir()); err != nil {
			return errors.Join(fmt.Errorf("cannot erase %s: %w", s.JetStreamDir(), err), s.start())
		}
		return s.start()
	}
	// An area returned to keeps its configuration file, edits and all, as
	// a nats-server started again with it would; one that no longer
	// parses is set aside for the lab's plain settings.
	if raw, err := os.ReadFile(s.configPath()); err == nil {
		s.mu.Lock()
		s.conf = string(raw)
		s.mu.Unlock()
		if err := s.start(); err == nil {
			return nil
		}
		s.mu.Lock()
		s.conf = ""
		s.mu.Unlock()
	}
	return s.start()
}

// Reset stops the server, erases every stream, consumer and bucket (the
// JetStream store; the lab's own files in the store directory stay), and
// starts it again as it was.
func (s *Server) Reset() error {
	s.Stop()
	if err := os.RemoveAll(s.JetStreamDir()); err != nil {
		startErr := s.start()
		return errors.Join(fmt.Errorf("cannot erase %s: %w", s.JetStreamDir(), err), startErr)
	}
	return s.start()
}
