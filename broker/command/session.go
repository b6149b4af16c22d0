package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/realcli"
)

// Session runs command lines against one deployment. It is safe for
// concurrent use: long-running commands (sub, reply, kv watch) run as jobs
// while other lines run.
type Session struct {
	dep      broker.Deployment
	now      func() time.Time
	timeout  time.Duration
	confirm  func(question string) bool
	observer func(Event)

	connMu   sync.Mutex
	nc       *nats.Conn
	jobConns map[*nats.Conn]*jobConn // jobs' (connectJob), until closed: a restart waits for them too
	shared   sharedCalls             // the calls using nc (see asyncerr.go)

	jobsMu sync.Mutex
	jobs   map[int]*Job
	verbs  map[string]Verb
	stops  []chan struct{} // the Done of stop lines running now (see StartStreams)

	consumedSeqs consumedSeqs // see settle.go

	// The real CLI (see passthrough.go), run by this executable again:
	// where it works and its home.
	workDir  string // where its relative file names are (WithWorkDir, SetWorkDir); homeMu guards it
	homeMu   sync.Mutex
	cliHome  string
	tempHome string // a home made for this session, removed by Close

	noLocalFiles   bool   // see WithNoLocalFiles
	listenerAdvice string // see WithListenerAdvice
	clusterAdvice  string // see WithClusterAdvice

	helpWidth atomic.Int64 // see SetHelpWidth
}

// Option configures a Session.
type Option func(*Session)

// WithClock replaces time.Now, for tests and recorded output.
func WithClock(now func() time.Time) Option { return func(s *Session) { s.now = now } }

// WithTimeout sets how long a request to the broker may take (the real CLI's --timeout, 5s).
func WithTimeout(d time.Duration) Option { return func(s *Session) { s.timeout = d } }

// WithConfirm lets commands that destroy data (reset, stream rm, stream
// purge) ask first. Without it they need --force, as in a script.
func WithConfirm(ask func(question string) bool) Option {
	return func(s *Session) { s.confirm = ask }
}

// WithObserver receives every Event; it must return quickly. A job's
// JobEnded comes before its Done: the observer must not wait for the job.
func WithObserver(f func(Event)) Option { return func(s *Session) { s.observer = f } }

// WithCLIHome sets where the real CLI keeps its files (contexts, plugins):
// by default CLIHome of the deployment's store, or, for an external
// deployment, a temporary directory for the session. natslab passes
// CLIHome(its --store) so an external deployment's contexts persist too.
func WithCLIHome(dir string) Option { return func(s *Session) { s.cliHome = dir } }

// WithWorkDir sets the directory the real CLI's commands read and write
// relative file names in (object put FILE, backups); by default natslab's
// own working directory.
func WithWorkDir(dir string) Option { return func(s *Session) { s.workDir = dir } }

// SetWorkDir sets the directory the real CLI's commands read and write
// files in (object put report.txt, object get --output): a lesson's own
// files while it is open; "" for natslab's working directory.
func (s *Session) SetWorkDir(dir string) {
	s.homeMu.Lock()
	s.workDir = dir
	s.homeMu.Unlock()
}

// WorkDir is the directory set by SetWorkDir.
func (s *Session) WorkDir() string {
	s.homeMu.Lock()
	defer s.homeMu.Unlock()
	return s.workDir
}

// WithListenerAdvice replaces what a line that needs the real CLI is told
// to do when the lab has no listener ("start natslab without --listen
// none"): a workshop attendee cannot restart their lab, so they are told
// whom to ask.
func WithListenerAdvice(advice string) Option { return func(s *Session) { s.listenerAdvice = advice } }

// ListenerAdvice is what to do when a line needs a listener the lab lacks
// (also for a nil session: the default).
func (s *Session) ListenerAdvice() string {
	if s != nil && s.listenerAdvice != "" {
		return s.listenerAdvice
	}
	return "start natslab without --listen none"
}

// RefusesLocalFiles reports whether the session refuses every command
// that touches a local file (WithNoLocalFiles).
func (s *Session) RefusesLocalFiles() bool { return s != nil && s.noLocalFiles }

// WithClusterAdvice says what to do for the lab's cluster, where the lab
// runs a single server that the learner cannot start anew (a workshop's).
func WithClusterAdvice(advice string) Option { return func(s *Session) { s.clusterAdvice = advice } }

// ClusterAdvice is what to do when a line needs the lab's cluster and the
// lab runs a single server: fallback, unless WithClusterAdvice said
// otherwise.
func (s *Session) ClusterAdvice(fallback string) string {
	if s != nil && s.clusterAdvice != "" {
		return s.clusterAdvice
	}
	return fallback
}

// NewSession prepares a session; it connects on first use.
func NewSession(dep broker.Deployment, opts ...Option) *Session {
	s := &Session{dep: dep, now: time.Now, timeout: 5 * time.Second, jobs: map[int]*Job{}, jobConns: map[*nats.Conn]*jobConn{}, verbs: map[string]Verb{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Deployment is what the session talks to.
func (s *Session) Deployment() broker.Deployment { return s.dep }

// Close stops every job and closes the session's connection.
func (s *Session) Close() {
	for _, j := range s.Jobs() {
		j.Stop()
		<-j.Done()
	}
	s.connMu.Lock()
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
	s.connMu.Unlock()
	s.homeMu.Lock()
	if s.tempHome != "" {
		os.RemoveAll(s.tempHome)
		s.tempHome, s.cliHome = "", ""
	}
	s.homeMu.Unlock()
}

// Disconnect closes the session's shared connection, if one is open: the
// next command connects afresh. A connection from before that reconnects
// to a server now requiring users is refused, as a learner's client
// would be, where nobody typed anything.
func (s *Session) Disconnect() {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
}

// conn returns the session's shared connection, connecting if needed.
func (s *Session) conn() (*nats.Conn, error) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.nc != nil && !s.nc.IsClosed() {
		return s.nc, nil
	}
	nc, err := s.dep.ConnectAs("natslab", s.dep.Credentials())
	if err != nil {
		return nil, err
	}
	onAsyncError(nc, s.sharedAsyncError)
	s.nc = nc
	return nc, nil
}

// Sync returns once the server has counted everything the session's
// shared connection sent (a publish, a request): what a check of the
// server's connection counts then sees is complete. It takes two round
// trips because the server adds up the messages of what it read only after
// it has answered the PING that came with them.
func (s *Session) Sync() {
	s.connMu.Lock()
	nc := s.nc
	s.connMu.Unlock()
	if nc == nil || !nc.IsConnected() {
		return
	}
	for range 2 {
		if nc.FlushTimeout(s.timeout) != nil {
			return
		}
	}
}

// Event is something the lab around the session may want to know: lesson
// checks count what lab subscribers received, the pane lists jobs.
type Event struct {
	Kind    EventKind
	Job     int    // the job's number
	Line    string // the command line of the job
	Subject string // for Received, Published and PublishRefused
	Stream  string // for Received from a stream, and the stream that refused
	Seq     uint64 // stream sequence, for Received from a stream
	Queue   string // the job's queue group, if any
	// Filter is, for Received by a sub on several subjects, the subject
	// of the subscription the message came through ("" otherwise): a
	// message two of them match comes once through each.
	Filter string
	Err    error  // for JobEnded, and the server's error for PublishRefused
	Code   uint16 // for PublishRefused: the server's JetStream error code
}

// EventKind says what an Event is.
type EventKind int

const (
	JobStarted EventKind = iota
	JobEnded
	Received // a job's subscription received a message
	// Published: a job's pub sent a core message (before it went out), on
	// Subject, the subject as sent.
	Published
	// PublishRefused: a stream answered a job's pub --jetstream with an
	// error instead of storing the message: Stream refused it, Err and Code
	// are the server's answer.
	PublishRefused
)

func (s *Session) emit(e Event) {
	if s.observer != nil {
		s.observer(e)
	}
}

// Streams is where one command line writes. Out and Err carry what the
// real CLI prints, byte for byte; Note carries the lab's explanations (why
// a publish had no responders, what a sequence means, did-you-mean), which
// are never part of a real CLI line. A nil writer drops what goes to it.
type Streams struct {
	Out  io.Writer // bodies and tables: the real CLI's stdout
	Err  io.Writer // status lines: the real CLI's stderr
	Note io.Writer // the lab's notes, whole lines, without NoteMarker
	// Lab takes the lab's own refusals (see Refusal), whole lines without
	// a prefix, where they are styled as the lab's (the pane); nil puts
	// them on Err, each led by LabPrefix, where nothing else would tell
	// them apart (natslab run). Unlike notes, they are always shown.
	Lab io.Writer
}

// NoteMarker starts every note where notes are shown beside the real CLI's
// lines (the lab's pane, natslab run --explain): it tells them apart even
// without colour.
const NoteMarker = "» "

// Call is one running command: where it writes, its context, its job.
type Call struct {
	Ctx  context.Context
	S    *Session
	Out  io.Writer // bodies and tables (stdout)
	Err  io.Writer // status lines (stderr)
	Note io.Writer // the lab's notes; see Notef
	Job  *Job

	// timeout bounds a request to the broker: the session's, or the real
	// CLI's global --timeout given on the line.
	timeout time.Duration

	parseOnly bool // Check: parse, never run

	// realConn, when set, is where a line run with the real CLI connects
	// instead of the session's deployment (leaf COMMAND: the leaf node).
	realConn *realcli.Conn
	// realSettle, when set, is what a line the real CLI runs waits for
	// after its first output before its job counts as in place.
	realSettle func()
	realReady  sync.Once
}

// Notef writes the lab's explanation as a note: never inside the real
// CLI's output, shown apart from it (or not at all, in natslab run without
// --explain). A multi-line note is written as several lines.
func (c *Call) Notef(format string, a ...any) {
	if c.Note == nil || c.Note == io.Discard {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, a...), "\n")
	if msg == "" {
		return
	}
	_, _ = io.WriteString(c.Note, msg+"\n")
}

// Confirm asks a yes/no question where the session can ask one (the lab's
// pane waits for y/N); asked is false where it cannot (a script), and the
// command then wants its --force.
func (c *Call) Confirm(question string) (yes, asked bool) {
	if c.S.confirm == nil {
		return false, false
	}
	return c.S.confirm(question), true
}

// Statusf writes a status line the way the real CLI logs it (log.Printf
// with the time alone): "15:04:05 msg", a newline added where msg lacks one.
func (c *Call) Statusf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprintf(c.Err, "%s %s", c.S.now().Format("15:04:05"), msg)
}

// Conn is the session's shared connection.
func (c *Call) Conn() (*nats.Conn, error) { return c.S.conn() }

// JS is a JetStream handle on the shared connection, after checking that
// JetStream answers at all, so that "off" gets a clear error.
func (c *Call) JS() (jetstream.JetStream, error) {
	nc, err := c.S.conn()
	if err != nil {
		return nil, err
	}
	return jetstream.New(nc)
}

// Timeout is a context bounded by the session's request timeout.
func (c *Call) Timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Ctx, c.timeout)
}

// Now is the session's clock.
func (c *Call) Now() time.Time { return c.S.now() }

// Run executes one line and waits for it, writing only what the real CLI
// would (the lab's notes are dropped). A long-running command runs until it
// ends by itself (--count, -T) or ctx is cancelled.
func (s *Session) Run(ctx context.Context, line string, out, errw io.Writer) error {
	return s.RunStreams(ctx, line, Streams{Out: out, Err: errw})
}

// RunStreams is Run, with the lab's notes written to st.Note.
func (s *Session) RunStreams(ctx context.Context, line string, st Streams) error {
	j := s.StartStreams(ctx, line, st)
	<-j.Done()
	return j.Err()
}

// Start executes one line as a job and returns at once; the lab's notes
// are dropped.
func (s *Session) Start(ctx context.Context, line string, out, errw io.Writer) *Job {
	return s.StartStreams(ctx, line, Streams{Out: out, Err: errw})
}

// StartStreams is Start, with the lab's notes written to st.Note.
func (s *Session) StartStreams(ctx context.Context, line string, st Streams) *Job {
	out, errw, note := orDiscard(st.Out), orDiscard(st.Err), orDiscard(st.Note)
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{Line: strings.TrimSpace(line), Started: s.now(), cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	v, isVerb := s.lineVerb(j.Line)
	numbered := !(isVerb && v.Unnumbered)
	stop := isVerb && v.Name == "stop" // stop N (or kill N)
	s.jobsMu.Lock()
	if numbered {
		j.ID = 1
		for s.jobs[j.ID] != nil {
			j.ID++
		}
		s.jobs[j.ID] = j
	}
	// A line begun while a stop N runs waits for it: pasted right after
	// stop 1, a req or a lesson's next step must not find job 1's
	// subscriber still in place, as it would if the two ran side by side.
	var after []chan struct{}
	for _, d := range s.stops {
		select {
		case <-d:
		default:
			after = append(after, d)
		}
	}
	s.stops = after
	if stop {
		s.stops = append(slices.Clone(after), j.done)
	}
	s.jobsMu.Unlock()
	s.emit(Event{Kind: JobStarted, Job: j.ID, Line: j.Line})
	go func() {
		for _, d := range after {
			select {
			case <-d:
			case <-ctx.Done():
			}
		}
		err := s.exec(&Call{Ctx: ctx, S: s, Out: out, Err: errw, Note: note, Job: j, timeout: s.timeout})
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// Stopped on purpose: not a failure.
			err = nil
		}
		j.err = err
		// The end is told first, while the job still holds its number:
		// once its number is free the next job may take it, and once it
		// is done the next line may run, and an observer told this end
		// after either would take the next job's events for this one's.
		s.emit(Event{Kind: JobEnded, Job: j.ID, Line: j.Line, Err: err})
		if numbered {
			s.jobsMu.Lock()
			delete(s.jobs, j.ID)
			s.jobsMu.Unlock()
		}
		cancel()
		j.readyOnce.Do(func() { close(j.ready) })
		close(j.done)
	}()
	return j
}

// lineVerb is the Verb line runs, if it runs one.
func (s *Session) lineVerb(line string) (Verb, bool) {
	words, err := SplitWords(line)
	if err != nil || len(words) == 0 {
		return Verb{}, false
	}
	return s.verb(words[0])
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Jobs returns the running jobs, oldest first.
func (s *Session) Jobs() []*Job {
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	out := make([]*Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool {
		return out[a].Started.Before(out[b].Started) || (out[a].Started.Equal(out[b].Started) && out[a].ID < out[b].ID)
	})
	return out
}

// Job finds a running job by number.
func (s *Session) Job(id int) *Job {
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	return s.jobs[id]
}

// Job is one command line running.
type Job struct {
	ID      int
	Line    string
	Started time.Time

	mu       sync.Mutex
	subject  string
	queue    string
	received uint64
	drops    func() uint64 // how many the subscriptions dropped so far (slow.go)
	dropped  uint64        // the count once they are gone
	cancel   context.CancelFunc
	done     chan struct{}
	err      error

	ready     chan struct{}
	readyOnce sync.Once

	// settle, when the job can tell, is its barrier (Job.Settle); move
	// is closed when it next handles a message.
	settle func(ctx context.Context) error
	move   chan struct{}
}

// Ready is closed once a long-running command is in place (its subscription
// made), or when the job ends: a script waits for it before its next line,
// so a message published next is not missed.
func (j *Job) Ready() <-chan struct{} { return j.ready }

// Ready marks the call's job as in place; see Job.Ready.
func (c *Call) Ready() { c.Job.readyOnce.Do(func() { close(c.Job.ready) }) }

// Stop cancels the job; Done closes when it has ended.
func (j *Job) Stop() { j.cancel() }

// Done is closed when the job ends.
func (j *Job) Done() <-chan struct{} { return j.done }

// Err is the job's result once Done is closed.
func (j *Job) Err() error { return j.err }

// Received is how many messages the job's subscription has received.
func (j *Job) Received() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.received
}

// Listening says what the job subscribes to ("" if it does not).
func (j *Job) Listening() (subject, queue string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.subject, j.queue
}

// listen records what a long-running command subscribes to.
func (c *Call) listen(subject, queue string) {
	c.Job.mu.Lock()
	c.Job.subject, c.Job.queue = subject, queue
	c.Job.mu.Unlock()
}

// received counts one message delivered to the job and tells the observer.
func (c *Call) received(subject, stream string, seq uint64) {
	c.receivedVia(subject, stream, seq, "")
}

// receivedVia is received, through the subscription on filter of a job
// that subscribes to several subjects.
func (c *Call) receivedVia(subject, stream string, seq uint64, filter string) {
	c.Job.mu.Lock()
	c.Job.received++
	c.Job.moves()
	q := c.Job.queue
	c.Job.mu.Unlock()
	c.S.emit(Event{Kind: Received, Job: c.Job.ID, Line: c.Job.Line, Subject: subject, Stream: stream, Seq: seq, Queue: q, Filter: filter})
}
