package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/natscontext"

	"natslab/broker"
	"natslab/broker/realcli"
)

// Every command of the real CLI the lab has no code of its own for (object,
// service, context, server, bench, stream copy, kv compact, …) runs the real
// CLI's own code (package realcli) in a child process of natslab, pointed at
// the lab's broker, its output streamed back as the call's as it comes. The
// lab's own commands stay native: jobs, scenes and lesson checks watch them.

// realHome is where the real CLI keeps its files (contexts, plugins, its
// account store): inside the lab's store, never the user's own config.
func (s *Session) realHome() (string, error) {
	s.homeMu.Lock()
	defer s.homeMu.Unlock()
	if s.cliHome != "" {
		return s.cliHome, nil
	}
	if dir := s.dep.StoreDir(); dir != "" {
		s.cliHome = CLIHome(dir)
		return s.cliHome, nil
	}
	// An external deployment and no store named: a home for this session.
	dir, err := os.MkdirTemp("", "natslab-cli-")
	if err != nil {
		return "", err
	}
	s.cliHome, s.tempHome = dir, dir
	return dir, nil
}

// CLIHome is where the real CLI keeps its files in the lab's store dir.
func CLIHome(store string) string { return filepath.Join(store, "cli") }

// divert reports whether a line that starts with one of the lab's own
// commands names a sub-command only the real CLI has (stream copy, kv
// compact, account report connections …), and reads it with the real
// CLI's grammar if so.
func divert(native *fisk.ApplicationModel, words []string) (realcli.Line, bool) {
	n := realcli.ParseIn(native, words)
	if n.Leaf || n.Next == "" {
		return realcli.Line{}, false
	}
	r := realcli.Parse(words)
	if len(r.Path) > len(n.Path) {
		return r, true
	}
	return realcli.Line{}, false
}

// realLine reads a line that starts with no command of the lab's own with
// the real CLI's grammar: ok when the real CLI knows its first command, or
// when the line is flags only (--version, --help).
func realLine(words []string) (realcli.Line, bool) {
	l := realcli.Parse(words)
	return l, len(l.Path) > 0 || l.AllFlags
}

// runReal runs words with the real CLI's code, unless the line is one the
// lab refuses (see refuseReal).
func (s *Session) runReal(c *Call, words []string, l realcli.Line) error {
	// Help and the real CLI's refusals of a line at its parser need no
	// child, nor a broker to reach.
	if p, ok := c.realAnswer(words); ok {
		if p.Code != 0 {
			s.explainRealError(c, l, lastLine(p.Stderr))
			if _, native := natsCommands[words[0]]; !native && l.Next != "" {
				c.Notef("%s", noSubCommand(l)) // (the lab's own commands explain their lines)
			}
			if why := needsTerminal(l); why != "" {
				c.Notef("%s", why) // the line put right would still be refused
			}
		}
		return exitErr(p)
	}
	if err := s.refuseReal(l); err != nil {
		return err
	}
	if c.parseOnly {
		return nil
	}
	home, err := s.realHome()
	if err != nil {
		return &labError{fmt.Errorf("no home for the real CLI: %w", err)}
	}
	cred := s.dep.Credentials()
	conn := realcli.Conn{URL: s.dep.ClientURL(), User: cred.User, Password: cred.Password, Token: cred.Token, Creds: cred.Creds}
	if c.realConn != nil {
		conn = *c.realConn
	}
	if len(l.Path) > 0 && l.Path[0].Name == "context" {
		// Contexts are the real CLI's own configuration, managed as in a
		// fresh shell: context add would save the lab's credentials from
		// the environment into the file, and every context command would
		// warn of "shell environment overrides". The lab's server is the
		// one a new context points at unless the line names another, as
		// nats://127.0.0.1:4222 is in a shell.
		if _, named := l.Flags["server"]; l.Name() == "context add" && !named && conn.URL != "" {
			words = append(append([]string{}, words...), "--server", conn.URL)
		}
		conn = realcli.Conn{}
	}
	if c.realSettle == nil {
		c.realSettle = s.subscribed(l)
	}
	tail := &tailWriter{}
	// The child's connections, as it last said: once it has ended, the
	// servers must have dropped them before the lab says so. The child is
	// asked when it first prints (in place, connected) and again just
	// before it is stopped.
	var clients *broker.Clients
	probe := &realcli.Probe{Found: func(local []netip.AddrPort) { clients = broker.ClientsFrom(s.dep, local) }}
	first := &firstOutput{probe: probe}
	child := realcli.Child{
		Args: words,
		Conn: conn,
		Home: home,
		Dir:  s.WorkDir(),
		// Long-running commands (service serve, events, object watch)
		// print first when they are in place: a script's next line waits
		// for that.
		Stdout: readyOnWrite{c, c.Out, first},
		Stderr: readyOnWrite{c, io.MultiWriter(c.Err, tail, &refusalWatch{c: c}), first},
		Probe:  probe,
	}
	err = child.Run(c.Ctx)
	// A server notices the child's closed socket a moment after it exited.
	clients.Gone(realGone)
	if err == nil && listsConnections[l.Name()] {
		c.Notef("%s", ownConnectionsNote)
	}
	var exit *realcli.ExitError
	if errors.As(err, &exit) {
		s.explainRealError(c, l, tail.lastLine())
		if why := needsTerminal(l); why != "" {
			c.Notef("%s", why) // it failed before its editor: see failsBeforeEditor
		}
	}
	return err
}

// subscribed is what a line of the real CLI's that subscribes (sub,
// reply) waits for, once it has printed, before its job counts as in
// place: the lab's servers hold one more subscription to each of its
// subjects than before it started. The real CLI says "Subscribing on"
// before its subscription has reached the server, and a script's next
// line (a pub) must find it there, as it finds the lab's own sub's. nil
// when the line subscribes to nothing, or the servers are not the lab's
// to look at.
func (s *Session) subscribed(l realcli.Line) func() {
	subjects := listened(l)
	ms := s.dep.Monitors()
	if len(subjects) == 0 || len(ms) == 0 {
		return nil
	}
	count := func() map[string]int {
		n := map[string]int{}
		for _, subj := range subjects {
			for _, m := range ms {
				n[subj] += m.Subscribed(subj)
			}
		}
		return n
	}
	before := count()
	return func() {
		broker.WaitFor(subscribeSettle, func() bool {
			now := count()
			for _, subj := range subjects {
				if now[subj] <= before[subj] {
					return false
				}
			}
			return true
		})
	}
}

// subscribeSettle bounds how long a subscribing line of the real CLI's
// may take to reach the server.
const subscribeSettle = 2 * time.Second

// Reported reports whether err has been printed already: the real CLI
// printed its own error line (nats: error: …) before it exited. Count it
// as a failure; print nothing more.
func Reported(err error) bool {
	var exit *realcli.ExitError
	return errors.As(err, &exit)
}

// refuseReal says, in one line, why the lab does not run a line through
// the real CLI: no listener to reach the broker on, or a command that needs
// a terminal the lab cannot give it. nil when it runs.
func (s *Session) refuseReal(l realcli.Line) error {
	if helpLine(l) {
		return nil
	}
	name := l.Name()
	if name == "" {
		name = "nats"
	} else {
		name = "nats " + name
	}
	if s.dep.ClientURL() == "" && !reachesNoServer(l) {
		return usageErrorf("`%s` runs the real nats CLI, which reaches the server over TCP, and this lab has no listener: %s", name, s.ListenerAdvice())
	}
	if why := needsTerminal(l); why != "" && !s.failsBeforeEditor(l) {
		return usageErrorf("%s", why)
	}
	return nil
}

// reachesNoServer reports whether the line is one of the real CLI's that
// reach no server: they read its own tables (errors, schema, cheat) or
// configuration files (context, auth), and run in a lab without a
// listener as in a shell with no server about. A few in those families
// do ask a server (serverCommands).
func reachesNoServer(l realcli.Line) bool {
	return len(l.Path) > 0 && offlineFamilies[l.Path[0].Name] && !serverCommands[l.Name()]
}

var (
	offlineFamilies = map[string]bool{"errors": true, "schema": true, "cheat": true, "context": true, "auth": true}
	serverCommands  = map[string]bool{"schema request": true, "auth account push": true, "auth account query": true}
)

// failsBeforeEditor reports whether the real CLI refuses a line that
// would open an editor by itself, in its own words, before it writes the
// copy it would edit or looks for an editor: errors edit naming no file
// that exists (fisk checks as it parses), context edit naming no context
// the lab's real CLI knows. Such a line runs; the lab's note follows.
func (s *Session) failsBeforeEditor(l realcli.Line) bool {
	arg := func(name string) string {
		if v := l.Args[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	var path string
	switch l.Name() {
	case "errors edit":
		if path = arg("file"); path != "" && !filepath.IsAbs(path) && s.WorkDir() != "" {
			path = filepath.Join(s.WorkDir(), path)
		}
	case "context edit":
		name := arg("name")
		if name != "" && natscontext.ValidateName(name) != nil {
			return true // unknown to the real CLI: no name it could store
		}
		home, err := s.realHome()
		if name == "" || err != nil {
			return false
		}
		path = filepath.Join(home, ".config", "nats", "context", name+".json")
	}
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// helpLine reports whether the line only asks for help, which the real CLI
// prints without connecting anywhere.
func helpLine(l realcli.Line) bool {
	for _, f := range []string{"help", "help-long", "help-man", "help-llm", "version"} {
		if _, ok := l.Flags[f]; ok {
			return true
		}
	}
	return len(l.Path) > 0 && l.Path[0].Name == "help"
}

// realGone bounds how long the lab waits, after a child has ended, for
// the servers to drop its connections.
const realGone = 2 * time.Second

// readyOnWrite marks the call's job as in place at its first output.
type readyOnWrite struct {
	c     *Call
	w     io.Writer
	first *firstOutput
}

// firstOutput asks the child for its connections when it first prints.
type firstOutput struct {
	once  sync.Once
	probe *realcli.Probe
}

func (r readyOnWrite) Write(p []byte) (int, error) {
	c := r.c
	if r.first != nil {
		r.first.once.Do(func() { go r.first.probe.Look() })
	}
	if c.realSettle == nil {
		c.Ready()
	} else {
		c.realReady.Do(func() {
			go func() {
				c.realSettle()
				c.Ready()
			}()
		})
	}
	return r.w.Write(p)
}

// tailWriter keeps the end of what the real CLI wrote to stderr, to
// explain its last error line.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 1024

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// lastLine is the last complete or partial line written.
func (t *tailWriter) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return lastLine(string(t.buf))
}

// runRealHelp prints the real CLI's help for a command the lab runs
// through it: `help object put` is `nats help object put`.
func (s *Session) runRealHelp(c *Call, words []string) error {
	l, ok := realLine(words)
	if !ok || len(l.Path) == 0 {
		return errNoRealCommand
	}
	l.Flags["help"] = nil // help needs no server
	return s.runReal(c, append([]string{"help"}, words...), l)
}

var errNoRealCommand = errors.New("no such command of the real CLI")

// realTopNames are the real CLI's top-level commands and their aliases.
func realTopNames() []string {
	var out []string
	for _, c := range realcli.Model().Commands {
		if c.Hidden {
			continue
		}
		out = append(out, c.Name)
		out = append(out, c.Aliases...)
	}
	return out
}
