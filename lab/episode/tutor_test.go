package episode

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// lab is a tutor wired the way the lab wires it: the session's events go to
// the tutor, the tutor's verbs are the session's.
type lab struct {
	t     testing.TB
	srv   *broker.Server
	s     *command.Session
	tutor *Tutor
	prog  *Progress
}

func newLab(t *testing.T, srv *broker.Server) *lab { return newLabB(t, srv) }

func newLabB(t testing.TB, srv *broker.Server) *lab {
	t.Helper()
	prog, err := OpenProgress(srv.StoreDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{t: t, srv: srv, prog: prog}
	l.s = command.NewSession(srv, command.WithTimeout(3*time.Second), command.WithObserver(func(ev command.Event) {
		if l.tutor != nil {
			l.tutor.Observe(ev)
		}
	}))
	t.Cleanup(l.s.Close)
	l.tutor = NewTutor(catalog(), Env{Deployment: srv, Session: l.s, Progress: prog}, ListOptions{})
	for _, v := range l.tutor.Verbs() {
		l.s.AddVerb(v)
	}
	t.Cleanup(func() {
		if les := l.tutor.Lesson(); les != nil {
			les.Close()
		}
	})
	return l
}

// quitAndStartAgain closes the lab as quitting does (its lesson, session
// and server) and starts a new one on the same store, as natslab run again.
func (l *lab) quitAndStartAgain() *lab {
	l.t.Helper()
	if les := l.tutor.Lesson(); les != nil {
		les.Close()
	}
	l.s.Close()
	dir := l.srv.StoreDir()
	l.srv.Shutdown()
	return newLabB(l.t, brokertest.Start(l.t, brokertest.InProcessOnly(), brokertest.WithStore(dir)))
}

// run runs a line in the lab's session and returns what it printed.
func (l *lab) run(line string) string {
	l.t.Helper()
	var out syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.s.Run(ctx, line, &out, &out); err != nil {
		return out.String() + command.ErrorLine(err) + "\n"
	}
	return out.String()
}

func (l *lab) must(line string, want ...string) string {
	l.t.Helper()
	out := l.run(line)
	if strings.Contains(out, "nats: error:") {
		l.t.Fatalf("%s:\n%s", line, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			l.t.Errorf("%s: output lacks %q:\n%s", line, w, out)
		}
	}
	return out
}

// bg starts line as a background job, as a trailing & does, and waits
// until it is in place.
func (l *lab) bg(line string) {
	l.t.Helper()
	j := l.s.Start(context.Background(), line, io.Discard, io.Discard)
	l.t.Cleanup(j.Stop)
	select {
	case <-j.Ready():
	case <-time.After(5 * time.Second):
		l.t.Fatalf("%s is not in place after 5s", line)
	}
}

func (l *lab) report() Report {
	l.t.Helper()
	r, ok := l.tutor.Evaluate(context.Background())
	if !ok {
		l.t.Fatal("no lesson is open")
	}
	return r
}

// The pane's lesson verbs: open, tick, hint, reset, move on, leave; and the
// sandbox is as it was afterwards.
func TestLessonVerbs(t *testing.T) {
	l := newLab(t, newServer(t))
	l.must(`stream add MINE --subjects "mine.>" --defaults`)
	l.must("pub mine.x kept --jetstream")

	// Inside the lab the list sends to the lab's verbs: natslab --lesson
	// is no command at this prompt.
	// natslab's own command line, typed at the prompt, points to the verbs.
	// The real CLI refuses the word natslab; the lab's note says what to do.
	var out, note syncBuf
	err := l.s.RunStreams(context.Background(), "natslab --lesson first-stream", command.Streams{Out: &out, Err: &out, Note: &note})
	if notes := note.String() + command.ErrorNote(err); !strings.Contains(out.String(), `expected command but got "natslab"`) || !strings.Contains(notes, "leave out the word natslab") || !strings.Contains(notes, "lesson ID opens a lesson") {
		t.Errorf("natslab --lesson at the prompt:\n%s\nnotes: %s", out.String(), notes)
	}
	if out := l.must("lessons", "first-stream", "new", fmt.Sprintf("0 of %d done", len(catalog().Episodes)), "Open one: lesson ID or number, or type next."); strings.Contains(out, "natslab --lesson") {
		t.Errorf("lessons in the lab points to a command the lab has not:\n%s", out)
	}
	l.must("lesson first-stream", "Lesson 6 · first-stream", "▸ Turn JetStream on", "try: nats-server -js")
	if l.srv.JetStream() || l.srv.Area() != "lessons/first-stream" {
		t.Fatalf("the lesson starts with JetStream off in its own area: js %v, area %q", l.srv.JetStream(), l.srv.Area())
	}
	l.must("hint", "Step 1: Turn JetStream on", "Try:", "nats-server -js")
	l.must("nats-server -js")
	l.must("lesson", "✓ Turn JetStream on", "▸ Create the EVENTS stream", "not yet: there is no stream EVENTS")
	l.must(`stream add EVENTS --subjects "evts.>" --defaults`)
	l.must("hint", "Not yet: stream EVENTS captures evts.>, not events.>")

	if out := l.run("lesson reset"); !strings.Contains(out, "lesson reset --force to go ahead") {
		t.Errorf("where nothing can ask, lesson reset wants --force: %s", out)
	}
	l.must("lesson reset --force", "back at its starting state", "▸ Turn JetStream on")
	if l.srv.JetStream() {
		t.Error("reset turns JetStream off again, as the lesson starts")
	}
	var typed strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(solutions(t)["first-stream"]), "\n") {
		if !strings.HasPrefix(line, "#") {
			// A line that failed (a publish timed out, its message stored
			// later) says so here, not as a replay that fell short.
			fmt.Fprintf(&typed, "> %s\n%s", line, l.must(line))
		}
	}
	if r := l.report(); !r.Complete {
		t.Fatalf("solution typed in the pane: %+v\n%s", r, typed.String())
	}
	l.must("lesson", "All 4 steps done")
	l.must("lessons", "▸  6  first-stream      done")

	l.must("next", "Lesson 7 · stream-log")
	l.must("prev", "Lesson 6 · first-stream", "✓ Replay every stored event")
	l.must("lesson leave", "Back in the sandbox")
	if l.srv.Area() != "" || !l.srv.JetStream() {
		t.Fatalf("back in the sandbox: area %q, JetStream %v", l.srv.Area(), l.srv.JetStream())
	}
	l.must("stream info MINE", "Messages: 1")
	if out := l.run("lesson repilcas"); !strings.Contains(out, "did you mean replicas?") {
		t.Errorf("a misspelt lesson: %s", out)
	}
	if out := l.run("lesson replicas"); !strings.Contains(out, "start natslab --cluster 3 --lesson replicas") {
		t.Errorf("replicas without a cluster: %s", out)
	}
}

// A lesson resumes where the learner left it, after the lab restarts.
func TestLessonResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	srv := brokertest.Start(t, brokertest.InProcessOnly(), brokertest.WithStore(dir))
	l := newLab(t, srv)
	l.must("lesson durable-consumer")
	l.must("consumer add EVENTS worker --pull --ack explicit --defaults")
	l.must("consumer next EVENTS worker --ack")
	if r := l.report(); r.Done != 1 {
		t.Fatalf("want step 1 done: %+v", r)
	}
	l2 := l.quitAndStartAgain()
	if l2.prog.Current() != "durable-consumer" {
		t.Errorf("the progress file should remember the open lesson, got %q", l2.prog.Current())
	}
	l2.must("lesson durable-consumer", "✓ Create worker", "▸ Take and acknowledge two messages")
	l2.must("consumer next EVENTS worker --ack")
	if r := l2.report(); r.Done != 2 {
		t.Fatalf("the consumer kept its ack floor across the restart, so step 2 ticks: %+v", r)
	}
	l2.must("lessons", "in progress 2/4")
}

// A step that asks for a restart since the previous step knows, once the
// lesson is opened again on a server started since (the lab quit and
// started again), that the server restarted.
func TestResumedLessonKnowsTheServerRestarted(t *testing.T) {
	dir := t.TempDir()
	srv := brokertest.Start(t, brokertest.InProcessOnly(), brokertest.WithStore(dir))
	l := newLab(t, srv)
	l.must("lesson restart")
	l.must(`stream add DISK --subjects "disk.>" --storage file --defaults`)
	l.must(`pub disk.note "kept {{Count}}" --count 3 --jetstream`)
	l.must(`stream add RAM --subjects "ram.>" --storage memory --defaults`)
	l.must(`pub ram.note "fleeting {{Count}}" --count 3 --jetstream`)
	if r := l.report(); r.Done != 2 || !strings.Contains(r.Steps[2].Why, "has not restarted") {
		t.Fatalf("want steps 1 and 2 done, and step 3 waiting for a restart: %+v", r)
	}
	l2 := l.quitAndStartAgain()
	out := l2.must("lesson restart", "✓ Restart the server and count what is left")
	if r := l2.report(); r.Done != 3 {
		t.Fatalf("the lab's server restarted with the lab, DISK kept its messages and RAM is gone, so step 3 ticks: %+v\n%s", r, out)
	}
}

// An authorization block of the learner's own (the text's token
// paragraph invites one) replaces the lesson's users, so shop is refused
// and step 2 cannot tick; the step's last hint says why and starts over.
func TestPermissionsOwnAuthorizationBlockHasAWayOut(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithStore(t.TempDir()))
	l := newLab(t, srv)
	l.must("lesson permissions")
	l.run(`pub orders.new "order 1"`)
	if r := l.report(); r.Done != 1 {
		t.Fatalf("want step 1 done: %+v", r)
	}
	l.run("config add authorization { token: s3cret }")
	if out := l.run(`pub --user shop --password shop-pw orders.new "order 1"`); !strings.Contains(out, "Authorization Violation") {
		t.Fatalf("with a block of the learner's own last, shop should be refused:\n%s", out)
	}
	r := l.report()
	if r.Done != 1 {
		t.Fatalf("shop was refused, yet step 2 ticked: %+v", r)
	}
	var hint string
	for range 4 {
		hint = l.run("hint")
	}
	if !strings.Contains(hint, "last authorization block") || !strings.Contains(hint, "lesson reset --force") {
		t.Fatalf("the last hint does not name the way out:\n%s", hint)
	}
	l.must("lesson reset --force")
	l.run(`pub orders.new "order 1"`)
	l.must(`pub --user shop --password shop-pw orders.new "order 1"`)
	if r := l.report(); r.Done != 2 {
		t.Fatalf("after the reset, shop publishes and step 2 ticks: %+v", r)
	}
}

// Steps tick however the state came about: here the real nats CLI, in
// another process, does the work, and the tutor's watch notices.
func TestRealCLITicksSteps(t *testing.T) {
	srv := brokertest.Start(t)
	l := newLab(t, srv)
	var changes atomic.Int32
	changed := make(chan struct{}, 1)
	l.tutor.OnChange(func() {
		changes.Add(1)
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	// The real CLI is another process: the tutor notices what it does on
	// its own (Watch) and says so; each look here is the test's own.
	waitFor := func(t *testing.T, what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatalf("the tutor saw no change for 10s, waiting for %s", what)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.tutor.Watch(ctx)

	l.must("lesson hello")
	cli := brokertest.RealCLI(t)
	sub := exec.Command(cli, "--server", srv.ClientURL(), "--no-context", "sub", "greet", "--count", "2")
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Process.Kill(); _ = sub.Wait() }()
	waitFor(t, "the real subscriber", func() bool { return l.report().Done >= 1 })
	brokertest.RunRealCLI(t, srv.ClientURL(), "pub", "greet", "from the real CLI")
	waitFor(t, "the delivery to the real subscriber", func() bool { return l.report().Done >= 2 })
	brokertest.RunRealCLI(t, srv.ClientURL(), "pub", "greet", "second")
	if err := sub.Wait(); err != nil {
		t.Fatalf("the real subscriber: %v", err)
	}
	// A look at the broker between the subscriber's exit and the next
	// publish, as the watch's poll takes within a second: a person is
	// slower than that.
	l.report()
	brokertest.RunRealCLI(t, srv.ClientURL(), "pub", "greet", "nobody hears this")
	waitFor(t, "the unheard publish", func() bool { return l.report().Complete })
	if changes.Load() == 0 {
		t.Error("OnChange was never called")
	}

	l.must("lesson first-stream")
	l.must("nats-server -js")
	brokertest.RunRealCLI(t, srv.ClientURL(), "stream", "add", "EVENTS", "--subjects", "events.>", "--defaults")
	for _, body := range []string{"a", "b"} {
		brokertest.RunRealCLI(t, srv.ClientURL(), "pub", "events.page_loaded", body, "--jetstream")
	}
	brokertest.RunRealCLI(t, srv.ClientURL(), "pub", "events.input_changed", "c", "--jetstream")
	waitFor(t, "the stream filled by the real CLI", func() bool { return l.report().Done >= 3 })
}

// A troubleshooting step does not name its fault: its "not yet" is the
// step's own words, its hints come one stage per hint (a nudge, more, the
// answer), each counted; once every stage was shown the check's words come
// back too. Setup jobs are numbered as the hints say: stop 3 stops the
// worker in the misspelt group.
func TestHintsComeInStagesAndHideTheFault(t *testing.T) {
	l := newLab(t, newServer(t))
	out := l.must("lesson troubleshooting", "▸ Make requests to prices.quote get an answer", "not yet: a request to prices.quote has not been answered yet")
	for _, leak := range []string{"price.quote", "reply prices.quote"} {
		if strings.Contains(out, leak) {
			t.Errorf("the lesson's status gives the fault away (%q):\n%s", leak, out)
		}
	}
	first := l.must("hint", "Hint 1 of 3:", "(hint again for more)")
	if strings.Contains(first, "Hint 2 of 3") || strings.Contains(first, "price.quote") {
		t.Errorf("the first hint shows more than its stage:\n%s", first)
	}
	l.must("hint", "Hint 1 of 3:", "Hint 2 of 3:", "(hint again for more)")
	third := l.must("hint", "Hint 3 of 3:", `reply prices.quote "42.00" &`)
	if !strings.Contains(third, "Not yet: nothing subscribes to prices.quote") {
		t.Errorf("with every stage shown, the check's own words come back:\n%s", third)
	}
	if r := l.report(); r.HintsAsked != 3 || len(r.Steps[0].Hints) != 3 || r.Steps[0].Stages != 3 {
		t.Fatalf("three hints asked, three stages shown: %+v", r)
	}
	l.bg(`reply prices.quote "42.00"`)
	l.must(`request prices.quote ""`)
	if r := l.report(); r.Done != 1 || len(r.Steps[1].Hints) != 0 {
		t.Fatalf("step 1 done, and step 2 starts with no hint shown: %+v", r)
	}
	l.must("jobs", "[3] sub work --queue pol")
	l.must("stop 3", "[3] stopped: sub work --queue pol")
	l.bg("sub work --queue pool")
	if r := l.report(); r.Done != 2 {
		t.Fatalf("stop 3 stopped the stray worker, so step 2 is done: %+v", r)
	}
	l.must("lesson reset --force")
	if r := l.report(); r.HintsAsked != 0 {
		t.Errorf("a reset forgets the hints: %+v", r)
	}
}

// The stage after the first hint of dedupe's first step is help for a
// publish stored twice, not the step's answer: hint promises more, not
// the answer.
func TestHintPromisesMoreNotTheAnswer(t *testing.T) {
	l := newLab(t, newServer(t))
	l.must("lesson dedupe")
	if out := l.must("hint", "Hint 1 of 2:", "(hint again for more)"); strings.Contains(out, "answer") {
		t.Errorf("hint promises the answer, and its next stage is help for a wrong turn:\n%s", out)
	}
	if out := l.must("hint", "Hint 2 of 2: Stored it twice?"); strings.Contains(out, "hint again") {
		t.Errorf("the last stage shown, hint promises more:\n%s", out)
	}
}

// A lesson opened by its number is remembered by its ID: the progress file
// names lessons, and the numbers follow the catalog's order.
func TestLessonOpensByItsNumber(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	l := newLab(t, srv)
	l.must("lesson 6", "Lesson 6 · first-stream")
	if got := l.prog.Current(); got != "first-stream" {
		t.Errorf("the progress file should name the lesson, got %q", got)
	}
}

// A step whose state the next command undoes still ticks when the lesson
// first looks after both, as when the lines were pasted together: what the
// leaf passed to the lab's server still counts once the leaf has stopped.
func TestLeafLessonTicksWhatTheLeafPassedBeforeItStopped(t *testing.T) {
	l := newLab(t, brokertest.Start(t)) // the lesson needs a listener
	l.must("lesson leaf-node")
	l.must("leaf start")
	if r := l.report(); r.Done != 1 {
		t.Fatalf("after leaf start: %d steps done (%s)", r.Done, why(r))
	}
	l.bg("leaf sub greet")
	if r := l.report(); r.Done != 2 {
		t.Fatalf("after leaf sub: %d steps done (%s)", r.Done, why(r))
	}
	l.must(`pub greet "hello leaf"`)
	if !broker.WaitFor(5*time.Second, func() bool { return l.report().Done == 3 }) {
		t.Fatalf("the leaf's subscriber never got the message: %s", why(l.report()))
	}

	l.bg(`sub "hub.>"`)
	l.must(`leaf pub hub.news "from the leaf"`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.s.Sync()
	for _, j := range l.s.Jobs() {
		_ = j.Settle(ctx)
	}
	if n, _ := l.srv.Leaf().Passed(); n != 1 {
		t.Fatalf("the leaf passed %d, want 1", n)
	}
	l.must("leaf stop")
	if r := l.report(); r.Done != 4 {
		t.Fatalf("with the leaf stopped before the lesson looked, %d steps done: %s", r.Done, why(r))
	}
}

// why is what the step to do next still lacks.
func why(r Report) string {
	if r.Current < len(r.Steps) {
		return r.Steps[r.Current].Why
	}
	return "every step is done"
}

// The jobs a lesson's starting state runs (troubleshooting's responder
// and its two workers) run again when the lesson is opened again after
// the lab quit, or a workshop attendee came back: its steps and hints
// speak of them ("jobs lists what runs … stop 3").
func TestResumedLessonRunsItsJobsAgain(t *testing.T) {
	dir := t.TempDir()
	srv := brokertest.Start(t, brokertest.InProcessOnly(), brokertest.WithStore(dir))
	l := newLab(t, srv)
	l.must("lesson troubleshooting")
	l.must("jobs", "reply price.quote", "sub work --queue pool", "sub work --queue pol")
	l2 := l.quitAndStartAgain()
	l2.must("lesson troubleshooting")
	out := l2.must("jobs", "reply price.quote", "sub work --queue pool", "sub work --queue pol")
	if n := strings.Count(out, "sub work --queue"); n != 2 {
		t.Errorf("want the two workers once each:\n%s", out)
	}
}

// A lesson starts from its own state, so it stops the jobs running before
// it: lesson ID and next say which, rather than a subscriber vanishing
// from jobs unsaid.
func TestOpeningALessonSaysWhichJobsItStopped(t *testing.T) {
	l := newLab(t, brokertest.Start(t, brokertest.InProcessOnly()))
	notes := func(line string) string {
		var out, note syncBuf
		if err := l.s.RunStreams(context.Background(), line, command.Streams{Out: &out, Err: &out, Note: &note}); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
		return note.String()
	}
	l.bg("sub greet")
	if n := notes("lesson hello"); !strings.Contains(n, `stopped [1] sub greet: lesson hello starts from its own state, without jobs from before`) {
		t.Errorf("lesson hello with a sub running, notes:\n%s", n)
	}
	l.bg("sub other")
	l.bg(`reply time "now"`)
	if n := notes("next"); !strings.Contains(n, `stopped [1] sub other, [2] reply time "now": lesson subjects starts from its own state`) {
		t.Errorf("next with two jobs running, notes:\n%s", n)
	}
	if n := notes("lesson hello"); strings.Contains(n, "stopped") {
		t.Errorf("no job ran, and the notes say:\n%s", n)
	}
}

// A stream the lesson made at its start and the learner erased (reset,
// stream rm) comes back with lesson reset alone, as no step makes it: the
// step that needs it says so, where it said only that there is none.
func TestAStreamTheLessonStartedWithPointsToLessonReset(t *testing.T) {
	l := newLab(t, newServer(t))
	l.must("lesson durable-consumer")
	l.must("consumer add EVENTS worker --pull --ack explicit --defaults")
	l.must("lesson", "✓ Create worker")
	l.must("reset --force")
	const back = "the lesson started with it: lesson reset starts over with it"
	l.must("lesson", "▸ Take and acknowledge two messages", "not yet: there is no stream EVENTS: there are no streams yet; "+back)
	l.must(`stream add OTHER --subjects "other.>" --defaults`)
	l.must("hint", "Not yet: there is no stream EVENTS (streams: OTHER); "+back)

	l.must("lesson reset --force", "▸ Create worker")
	if out := l.must("lesson", "not yet: there is no consumer worker on stream EVENTS"); strings.Contains(out, "lesson started with it") {
		t.Errorf("EVENTS is back, still pointing to lesson reset:\n%s", out)
	}
	l.must("stream info EVENTS", "Messages: 3")
}

// The lab's connection from before a lesson (a stream added in the
// sandbox) is not a client of the learner's: it does not reconnect to the
// lesson's server, whose users would refuse it and so tick "publish
// without a user" for nobody's publish. The learner's own publish is the
// one login refused.
func TestTheLabsConnectionFromBeforeIsNoRefusedLogin(t *testing.T) {
	l := newLab(t, brokertest.Start(t))
	l.must(`stream add X --subjects x --defaults`)
	mark := l.srv.Log().Total()
	l.must("lesson permissions", "▸ Read the server's configuration")
	if r := l.report(); r.Done != 0 {
		t.Errorf("nothing typed in the lesson yet, and %d steps are done", r.Done)
	}
	if out := l.run(`pub orders.new "order 1"`); !strings.Contains(out, "Authorization Violation") {
		t.Errorf("a publish without a user is refused at once:\n%s", out)
	}
	lines, _ := l.srv.Log().Since(mark)
	logins := 0
	for _, r := range refusals(lines) {
		if r.What == "login" {
			logins++
		}
	}
	if logins != 1 {
		t.Errorf("the server refused %d logins, want the learner's publish alone:\n%s", logins, strings.Join(lines, "\n"))
	}
}
