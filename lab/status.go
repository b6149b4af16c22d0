package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/text"
)

// facts are what the status bar shows, all read from the deployment.
type facts struct {
	url       string // "" when nothing outside this process can connect; a room's address when there is a room
	needed    string // what a client must present: "token needed", or ""
	external  bool
	running   bool
	jetstream bool
	streams   int
	consumers int
	conns     int // -1 when the deployment does not say
	jobs      int
	store     string
	problem   string // why the facts could not be read, if they could not
	// An external deployment's client can be reconnecting (a server of
	// the cluster went away), or connected while JetStream does not answer
	// (an election, no quorum): neither is JetStream switched off.
	reconnecting bool
	jsSilent     bool
	// The lab's cluster: how many nodes, how many run, and the URL of the
	// first running one, which a real client can be given alone (the
	// cluster tells it of the others) where the whole list does not fit.
	nodes, nodesUp int
	nodeURL        string
}

// statsPoll is how often the status bar looks for changes made by real
// clients outside the lab (a nats CLI in another terminal): slow, because
// changes made through the lab refresh it at once.
const statsPoll = 2 * time.Second

type statsMsg struct{ f facts }
type statsTickMsg struct{}

// statsSource reads the facts. For the embedded server it asks the server
// directly; for an external deployment it asks JetStream for the account's
// info over a connection of its own.
type statsSource struct {
	dep   broker.Deployment
	store string

	mu sync.Mutex
	nc *nats.Conn
}

func (s *statsSource) read() facts {
	a := s.dep.Access()
	f := facts{url: a.URL(), needed: a.Needed(), store: s.store, conns: -1}
	if s.dep.Own() {
		f.running = s.dep.Running()
		st := s.dep.Stats()
		f.jetstream, f.streams, f.consumers, f.conns = st.JetStream, st.Streams, st.Consumers, st.Connections
		if cl := s.dep.Cluster(); cl != nil {
			for _, n := range cl.Nodes() {
				f.nodes++
				if n.Running {
					f.nodesUp++
					if f.nodeURL == "" {
						f.nodeURL = n.ClientURL
					}
				}
			}
		}
		return f
	}
	f.external = true
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc == nil || s.nc.IsClosed() {
		nc, err := s.dep.Connect("natslab status")
		if err != nil {
			f.problem = "cannot reach the server"
			return f
		}
		s.nc = nc
	}
	f.running = s.nc.IsConnected()
	if !f.running {
		f.reconnecting = s.nc.IsReconnecting()
		return f
	}
	js, err := jetstream.New(s.nc)
	if err != nil {
		return f
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ai, err := js.AccountInfo(ctx)
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return f // off
	case err != nil:
		f.jsSilent = true
		return f
	}
	f.jetstream, f.streams, f.consumers = true, ai.Streams, ai.Consumers
	return f
}

func (s *statsSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
}

// fetch reads the facts off the UI loop.
func (s *statsSource) fetch() tea.Cmd {
	return func() tea.Msg { return statsMsg{s.read()} }
}

// statusBar is the one-line bar at the bottom.
type statusBar struct {
	st     *Styles
	f      facts
	lesson string // "first-stream 2/4" while a lesson is open
	guest  string // Options.Guest
	w      int
	line   string
	valid  bool
}

func (b *statusBar) SetSize(w int) {
	if w != b.w {
		b.w = w
		b.valid = false
	}
}

// SetFacts updates the bar; it redraws only when something changed.
func (b *statusBar) SetFacts(f facts) {
	if f != b.f {
		b.f = f
		b.valid = false
	}
}

// SetLesson shows the open lesson and its steps done ("" in the sandbox).
func (b *statusBar) SetLesson(s string) {
	if s != b.lesson {
		b.lesson = s
		b.valid = false
	}
}

// SetJobs updates the running-job count.
func (b *statusBar) SetJobs(n int) {
	if n != b.f.jobs {
		b.f.jobs = n
		b.valid = false
	}
}

// Line draws the bar, exactly w wide.
func (b *statusBar) Line() string {
	if b.valid {
		return b.line
	}
	right := " ?/f1 keys "
	room := b.w - len(right)
	var left string
	for _, v := range b.variants() {
		if ansi.StringWidth(v) <= room {
			left = v
			break
		}
	}
	if left == "" {
		vs := b.variants()
		left = text.Clip(vs[len(vs)-1], max(room, 0))
	}
	pad := max(b.w-ansi.StringWidth(left)-len(right), 0)
	line := left + spaces(pad) + right
	if ansi.StringWidth(line) > b.w {
		line = ansi.Truncate(line, b.w, "")
	}
	b.line = b.st.StatusBar.Render(line)
	b.valid = true
	return b.line
}

// variants are the bar's text from the fullest to the most compact.
func (b *statusBar) variants() []string {
	f := b.f
	where := f.url
	switch {
	case f.external:
		where = "external " + f.url
	case b.guest != "":
		where = b.guest + "'s lab"
	case where == "":
		where = "in-process only"
	}
	places := []string{where}
	if f.nodeURL != "" && f.nodeURL != f.url && !f.external && b.guest == "" {
		// One running node's URL: the cluster tells a client of the others.
		places = append(places, f.nodeURL)
	}
	if f.needed != "" {
		for i := range places {
			places[i] += " (" + f.needed + ")"
		}
	}
	js := "JetStream off"
	jsShort := "JS off"
	switch {
	case !f.running && f.problem != "":
		js, jsShort = f.problem, f.problem
	case f.reconnecting:
		js, jsShort = "reconnecting…", "reconnecting…"
	case !f.running:
		js, jsShort = "server stopped", "stopped"
	case f.jsSilent:
		js, jsShort = "JetStream not answering", "JS silent"
	case f.jetstream:
		js, jsShort = "JetStream on", "JS on"
	}
	nodes, nodesShort := "", ""
	if f.nodes > 0 && f.running {
		nodes = text.Count(f.nodes, "node", "nodes") + " up"
		if f.nodesUp < f.nodes {
			nodes = fmt.Sprintf("%d of %d nodes up", f.nodesUp, f.nodes)
		}
		nodesShort = fmt.Sprintf("%d/%d up", f.nodesUp, f.nodes)
	}
	counts := text.Count(f.streams, "stream", "streams") + " · " + text.Count(f.consumers, "consumer", "consumers")
	short := fmt.Sprintf("%d str · %d cons", f.streams, f.consumers)
	if f.conns >= 0 {
		counts += " · " + text.Count(f.conns, "connection", "connections")
		short += fmt.Sprintf(" · %d conn", f.conns)
	}
	jobs := ""
	if f.jobs > 0 {
		jobs = " │ " + text.Count(f.jobs, "job", "jobs")
	}
	store := ""
	if f.store != "" {
		store = " │ store " + displayPath(f.store)
	}
	if !f.jetstream || !f.running {
		counts, short = "", ""
	}
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return " " + strings.Join(out, " │ ")
	}
	// The open lesson goes after the jobs; when room runs out it outlasts
	// the counts and the store, since it says where the learner is. The
	// store goes first, before any word is cut short.
	lesson := ""
	if b.lesson != "" {
		lesson = " │ lesson " + b.lesson
	}
	of := func(where string) []string {
		return []string{
			join(where, nodes, js, counts) + jobs + lesson + store,
			join(where, nodes, js, counts) + jobs + lesson,
			join(where, nodesShort, js, counts) + jobs + lesson,
			join(where, nodesShort, jsShort, short) + jobs + lesson,
			join(where, nodesShort, jsShort) + jobs + lesson,
			join(where, nodesShort, jsShort) + jobs + strings.Replace(lesson, " lesson ", " ", 1),
			join(where, nodesShort, jsShort) + jobs,
			// The pane's running row lists the jobs: cut short, their count
			// would be a number without its word ("1…").
			join(where, nodesShort, jsShort),
			// Where not even that fits, the place alone, rather than "JS…".
			join(where),
		}
	}
	full := of(places[0])
	if len(places) == 1 {
		return full
	}
	// The whole list of URLs while everything else fits beside it; past
	// that, what the learner does next (the lesson, the counts) outlasts
	// the other nodes' URLs.
	return append(full[:2], of(places[1])...)
}

// displayPath shows a path under the home directory as ~/….
func displayPath(p string) string {
	if p == "" {
		return ""
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			if rel == "." {
				return "~"
			}
			return "~" + string(filepath.Separator) + rel
		}
	}
	return p
}
