package broker

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ExternalOptions describe an existing NATS deployment.
type ExternalOptions struct {
	URL            string // one URL or a comma-separated list (a cluster)
	Creds          string // a .creds file
	User, Password string
	Token          string
	ConnectTimeout time.Duration
}

// External is an existing NATS deployment the lab uses instead of its own.
type External struct {
	opts ExternalOptions
}

// Dial checks that the deployment answers and returns it.
func Dial(opts ExternalOptions) (*External, error) {
	if strings.TrimSpace(opts.URL) == "" {
		return nil, errors.New("--server needs a URL, for example nats://127.0.0.1:4222")
	}
	if opts.Creds != "" {
		if _, err := os.Stat(opts.Creds); err != nil {
			return nil, fmt.Errorf("--creds %s: %w", opts.Creds, err)
		}
	}
	if (opts.User == "") != (opts.Password == "") {
		return nil, errors.New("--user and --password go together: give both, or use --token")
	}
	opts = liftUserInfo(opts)
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	e := &External{opts: opts}
	nc, err := e.Connect("natslab probe", nats.MaxReconnects(0), nats.RetryOnFailedConnect(false))
	if err != nil {
		return nil, err
	}
	nc.Close()
	return e, nil
}

// Connect implements Deployment: the URL, presenting what natslab was
// given.
func (e *External) Connect(name string, extra ...nats.Option) (*nats.Conn, error) {
	return e.ConnectAs(name, e.Credentials(), extra...)
}

// ConnectAs implements Deployment: the URL, presenting cred.
func (e *External) ConnectAs(name string, cred Credentials, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(e.opts.ConnectTimeout),
		nats.MaxReconnects(-1),
		nats.ReconnectBufSize(-1),
		// nats.go prints async errors to stderr by default, which is the
		// terminal the TUI draws on. Commands that care pass their own.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	}
	opts = append(append(opts, credentialOptions(cred)...), extra...)
	nc, err := nats.Connect(e.opts.URL, opts...)
	if err != nil {
		return nil, connectError(e.opts.URL, cred, err)
	}
	return nc, nil
}

// connectError says that urls could not be reached, and what to check:
// the address where nothing answers, the credentials where the server
// refused them (or asked for some and had none), the scheme where a ws:// URL met a port that speaks the
// NATS protocol (nats.go's error then quotes the server's whole INFO).
// nats.go and net/url quote the URL they were given, user info and all.
func connectError(urls string, cred Credentials, err error) error {
	shown := RedactURL(urls)
	msg := err.Error()
	switch {
	case errors.Is(err, nats.ErrNoServers):
		return fmt.Errorf("cannot connect to %s: %w (nothing answers there: check that the server runs and --server names its host and port)", shown, err)
	case strings.Contains(strings.ToLower(msg), nats.AUTHORIZATION_ERR) && cred == Credentials{}:
		return fmt.Errorf("cannot connect to %s: %w (the server asks for credentials, and none were given: add --user and --password, --token or --creds, or put the user and password in the URL)", shown, RedactError(err))
	case strings.Contains(strings.ToLower(msg), nats.AUTHORIZATION_ERR):
		return fmt.Errorf("cannot connect to %s: %w (the server refused the credentials: check --user and --password, --token, --creds or the user and password in the URL)", shown, RedactError(err))
	case strings.Contains(msg, "malformed HTTP status code") && strings.Contains(msg, "server_id"):
		return fmt.Errorf("cannot connect to %s: a ws:// URL asks for a WebSocket, and the server answered there in the NATS protocol: use nats:// for that port", shown)
	}
	return fmt.Errorf("cannot connect to %s: %w (check --server and the credentials)", shown, RedactError(err))
}

// Configure implements Deployment: an external deployment's configuration
// is its operators' business.
func (e *External) Configure(string) error { return ErrNotEmbedded }

// ReloadConfig implements Deployment.
func (e *External) ReloadConfig() error { return ErrNotEmbedded }

// Config implements Deployment.
func (e *External) Config() (string, string) { return "", "" }

// ClientURL implements Deployment: the URL as given, its user info masked.
func (e *External) ClientURL() string { return RedactURL(e.opts.URL) }

// Credentials implements Deployment: what natslab was given with --server.
func (e *External) Credentials() Credentials {
	return Credentials{User: e.opts.User, Password: e.opts.Password, Token: e.opts.Token, Creds: e.opts.Creds}
}

// Describe implements Deployment.
func (e *External) Describe() string { return "external " + e.ClientURL() }

// liftUserInfo moves the user and password (or token) of the URLs into the
// options, as if given with --user and --password (or --token): the URL the
// lab shows and hands to the real CLI then holds no secret, and the
// credentials travel the way natslab keeps them out of sight. It leaves
// the URLs alone when credentials were given apart, when a URL does not
// parse, or when URLs of a list carry different ones.
func liftUserInfo(opts ExternalOptions) ExternalOptions {
	opts.URL = withScheme(opts.URL)
	if opts.User != "" || opts.Password != "" || opts.Token != "" || opts.Creds != "" {
		return opts
	}
	parts := strings.Split(opts.URL, ",")
	var info *url.Userinfo
	for i, p := range parts {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil {
			return opts
		}
		if u.User != nil {
			if info != nil && info.String() != u.User.String() {
				return opts
			}
			info = u.User
		}
		u.User = nil
		parts[i] = u.String()
	}
	if info == nil {
		return opts
	}
	if pass, ok := info.Password(); ok {
		opts.User, opts.Password = info.Username(), pass
	} else {
		opts.Token = info.Username()
	}
	opts.URL = strings.Join(parts, ",")
	return opts
}

// withScheme gives each URL of a comma-separated list the nats:// that
// nats.go assumes when it is left out, so that user info in it is seen
// (and masked) like any URL's.
func withScheme(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		if p = strings.TrimSpace(p); p != "" && !strings.Contains(p, "://") {
			parts[i] = "nats://" + p
		}
	}
	return strings.Join(parts, ",")
}

// Own implements Deployment: an external deployment is not the lab's own.
func (e *External) Own() bool { return false }

// Running implements Deployment: taken as running; clients find out otherwise.
func (e *External) Running() bool { return true }

// JetStream implements Deployment: false; ask the deployment's JetStream API.
func (e *External) JetStream() bool { return false }

// Stats implements Deployment: an external deployment's numbers are read
// over a client connection (JetStream account info), not from here.
func (e *External) Stats() Stats { return Stats{Connections: -1} }

// Changed implements Deployment: nil, a channel that never closes.
func (e *External) Changed() <-chan struct{} { return nil }

// Monitor implements Deployment: nil, the servers are not in this process.
func (e *External) Monitor() *Monitor { return nil }

// Monitors implements Deployment: none.
func (e *External) Monitors() []*Monitor { return nil }

// Log implements Deployment: nil, the servers' logs are theirs.
func (e *External) Log() *LogBuffer { return nil }

// Notice implements Deployment.
func (e *External) Notice() string { return "" }

// Version implements Deployment: "", not known without a connection.
func (e *External) Version() string { return "" }

// StoreDir implements Deployment: "".
func (e *External) StoreDir() string { return "" }

// JetStreamDir implements Deployment: "".
func (e *External) JetStreamDir() string { return "" }

// Area implements Deployment: "".
func (e *External) Area() string { return "" }

// UseArea implements Deployment: ErrNotEmbedded.
func (e *External) UseArea(string, bool, bool) error { return ErrNotEmbedded }

// Restart implements Deployment: ErrNotEmbedded.
func (e *External) Restart(bool) error { return ErrNotEmbedded }

// Reset implements Deployment: ErrNotEmbedded.
func (e *External) Reset() error { return ErrNotEmbedded }

// Cluster implements Deployment: nil.
func (e *External) Cluster() Cluster { return nil }

// Leaf is nil: the lab starts leaf nodes for its own server only.
func (e *External) Leaf() *Leaf { return nil }

// Close implements Deployment: an external deployment is left running.
func (e *External) Close() {}
