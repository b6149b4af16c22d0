package workshop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"charm.land/log/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/gofrs/flock"
	gossh "golang.org/x/crypto/ssh"

	"natslab/broker/text"
	"natslab/lab/episode"
	"natslab/lab/policy"
)

// Defaults for Options left zero.
const (
	DefaultSSH        = "127.0.0.1:2222"
	DefaultMax        = 50
	DefaultParkAfter  = 10 * time.Minute
	DefaultStuckAfter = 5 * time.Minute
	// JetStream's caps per attendee: enough for every lesson and a flood
	// exercise, small enough that 50 labs fit a laptop.
	DefaultMaxMemory = 64 << 20
	DefaultMaxStore  = 256 << 20
)

// Options configure a workshop.
type Options struct {
	// SSH is where attendees connect, HOST:PORT (port 0: any free port).
	SSH string
	// Room is the room code attendees must type. Empty on a loopback
	// address: none is asked. Empty beyond loopback: one is generated.
	Room string
	// Store holds the host key and one directory per attendee.
	Store string
	// Max is the most attendees (labs) at once.
	Max int
	// ParkAfter: a lab whose attendee left is parked after this long.
	ParkAfter time.Duration
	// StuckAfter: an attendee this long on one step is shown as stuck.
	StuckAfter time.Duration
	// MaxMemory and MaxStore cap each attendee's JetStream, in bytes.
	MaxMemory, MaxStore int64
	// AttendeeURLs gives each attendee's server a loopback listener with a
	// token of its own (held in memory, never shown), so that the lab's
	// commands that run the real nats CLI (bench, object, server …) reach
	// it. Off, the servers listen nowhere and those commands are refused.
	AttendeeURLs bool
	// Policy is the process's (cores, memory), applied by Main once for
	// every lab the workshop serves.
	Policy policy.Policy
	// Look is the instructor's terminal's; each attendee's comes from their
	// own SSH session's environment.
	Look policy.Look
}

// Workshop serves the labs. Its methods are safe from any goroutine.
type Workshop struct {
	opts      Options
	room      string
	generated bool // the room code was made here, not given
	addr      *net.TCPAddr
	ln        net.Listener
	srv       *ssh.Server
	lock      *flock.Flock
	cat       *episode.Catalog
	tries     *attempts
	ctx       context.Context
	cancel    context.CancelFunc
	sessions  sync.WaitGroup

	mu      sync.Mutex
	labs    map[string]*attendee
	events  []Event
	banner  string
	changed chan struct{}
	closed  bool
}

// Event is one line of the workshop's log, for the instructor.
type Event struct {
	At   time.Time
	Text string
	Warn bool // a refusal or a failure
}

// Start locks the store, loads (or makes) the host key, listens and
// serves until Close.
func Start(opts Options) (*Workshop, error) {
	if opts.SSH == "" {
		opts.SSH = DefaultSSH
	}
	if opts.Max <= 0 {
		opts.Max = DefaultMax
	}
	if opts.ParkAfter <= 0 {
		opts.ParkAfter = DefaultParkAfter
	}
	if opts.StuckAfter <= 0 {
		opts.StuckAfter = DefaultStuckAfter
	}
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	if opts.MaxStore <= 0 {
		opts.MaxStore = DefaultMaxStore
	}
	if opts.Store == "" {
		return nil, errors.New("no store directory: pass --store DIR")
	}
	hostPart, portPart, err := net.SplitHostPort(opts.SSH)
	if err != nil {
		return nil, fmt.Errorf("--ssh %s: give HOST:PORT, e.g. %s or 0.0.0.0:2222 for the room", opts.SSH, DefaultSSH)
	}
	if p, err := strconv.Atoi(portPart); err != nil || p < 0 || p > 65535 {
		return nil, fmt.Errorf("--ssh %s: the port must be a number from 0 to 65535", opts.SSH)
	}
	w := &Workshop{opts: opts, labs: map[string]*attendee{}, tries: newAttempts(), changed: make(chan struct{})}
	w.room, w.generated = roomFor(hostPart, opts.Room)
	if w.room != "" && len(w.room) < 4 {
		return nil, errors.New("--room: a room code needs at least 4 characters")
	}
	if w.cat, err = episode.Load(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(opts.Store)
	if err != nil {
		return nil, fmt.Errorf("store directory %q: %w", opts.Store, err)
	}
	w.opts.Store = abs
	if err := os.MkdirAll(filepath.Join(abs, attendeesDir), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the workshop's store: %w (choose another with --store DIR)", err)
	}
	w.lock = flock.New(filepath.Join(abs, "workshop.lock"))
	if ok, err := w.lock.TryLock(); err != nil || !ok {
		return nil, fmt.Errorf("another natslab workshop is using the store %s: stop it, or pass --store DIR", abs)
	}
	fail := func(err error) (*Workshop, error) {
		_ = w.lock.Unlock()
		return nil, err
	}
	// wish and charm's ssh log through charm's default logger: never onto
	// the instructor's screen, never a secret; the events say what matters.
	log.SetOutput(discard{})

	w.srv, err = wish.NewServer(
		wish.WithHostKeyPath(filepath.Join(abs, "ssh_host_ed25519_key")),
		wish.WithVersion("natslab"),
		wish.WithBannerHandler(w.bannerFor),
		// Dead connections (a laptop closed mid-lesson) end after this;
		// the lab waits, parked later, for the attendee's return.
		wish.WithIdleTimeout(2*time.Hour),
	)
	if err != nil {
		return fail(fmt.Errorf("the SSH host key in %s: %w", abs, err))
	}
	if w.room != "" {
		w.srv.KeyboardInteractiveHandler = w.keyboardInteractive
	}
	w.srv.Handler = w.handle
	// Sessions only: no port forwarding, no subsystems (sftp, scp).
	w.srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": ssh.DefaultSessionHandler}
	w.srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	w.srv.RequestHandlers = map[string]ssh.RequestHandler{}
	w.srv.ServerConfigCallback = func(ssh.Context) *gossh.ServerConfig {
		return &gossh.ServerConfig{MaxAuthTries: 3}
	}

	w.ln, err = net.Listen("tcp", opts.SSH)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fail(fmt.Errorf("cannot listen on %s: the port is in use (pick another with --ssh HOST:PORT)", opts.SSH))
	case err != nil:
		return fail(fmt.Errorf("cannot listen on %s: %v (pick another with --ssh HOST:PORT)", opts.SSH, err))
	}
	w.addr = w.ln.Addr().(*net.TCPAddr)
	w.ctx, w.cancel = context.WithCancel(context.Background())
	go func() { _ = w.srv.Serve(w.ln) }()
	go w.watch()
	w.logf(false, "workshop open on %s", w.addr)
	return w, nil
}

// roomFor is the room code for a workshop on host: the one given, none on
// loopback, a new one beyond.
func roomFor(host, given string) (code string, generated bool) {
	if given != "" || isLoopback(host) {
		return given, false
	}
	return NewRoomCode(), true
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func isLoopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Addr is where the workshop listens.
func (w *Workshop) Addr() *net.TCPAddr { return w.addr }

// Room is the room code, "" when none is asked. Only the instructor's
// terminal shows it.
func (w *Workshop) Room() (code string, generated bool) { return w.room, w.generated }

// Fingerprint is the SSH host key's, as ssh shows it on a first connection
// ("ED25519 key fingerprint is SHA256:…"), for attendees to compare.
func (w *Workshop) Fingerprint() string {
	if len(w.srv.HostSigners) == 0 {
		return ""
	}
	return gossh.FingerprintSHA256(w.srv.HostSigners[0].PublicKey())
}

// Store is the workshop's store directory.
func (w *Workshop) Store() string { return w.opts.Store }

// Max is the most labs the workshop serves.
func (w *Workshop) Max() int { return w.opts.Max }

// JoinCommand is what attendees type.
func (w *Workshop) JoinCommand() string {
	h := w.addr.IP.String()
	if w.addr.IP.IsUnspecified() {
		h = "THIS-MACHINE"
	}
	return joinCommand(h, w.addr.Port, "NAME")
}

// joinAs is the command that reaches the workshop as name, to an attendee
// whose session came in at local: the address they typed, where the
// instructor's JoinCommand may only say THIS-MACHINE.
func joinAs(local net.Addr, name string) string {
	a, ok := local.(*net.TCPAddr)
	if !ok {
		return "ssh -p PORT " + name + "@HOST"
	}
	return joinCommand(a.IP.String(), a.Port, name)
}

func joinCommand(host string, port int, name string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == 22 {
		return "ssh " + name + "@" + host
	}
	return fmt.Sprintf("ssh -p %d %s@%s", port, name, host)
}

// Changed is closed at the next change the instructor might see.
func (w *Workshop) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

func (w *Workshop) changedLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

const maxEvents = 200

func (w *Workshop) logf(warn bool, format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, Event{At: time.Now(), Text: fmt.Sprintf(format, a...), Warn: warn})
	if len(w.events) > maxEvents {
		w.events = append([]Event(nil), w.events[len(w.events)-maxEvents:]...)
	}
	w.changedLocked()
}

// Events are the latest log lines, oldest first.
func (w *Workshop) Events(n int) []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > len(w.events) {
		n = len(w.events)
	}
	return append([]Event(nil), w.events[len(w.events)-n:]...)
}

// liveLocked is every connected session. w.mu is held.
func (w *Workshop) liveLocked() []*connection {
	var live []*connection
	for _, a := range w.labs {
		if a.conn != nil {
			live = append(live, a.conn)
		}
	}
	return live
}

// Close ends every session (telling attendees why), parks every lab and
// releases the store.
func (w *Workshop) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	live := w.liveLocked()
	w.mu.Unlock()
	_ = w.ln.Close()
	for _, c := range live {
		c.kick("natslab: the workshop has ended. Thank you for coming!")
	}
	w.sessions.Wait()
	// Each attendee's ssh closes its own connection once it has read the
	// end of its session; closing the connections under it instead makes it
	// print "Connection reset by peer" after the goodbye. A client that
	// does not close in a moment is closed all the same.
	grace, done := context.WithTimeout(context.Background(), 3*time.Second)
	if w.srv.Shutdown(grace) != nil {
		_ = w.srv.Close()
	}
	done()
	w.cancel()
	w.mu.Lock()
	labs := make([]*attendee, 0, len(w.labs))
	for _, a := range w.labs {
		labs = append(labs, a)
	}
	w.mu.Unlock()
	for _, a := range labs {
		a.turn.Lock()
		w.stopServer(a)
		a.turn.Unlock()
	}
	_ = w.lock.Unlock()
}

// names are what an attendee's SSH user name may be: it names their
// directory, so nothing that could climb out of it.
var nameRE = text.Pattern(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

func checkName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("%q cannot name a lab: use up to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit", name)
	}
	return nil
}

// sortedLabs is every attendee, by name.
func (w *Workshop) sortedLabs() []*attendee {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*attendee, 0, len(w.labs))
	for _, a := range w.labs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
