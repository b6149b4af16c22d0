package broker

import (
	"errors"
	"fmt"
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

// Connect implements Deployment.
func (e *External) Connect(name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.Timeout(e.opts.ConnectTimeout),
		nats.MaxReconnects(-1),
		nats.ReconnectBufSize(-1),
		// nats.go prints async errors to stderr by default, which is the
		// terminal the TUI draws on. Commands that care pass their own.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	}
	if e.opts.Creds != "" {
		opts = append(opts, nats.UserCredentials(e.opts.Creds))
	}
	if e.opts.User != "" {
		opts = append(opts, nats.UserInfo(e.opts.User, e.opts.Password))
	}
	if e.opts.Token != "" {
		opts = append(opts, nats.Token(e.opts.Token))
	}
	opts = append(opts, extra...)
	nc, err := nats.Connect(e.opts.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w (check --server and the credentials)", e.opts.URL, err)
	}
	return nc, nil
}

// ClientURL implements Deployment.
func (e *External) ClientURL() string { return e.opts.URL }

// Describe implements Deployment.
func (e *External) Describe() string { return "external " + e.opts.URL }

// Embedded implements Deployment: an external deployment has no embedded server.
func (e *External) Embedded() *Server { return nil }
