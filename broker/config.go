package broker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	// The keys below, the server's own and its check of the lab's
	// signature need ed25519's tables: they are computed while the
	// program initialises.
	_ "natslab/broker/keytables"
)

// A lesson may run the lab's server with a configuration of its own:
// users and permissions, accounts, subject mappings. It is a nats-server
// configuration file in the store area (nats.conf, which includes the lab's
// own settings from lab.conf: where it listens, where JetStream stores),
// read with nats-server's own parser and applied the way nats-server
// applies a changed file on reload.

const (
	configFile    = "nats.conf"
	labConfigFile = "lab.conf"
)

// ErrClusterConfig: a lesson's configuration runs on the single server.
var ErrClusterConfig = errors.New("a lesson's server configuration needs the single server: start natslab without --cluster")

// makeLabKey begins making the lab's own user, an nkey (so that what the
// configuration shows of it, its public key, gives nobody a way in), and
// returns what waits for it. It is made beside the rest of a start, which
// need not wait for it until the server's options are written.
func makeLabKey() func() nkeys.KeyPair {
	made := make(chan nkeys.KeyPair, 1)
	go func() {
		kp, err := nkeys.CreateUser()
		if err != nil {
			panic(err) // crypto/rand does not fail on the systems Go supports
		}
		made <- kp
	}()
	return sync.OnceValue(func() nkeys.KeyPair { return <-made })
}

// labPublic is the public key of the lab's own user.
func (s *Server) labPublic() string {
	pub, err := s.labKey().PublicKey()
	if err != nil {
		panic(err) // a key made by nkeys.CreateUser has one
	}
	return pub
}

// labNkey is the connection option presenting the lab's own user.
func (s *Server) labNkey() nats.Option {
	return nats.Nkey(s.labPublic(), s.labKey().Sign)
}

// Configure runs the server with conf, a nats-server configuration in its
// own syntax (authorization, accounts, mappings …), on top of the lab's own
// settings; "" returns to the lab's plain server (a restart). conf is
// checked with nats-server's parser first: a mistake changes nothing and
// the error says where it is. A running server reloads (nats-server
// --signal reload); where the configuration has accounts, before or after,
// it restarts instead.
func (s *Server) Configure(conf string) error {
	if s.cluster != nil {
		return ErrClusterConfig
	}
	text := ""
	if strings.TrimSpace(conf) != "" {
		text = configHeader + conf
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
	}
	return s.apply(text)
}

// ReloadConfig reads the configuration file again, as nats-server does on
// reload: for a learner who edited it in an editor of their own.
func (s *Server) ReloadConfig() error {
	if s.cluster != nil {
		return ErrClusterConfig
	}
	path := s.configPath()
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the lab's server runs without a configuration file: %s does not exist (a lesson that configures the server writes it)", path)
	}
	if err != nil {
		return err
	}
	return s.apply(string(raw))
}

// apply makes text the configuration file's content and applies it.
func (s *Server) apply(text string) error {
	s.mu.Lock()
	old := s.conf
	s.conf = text
	ns := s.ns
	s.mu.Unlock()
	o, err := s.options()
	if err != nil {
		s.mu.Lock()
		s.conf = old
		s.mu.Unlock()
		_, _ = s.options() // the files as they were
		return err
	}
	if ns == nil {
		return nil
	}
	if text == "" || hasAccounts(o) || s.accountsRan {
		// Back to the plain server, or accounts added or removed: a
		// restart. nats-server's reload keeps the global account's
		// mappings when the file no longer sets any, and the lab does not
		// rely on it to rewire accounts' imports and exports.
		s.Stop()
		return s.start()
	}
	if err := ns.ReloadOptions(o); err != nil {
		return fmt.Errorf("nats-server could not reload: %w", err)
	}
	s.mu.Lock()
	s.broadcastLocked()
	s.mu.Unlock()
	return nil
}

// hasAccounts reports whether o names accounts of its own: the global
// account alone (where top-level mappings live) is none.
func hasAccounts(o *server.Options) bool {
	for _, a := range o.Accounts {
		if a.Name != server.DEFAULT_GLOBAL_ACCOUNT {
			return true
		}
	}
	return false
}

// configPath is where the configuration file of the current area is.
func (s *Server) configPath() string { return filepath.Join(s.dataDir(), configFile) }

// Config is the configuration the server runs with: the file's path and
// its text, or, without one, "" and the lab's own settings written in
// nats-server's syntax.
func (s *Server) Config() (path, text string) {
	s.mu.Lock()
	conf := s.conf
	s.mu.Unlock()
	if conf == "" {
		return "", plainHeader + s.labConfig() + s.labUserNote(s.opts.Token != "" || s.opts.User != "")
	}
	o, err := server.ProcessConfigFile(s.configPath())
	return s.configPath(), conf + s.labUserNote(err == nil && requiresAuth(o))
}

// labUserNote says, under a configuration that makes clients
// authenticate, which user the lab adds for itself: the configuration the
// learner reads is the whole truth about who gets in.
func (s *Server) labUserNote(auth bool) string {
	if !auth {
		return ""
	}
	return "\n# natslab adds one user of its own, for its checks, scenes and status bar\n" +
		"# (all subjects allowed); only natslab holds its seed:\n" +
		"#   nkey: " + s.labPublic() + "\n"
}

// LabConfig is the lab's own part of the configuration (lab.conf).
func (s *Server) LabConfig() string { return s.labConfig() }

const configHeader = `# The configuration of the lab's nats-server, in nats-server's own syntax.
# The lab's settings (where it listens, JetStream's store) are in lab.conf.
# Edit this file and type config reload, and the server reads it again as
# nats-server --signal reload does.
include "lab.conf"

`

const plainHeader = `# The lab's nats-server runs with these settings (no configuration file;
# this is how they read in nats-server's configuration syntax).
`

// labConfig writes the lab's own settings in nats-server's syntax.
func (s *Server) labConfig() string {
	var b strings.Builder
	b.WriteString("server_name: natslab\n")
	host, port := s.listen.host, s.port
	if s.listen.none {
		host, port = "127.0.0.1", server.RANDOM_PORT
		b.WriteString("# no listener for clients outside this process (--listen none); the\n# server needs a port all the same, and takes a random one\n")
	} else if port == 0 {
		port = server.RANDOM_PORT
	}
	fmt.Fprintf(&b, "host: %s\nport: %d\n", host, port)
	if s.jetstream {
		fmt.Fprintf(&b, "jetstream {\n  store_dir: %s\n", strconv.Quote(s.dataDir()))
		if s.opts.MaxMemory > 0 {
			fmt.Fprintf(&b, "  max_memory_store: %d\n", s.opts.MaxMemory)
		}
		if s.opts.MaxStore > 0 {
			fmt.Fprintf(&b, "  max_file_store: %d\n", s.opts.MaxStore)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// options builds nats-server's options for the current state: the lab's
// plain settings, or the configuration file (written first) read with
// nats-server's parser. Either way, when the server requires anyone to
// authenticate, the lab's own user is added.
func (s *Server) options() (*server.Options, error) {
	s.mu.Lock()
	conf := s.conf
	s.mu.Unlock()
	dir := s.dataDir()
	if conf == "" {
		for _, f := range []string{configFile, labConfigFile} {
			_ = os.Remove(filepath.Join(dir, f))
		}
		o := s.serverOptions()
		s.addLabUser(o)
		return o, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, labConfigFile), []byte(s.labConfig()), 0o644); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, configFile)
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	o, err := server.ProcessConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("the configuration does not parse: %w", err)
	}
	plain := s.serverOptions()
	// The lab applies the file with ReloadOptions, not Reload: the path is
	// for nats-server's own reload, which would refuse a server that
	// started without one.
	o.ConfigFile = ""
	o.NoSigs, o.NoLog = true, false
	o.DontListen = plain.DontListen
	o.Host, o.Port = plain.Host, plain.Port
	o.JetStream, o.StoreDir = plain.JetStream, plain.StoreDir
	if !requiresAuth(o) {
		// A lesson that says nothing of users keeps the lab's own
		// --token or --user, so a lab listening beyond this machine stays
		// closed to strangers.
		o.Authorization, o.Username, o.Password = plain.Authorization, plain.Username, plain.Password
	}
	s.addLabUser(o)
	return o, nil
}

// requiresAuth reports whether the options make clients authenticate.
func requiresAuth(o *server.Options) bool {
	return o.Authorization != "" || o.Username != "" || len(o.Users) > 0 || len(o.Nkeys) > 0
}

// addLabUser lets the lab's own connections in wherever clients must
// authenticate: the lab's nkey user, with no permissions of its own (all
// subjects), in the global account. nats-server checks a client that
// presents no nkey as it would without it: a token, a single user, the
// users of the configuration. The server always sends a nonce to sign, so
// the lab's connections present the nkey from the start and keep getting
// in when a reload starts requiring users.
func (s *Server) addLabUser(o *server.Options) {
	o.AlwaysEnableNonce = true
	if !requiresAuth(o) {
		return
	}
	o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: s.labPublic()})
}

// ConnectAs opens a connection that presents cred and nothing more: a
// client of the learner's, refused where the server refuses cred. It
// comes over TCP when the single server listens, as a real client does:
// an in-process connection the server refuses loses the server's reason
// (Authorization Violation) with the pipe it closes.
func (s *Server) ConnectAs(name string, cred Credentials, extra ...nats.Option) (*nats.Conn, error) {
	opts := append(s.connectOptions(name), credentialOptions(cred)...)
	url := s.ClientURL()
	if url == "" || s.cluster != nil {
		// No listener; or a cluster, whose clients stay on the node they
		// talk to in-process (a lesson's configuration needs the single
		// server, so no refusal goes unexplained there).
		url = ""
		opts = append(opts, nats.InProcessServer(s))
	}
	// nats.go's own error, as a client prints it: nats: Authorization
	// Violation.
	return nats.Connect(url, append(opts, extra...)...)
}

// credentialOptions are nats.go's options presenting cred.
func credentialOptions(cred Credentials) []nats.Option {
	var opts []nats.Option
	if cred.Token != "" {
		opts = append(opts, nats.Token(cred.Token))
	}
	if cred.User != "" {
		opts = append(opts, nats.UserInfo(cred.User, cred.Password))
	}
	if cred.Creds != "" {
		opts = append(opts, nats.UserCredentials(cred.Creds))
	}
	return opts
}

// Mappings are the subject mappings the running server applies in its
// global account, as its /accountz endpoint reports them: source →
// destinations with their weights (percent).
func (m *Monitor) Mappings() (map[string][]server.MapDest, error) {
	az, err := m.ns.Accountz(&server.AccountzOptions{Account: server.DEFAULT_GLOBAL_ACCOUNT})
	if err != nil {
		return nil, err
	}
	out := map[string][]server.MapDest{}
	if az.Account == nil {
		return out, nil
	}
	for src, dests := range az.Account.Mappings {
		for _, d := range dests {
			out[src] = append(out[src], *d)
		}
	}
	return out, nil
}

// AccountStat is what the running server counts of one account: its
// clients' connections and the messages they published.
type AccountStat struct {
	Conns     int
	Published int64
}

// Account reports an account's numbers as the server's /accstatz
// endpoint does; ok is false when the server has no such account.
func (m *Monitor) Account(name string) (st AccountStat, ok bool, err error) {
	az, err := m.ns.AccountStatz(&server.AccountStatzOptions{Accounts: []string{name}, IncludeUnused: true})
	if err != nil {
		return AccountStat{}, false, err
	}
	for _, a := range az.Accounts {
		if a.Account == name {
			return AccountStat{Conns: a.Conns, Published: a.Received.Msgs}, true, nil
		}
	}
	return AccountStat{}, false, nil
}
