package broker

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// Config is what natslab's flags say about the deployment.
type Config struct {
	Store     string // --store; "" for DefaultStoreDir
	Listen    string // --listen
	JetStream bool   // --jetstream
	Server    string // --server: use an existing deployment instead
	Creds     string
	User      string
	Password  string
	Token     string
	Log       *LogBuffer
	Cluster   int // --cluster: 3 for the three-node cluster, 0 or 1 for one server
	// Starting hears what a slow first start waits for (see Options).
	Starting func(line string)
}

// DefaultStoreDir is the per-user data directory, e.g. ~/.local/share/natslab.
func DefaultStoreDir() string {
	if d := xdg.DataHome; d != "" {
		return filepath.Join(d, "natslab")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "natslab")
	}
	return filepath.Join(home, ".local", "share", "natslab")
}

// StoreDir is the configured store directory or the default.
func (c Config) StoreDir() string {
	if c.Store != "" {
		return c.Store
	}
	return DefaultStoreDir()
}

// Open starts the embedded server, or dials the external deployment when
// --server is given. Its Close releases it.
func Open(c Config) (Deployment, error) {
	if c.Server != "" && c.Cluster > 1 {
		return nil, errors.New("--cluster starts the lab's own cluster, and --server points at an existing deployment: use one or the other")
	}
	if c.Server != "" {
		return Dial(ExternalOptions{URL: c.Server, Creds: c.Creds, User: c.User, Password: c.Password, Token: c.Token})
	}
	if c.Creds != "" {
		return nil, errors.New("--creds is for an existing deployment: use it with --server URL")
	}
	return Start(Options{StoreDir: c.StoreDir(), JetStream: c.JetStream, Listen: c.Listen, Token: c.Token, User: c.User, Password: c.Password, Log: c.Log, Cluster: c.Cluster, Starting: c.Starting})
}
