package episode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/command"
)

// checkerName is the name of the connection lesson checks use; checks
// leave it out when they count clients, subscriptions and messages.
const checkerName = "natslab lesson checker"

// Env is what a lesson runs with.
type Env struct {
	// Deployment must be the lab's embedded server: each lesson keeps its
	// streams in a store area of its own.
	Deployment broker.Deployment
	// Session is the learner's command session. Setup lines run in it (a
	// job it starts stays, as part of the starting state); its jobs are
	// stopped when a lesson starts or resets, so nothing lingers from before.
	// Send its events to Lesson.Observe (command.WithObserver).
	Session *command.Session
	// Progress records steps done; nil records nothing.
	Progress *Progress
	// Cluster is how many nodes the deployment runs: 3 with --cluster 3
	// (0 asks the deployment, see Nodes).
	Cluster int
	// StartJob, if set, starts a background line of the setup in Session
	// where the learner sees its output (the lab's command pane); unset,
	// what it prints is dropped.
	StartJob func(ctx context.Context, line string) *command.Job
}

// Nodes is how many servers a deployment runs: 3 for the lab's cluster
// (natslab --cluster 3), else 1.
func Nodes(d broker.Deployment) int {
	if d.Cluster() != nil {
		return 3
	}
	return 1
}

// Area is the store area that holds a lesson's streams.
func Area(id string) string { return "lessons/" + id }

// Lesson is one episode being worked through: it watches the broker and
// ticks steps, in order, as soon as the state satisfies them.
type Lesson struct {
	ep  *Episode
	env Env
	nc  *nats.Conn
	js  jetstream.JetStream
	adv *nats.Subscription
	obs *observations

	mu       sync.Mutex // one evaluation at a time
	done     []bool
	marks    []mark
	start    mark
	replays  map[string]bool
	lastJS   bool
	lastWhy  string
	complete bool
	hints    []int // per step: how many hint stages the learner has seen
	asked    int   // hints asked for in this lesson

	// stopped are the jobs from before that the lesson stopped when it
	// began ("[1] sub greet"), for the learner to be told.
	stopped []string

	// prevWorkDir is the session's working directory before the lesson
	// moved it to its files, restored on Close.
	prevWorkDir string
	workDirSet  bool

	checkerBoot       string // the server the checker's connection was last seen on
	checkerReconnects uint64

	// logStart is where the server's log stood when the lesson started:
	// refused checks count the refusals it logged since.
	logStart uint64

	// whileStored are the streams the episode's received checks count
	// stores of (ReceivedCheck.WhileStored): every look at the server's
	// subscriptions reads their last sequences, so a subscription's first
	// look knows where they stood, whichever step asks.
	whileStored []string
}

// ErrNotEmbedded: lessons need the lab's own server.
var ErrNotEmbedded = errors.New("lessons run on the lab's own server: start natslab without --server")

// LocalFilesError says that ep cannot run in a workshop's lab, which reads
// and writes no files on the instructor's machine.
func LocalFilesError(ep *Episode) error {
	return fmt.Errorf("lesson %s puts files into the server and gets them back, and a workshop's labs read and write no files on the instructor's machine: pick another lesson", ep.ID)
}

// Begin starts ep. fresh erases the lesson's store area and builds its
// starting state; otherwise the lesson resumes where its progress says,
// on the streams it left.
func Begin(ctx context.Context, env Env, ep *Episode, fresh bool) (*Lesson, error) {
	if !env.Deployment.Own() {
		return nil, ErrNotEmbedded
	}
	env.Cluster = max(env.Cluster, Nodes(env.Deployment))
	if !ep.RunsOn(env.Cluster) {
		return nil, fmt.Errorf("lesson %s needs %s: start natslab %s", ep.ID, ep.Need(), ep.Fix())
	}
	if ep.Needs.Listener && env.Deployment.ClientURL() == "" {
		return nil, fmt.Errorf("lesson %s runs the real nats CLI, which reaches the server over TCP, and this lab has no listener: %s", ep.ID, env.Session.ListenerAdvice())
	}
	if ep.Needs.LocalFiles && env.Session.RefusesLocalFiles() {
		return nil, LocalFilesError(ep)
	}
	l := &Lesson{ep: ep, env: env, obs: newObservations(env.Session), replays: map[string]bool{}}
	for _, st := range ep.Steps {
		for _, c := range st.Check {
			if c.Received != nil && c.Received.WhileStored != "" && !slices.Contains(l.whileStored, c.Received.WhileStored) {
				l.whileStored = append(l.whileStored, c.Received.WhileStored)
			}
		}
	}
	l.done = make([]bool, len(ep.Steps))
	l.marks = make([]mark, len(ep.Steps))
	l.hints = make([]int, len(ep.Steps))
	var prog EpisodeProgress
	if env.Progress != nil {
		prog = env.Progress.Get(ep.ID)
	}
	if !prog.Started() {
		fresh = true
	}
	js := ep.Start.JetStream
	if !fresh {
		js = prog.JetStream
	}
	if err := l.enter(ctx, js, fresh); err != nil {
		return nil, err
	}
	if !fresh {
		for i := 0; i < prog.StepsDone && i < len(l.done); i++ {
			l.done[i] = true
			l.marks[i] = l.start
		}
		// The step before the one to do was done on the server that ran
		// then: where that was another start (the lab quit since), the
		// server has restarted since that step.
		if n := min(prog.StepsDone, len(l.done)); n > 0 && prog.Boot != "" {
			l.marks[n-1].boot = prog.Boot
		}
	}
	l.lastJS = js
	if err := l.save(func(p *EpisodeProgress) {
		if p.Begun.IsZero() {
			p.Begun = time.Now().UTC()
		}
		if fresh {
			p.StepsDone = 0
		}
		p.JetStream = js
	}); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// enter moves the server to the lesson's area and, when fresh, builds the
// starting state.
func (l *Lesson) enter(ctx context.Context, js, fresh bool) error {
	l.stopJobs(ctx)
	if l.env.Session != nil {
		// The lab's connection from before would reconnect to the lesson's
		// server; under its users, refused, it would count as a login the
		// learner tried.
		l.env.Session.Disconnect()
	}
	srv := l.env.Deployment
	use := func() error { return srv.UseArea(Area(l.ep.ID), js, fresh) }
	if l.env.Session != nil {
		u := use
		use = func() error { return l.env.Session.Reconnecting(u) }
	}
	if err := use(); err != nil {
		return fmt.Errorf("cannot start lesson %s: %w", l.ep.ID, err)
	}
	if err := l.writeFiles(fresh); err != nil {
		return fmt.Errorf("cannot start lesson %s: %w", l.ep.ID, err)
	}
	if fresh && l.ep.Start.Config != "" {
		if err := srv.Configure(l.ep.Start.Config); err != nil {
			return fmt.Errorf("cannot start lesson %s: %w", l.ep.ID, err)
		}
	}
	if l.nc == nil {
		if err := l.connect(); err != nil {
			return err
		}
	}
	// The jobs of the starting state (a responder, workers) stopped with
	// every other job when the lab last left the lesson: resumed, the
	// lesson runs them again, as its hints speak of them.
	if err := l.setup(ctx, !fresh); err != nil {
		return err
	}
	l.obs.reset()
	l.logStart = srv.Log().Total()
	l.start = l.takeMark(l.snapshot(ctx))
	return nil
}

// connect opens the checker's own connection and listens for JetStream's
// consumer advisories (redeliveries run out, naks, terms).
func (l *Lesson) connect() error {
	nc, err := l.env.Deployment.Connect(checkerName, nats.NoEcho()) // its own requests are not traffic a check counts
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return err
	}
	adv, err := nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.>", func(m *nats.Msg) { l.obs.advisory(m.Subject, m.Data) })
	if err != nil {
		nc.Close()
		return err
	}
	if err := l.watchTraffic(nc); err != nil {
		nc.Close()
		return err
	}
	l.nc, l.js, l.adv = nc, js, adv
	return nil
}

// watchTraffic subscribes the checker to what the episode's published and
// acks checks count: the messages on their subjects, and the consumers'
// ack subjects. Only episodes with such checks listen, so no other lesson
// has an extra subscriber on its subjects.
func (l *Lesson) watchTraffic(nc *nats.Conn) error {
	var published []PublishedCheck
	acks, creates := false, false
	for _, st := range l.ep.Steps {
		for _, c := range st.Check {
			if c.Published != nil && !slices.Contains(published, publishedKey(c.Published)) {
				published = append(published, publishedKey(c.Published))
			}
			acks = acks || c.Acks != nil
			creates = creates || c.Advisory != nil && c.Advisory.Filter != ""
		}
	}
	if creates {
		if _, err := nc.Subscribe("$JS.EVENT.ADVISORY.API", func(m *nats.Msg) { l.obs.apiAudit(m.Data) }); err != nil {
			return err
		}
	}
	var patterns []string
	for _, p := range published {
		if !slices.Contains(patterns, p.Subject) {
			patterns = append(patterns, p.Subject)
		}
	}
	// A message on subjects two patterns match comes to both: it is
	// heard through the first.
	first := func(subject string) string {
		for _, p := range patterns {
			if server.SubjectMatchesFilter(subject, p) {
				return p
			}
		}
		return ""
	}
	for _, pattern := range patterns {
		if _, err := nc.Subscribe(pattern, func(m *nats.Msg) {
			l.obs.publish(pattern, m.Header, published)
			if first(m.Subject) == pattern {
				l.obs.hear(m.Subject)
			}
		}); err != nil {
			return err
		}
	}
	if acks {
		if _, err := nc.Subscribe("$JS.ACK.>", func(m *nats.Msg) { l.obs.ack(m.Subject, m.Reply, m.Data) }); err != nil {
			return err
		}
	}
	return nc.Flush()
}

// FilesDir is where a lesson's files are, in the lab's store: the working
// directory of its real CLI commands.
func FilesDir(d broker.Deployment, id string) string {
	return filepath.Join(d.StoreDir(), Area(id), "files")
}

// writeFiles puts the episode's start files in its working directory (all
// of them afresh when fresh, else those missing) and points the session's
// real CLI there.
func (l *Lesson) writeFiles(fresh bool) error {
	if len(l.ep.Start.Files) == 0 {
		return nil
	}
	dir := FilesDir(l.env.Deployment, l.ep.ID)
	if fresh {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range l.ep.Start.Files {
		path := filepath.Join(dir, f.Name)
		if _, err := os.Stat(path); err == nil && !fresh {
			continue
		}
		if err := os.WriteFile(path, f.Content(), 0o644); err != nil {
			return err
		}
	}
	if l.env.Session != nil && !l.workDirSet {
		l.prevWorkDir, l.workDirSet = l.env.Session.WorkDir(), true
		l.env.Session.SetWorkDir(dir)
	}
	return nil
}

// setupReady bounds how long a background setup line may take to be in place.
const setupReady = 5 * time.Second

// setup runs the starting state's lines; jobsOnly, only those that run in
// the background.
func (l *Lesson) setup(ctx context.Context, jobsOnly bool) error {
	s := l.env.Session
	for _, line := range l.ep.Start.Setup {
		line, bg := command.SplitBackground(line)
		if jobsOnly && !bg {
			continue
		}
		if bg {
			var j *command.Job
			if l.env.StartJob != nil {
				j = l.env.StartJob(context.WithoutCancel(ctx), line)
			} else {
				j = s.Start(context.WithoutCancel(ctx), line, io.Discard, io.Discard)
			}
			select {
			case <-j.Ready():
			case <-time.After(setupReady):
			}
			continue
		}
		if err := s.Run(ctx, line, io.Discard, io.Discard); err != nil {
			return fmt.Errorf("lesson %s could not build its starting state: %s: %s", l.ep.ID, line, command.ErrorLine(err))
		}
	}
	return nil
}

// stopJobs stops the session's running jobs: a subscriber left from
// elsewhere would spoil a lesson's known starting state. The job running
// the lesson verb itself (see keepJob) carries on.
func (l *Lesson) stopJobs(ctx context.Context) {
	if l.env.Session == nil {
		return
	}
	keep, _ := ctx.Value(keepKey{}).(*command.Job)
	l.stopped = nil
	for _, j := range l.env.Session.Jobs() {
		if j == keep {
			continue
		}
		j.Stop()
		<-j.Done()
		l.stopped = append(l.stopped, fmt.Sprintf("[%d] %s", j.ID, j.Line))
	}
}

// StoppedNote says which jobs from before the lesson stopped as it began,
// "" when it stopped none.
func (l *Lesson) StoppedNote() string {
	if len(l.stopped) == 0 {
		return ""
	}
	return fmt.Sprintf("stopped %s: lesson %s starts from its own state, without jobs from before", strings.Join(l.stopped, ", "), l.ep.ID)
}

type keepKey struct{}

// keepJob marks j as the job that asked for a lesson to start or reset, so
// that stopping the session's jobs does not stop (and wait for) itself.
func keepJob(ctx context.Context, j *command.Job) context.Context {
	return context.WithValue(ctx, keepKey{}, j)
}

// Reset restores the lesson's starting state and forgets its steps: what
// `lesson reset` does.
func (l *Lesson) Reset(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.enter(ctx, l.ep.Start.JetStream, true); err != nil {
		return err
	}
	for i := range l.done {
		l.done[i] = false
		l.marks[i] = mark{}
		l.hints[i] = 0
	}
	l.asked = 0
	l.replays = map[string]bool{}
	l.complete = false
	l.lastJS = l.ep.Start.JetStream
	return l.save(func(p *EpisodeProgress) { p.StepsDone, p.JetStream = 0, l.ep.Start.JetStream })
}

// Close releases the checker's connection. The server stays in the
// lesson's area; the caller moves it on (another lesson, or the sandbox).
func (l *Lesson) Close() {
	if l.nc != nil {
		l.nc.Close()
	}
	if l.workDirSet {
		l.env.Session.SetWorkDir(l.prevWorkDir)
	}
}

// Episode is the episode being worked through.
func (l *Lesson) Episode() *Episode { return l.ep }

// Observe takes the session's events: what the lab's subscribers received.
func (l *Lesson) Observe(ev command.Event) { l.obs.event(ev) }

// TakeHint shows the next hint stage of the step to do next, counts it,
// and returns the report with that stage in it. Once every stage has been
// shown, asking again shows the last one again (and still counts: the
// instructor's table wants to know who is stuck). A complete lesson has
// no hint: ok is false.
func (l *Lesson) TakeHint() (r Report, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r = l.reportLocked()
	if r.Complete {
		return r, false
	}
	i := r.Current
	l.hints[i] = min(l.hints[i]+1, len(l.ep.Steps[i].Hints))
	l.asked++
	return l.reportLocked(), true
}

// StepState is one step as the learner sees it.
type StepState struct {
	Title string
	Done  bool
	// Why says, for the step to do next, what the broker's state still
	// lacks (e.g. "stream EVENTS captures evts.>, not events.>"), or the
	// step's NotYet while it hides the check's words.
	Why string
	// Hints are the hint stages shown so far for the step to do next;
	// Stages is how many it has.
	Hints  []string
	Stages int
}

// Report is a lesson's steps after an evaluation.
type Report struct {
	ID       string
	Title    string
	Steps    []StepState
	Done     int  // steps done
	Current  int  // the step to do next; len(Steps) when all are done
	Complete bool // every step is done
	Changed  bool // this evaluation ticked a step
	// HintsAsked counts the hints asked for since the lesson opened (or
	// was reset).
	HintsAsked int
}

// Evaluate reads the broker's state and ticks, in order, every step it
// now satisfies. Call it after each command and on events; it costs a few
// in-process requests when nothing changed.
func (l *Lesson) Evaluate(ctx context.Context) Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.awaitChecker()
	snap := l.snapshot(ctx)
	changed := false
	l.lastWhy = ""
	for i, st := range l.ep.Steps {
		if l.done[i] {
			continue
		}
		prev := l.start
		if i > 0 && l.done[i-1] {
			prev = l.marks[i-1]
		}
		for _, c := range st.Check {
			if c.Received != nil {
				snap.lookAtSubs(c.Received)
			}
		}
		ok, why := true, ""
		for _, c := range st.Check {
			if ok, why = snap.check(c, prev); !ok {
				break
			}
		}
		if !ok {
			l.lastWhy = l.madeAtStart(why)
			break
		}
		l.done[i] = true
		l.marks[i] = l.takeMark(snap)
		l.obs.restartUnheard()
		changed = true
		snap = l.snapshot(ctx) // the next step sees the state afresh
	}
	r := l.reportLocked()
	r.Changed = changed
	js := snap.jetStreamOn()
	if changed || js != l.lastJS || (r.Complete && !l.complete) {
		l.lastJS = js
		l.complete = r.Complete
		_ = l.save(func(p *EpisodeProgress) {
			p.StepsDone, p.JetStream = r.Done, js
			if changed && r.Done > 0 {
				p.Boot = l.marks[r.Done-1].boot
			}
			if r.Complete && !p.Done {
				p.Done, p.Completed = true, time.Now().UTC()
			}
		})
	}
	return r
}

// madeAtStart adds to why, when it says a stream the lesson's starting
// state made is gone (stream rm, reset), that lesson reset makes it again:
// no step does, and the learner may not know where it came from.
func (l *Lesson) madeAtStart(why string) string {
	for _, line := range l.ep.Start.Setup {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "stream" || f[1] != "add" {
			continue
		}
		if gone := "there is no stream " + f[2]; why == gone || strings.HasPrefix(why, gone+":") || strings.HasPrefix(why, gone+" (") {
			return why + "; the lesson started with it: lesson reset starts over with it"
		}
	}
	return why
}

// reconnectWait bounds how long an evaluation waits for the checker's
// connection to come back after the server restarted.
const reconnectWait = time.Second

// awaitChecker makes sure the checker's connection is on the server
// running now: right after a restart it may still be on its way back, and
// a check then would report the restart rather than the state. l.mu is held.
func (l *Lesson) awaitChecker() {
	if l.nc == nil {
		return
	}
	ns := l.env.Deployment.Monitor()
	if ns == nil {
		return
	}
	boot := ns.ID()
	if boot == l.checkerBoot && l.nc.IsConnected() {
		return
	}
	deadline := time.Now().Add(reconnectWait)
	for time.Now().Before(deadline) && !l.nc.IsClosed() {
		reconnected := l.checkerBoot == "" || l.nc.Stats().Reconnects > l.checkerReconnects
		if reconnected && l.nc.IsConnected() {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	l.checkerBoot, l.checkerReconnects = boot, l.nc.Stats().Reconnects
}

// Report is the steps as the last evaluation left them.
func (l *Lesson) Report() Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reportLocked()
}

func (l *Lesson) reportLocked() Report {
	r := Report{ID: l.ep.ID, Title: l.ep.Title, Current: len(l.ep.Steps), HintsAsked: l.asked}
	for i, st := range l.ep.Steps {
		s := StepState{Title: st.Title, Done: l.done[i]}
		if s.Done {
			r.Done++
		} else if r.Current == len(l.ep.Steps) {
			r.Current = i
			s.Why = l.lastWhy
			shown := l.hints[i]
			if st.NotYet != "" && s.Why != "" && shown < len(st.Hints) {
				s.Why = st.NotYet
			}
			s.Hints = append([]string(nil), st.Hints[:shown]...)
			s.Stages = len(st.Hints)
		}
		r.Steps = append(r.Steps, s)
	}
	r.Complete = r.Done == len(l.ep.Steps)
	return r
}

// takeMark records what "since the previous step" compares with.
func (l *Lesson) takeMark(s *snapshot) mark {
	m := mark{boot: s.boot(), views: map[*subscriber]subscriberView{}, leaders: map[string]string{}, published: l.obs.publishedCounts()}
	lab, srv := l.obs.views()
	for _, v := range append(lab, srv...) {
		m.views[v.id] = v
	}
	for name, r := range s.streams {
		if r.info != nil && r.info.Cluster != nil {
			m.leaders[name] = r.info.Cluster.Leader
		}
	}
	// The next step may ask whether a leader changed: know the leaders now.
	for i, d := range l.done {
		if d {
			continue
		}
		for _, c := range l.ep.Steps[i].Check {
			if c.Stream != nil && c.Stream.LeaderChanged {
				if info, _ := s.stream(c.Stream.Name); info != nil && info.Cluster != nil {
					m.leaders[c.Stream.Name] = info.Cluster.Leader
				}
			}
		}
		break
	}
	return m
}

func (l *Lesson) replayed(stream string) bool { return l.replays[stream] }

func (l *Lesson) markReplayed(stream string) { l.replays[stream] = true }

func (l *Lesson) save(f func(*EpisodeProgress)) error {
	if l.env.Progress == nil {
		return nil
	}
	return l.env.Progress.Update(l.ep.ID, f)
}
