package command_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// A stopped job leaves no interest behind: when the lab says a job has
// ended (JobEnded), the server has already dropped every subscription the
// job made. A lesson's check or a scene that reads the server right after
// (is anyone still listening to events.>? does a pull still wait?) must
// not see the job that was just stopped.
func TestStoppedJobsLeaveNoInterest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string // lines run first
		// line is the job; started, when set, returns once the job is in
		// place (default: the job's Ready).
		line    string
		started func(t *testing.T, l *stopLab, j *command.Job)
	}{
		{name: "sub", line: `sub "events.>"`},
		{name: "sub several subjects", line: `sub events.a events.b`},
		{name: "sub queue group", line: `sub "events.>" --queue workers`},
		{name: "sub count", line: `sub "events.>" --count 5`},
		{name: "sub inbox", line: `sub --inbox`},
		{name: "sub stream", setup: []string{`stream add EVENTS --subjects "events.>" --defaults`}, line: `sub "events.>" --all`},
		{
			// Ready once its pulls are asked for: the pull's inbox reaches
			// the server with the first of them.
			name: "sub durable pull", setup: []string{`stream add EVENTS --subjects "events.>" --defaults`, `consumer add EVENTS worker --pull --defaults`}, line: `sub --stream EVENTS --durable worker`,
			started: func(t *testing.T, l *stopLab, j *command.Job) {
				<-j.Ready()
				eventually(t, "the pull to wait", func() bool { return l.waiting(t, "EVENTS", "worker") == 1 })
			},
		},
		{name: "sub direct", setup: []string{`stream add JOBS --subjects "jobs.>" --retention work --allow-direct --defaults`, `pub jobs.a hello`}, line: `sub "jobs.>" --stream JOBS`},
		{name: "reply", line: `reply svc.time 'it is now'`},
		{name: "reply count", line: `reply svc.time 'it is now' --count 3`},
		{name: "kv watch", setup: []string{`kv add PROFILES`, `kv put PROFILES alice 1`}, line: `kv watch PROFILES`},
		{name: "consumer next", setup: []string{`stream add EVENTS --subjects "events.>" --defaults`, `consumer add EVENTS worker --pull --defaults`}, line: `consumer next EVENTS worker --count 3 --timeout 1m`},
		{
			// A request waiting for its reply: a subscriber that never
			// answers has its request once the request's inbox is in place.
			name: "request", setup: nil, line: `req svc.slow hello`,
			started: func(t *testing.T, l *stopLab, j *command.Job) {
				l.await(t, "the request to reach the listener", func() bool { return l.listener.Received() == 1 })
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newStopLab(t)
			for _, line := range tc.setup {
				l.must(t, line)
			}
			if tc.name == "request" {
				l.listener = l.s.Start(context.Background(), "sub svc.slow", nil, nil)
				<-l.listener.Ready()
			}
			before := l.subs(t)
			var out syncBuf
			j := l.s.Start(context.Background(), tc.line, &out, &out)
			if tc.started != nil {
				tc.started(t, l, j)
			} else {
				<-j.Ready()
			}
			running := l.subs(t)
			made := slices.DeleteFunc(running.minus(before), isRequestMux)
			// A consumer the job made for itself outlives it, as the real
			// CLI's does: the server's own subscriptions for it are not
			// the job's.
			made = slices.DeleteFunc(made, l.notAClient(t))
			if len(made) == 0 {
				select {
				case <-j.Done():
					t.Fatalf("%s: ended before it was stopped: %v\n%s", tc.line, j.Err(), out.String())
				default:
				}
				t.Fatalf("%s: no subscription of its own at the server while it runs\n%s", tc.line, out.String())
			}
			j.Stop()
			ended := l.endedSubs(t, j)
			if left := ended.holding(made); len(left) > 0 {
				t.Errorf("%s: the lab said the job ended while the server still held its subscriptions %v", tc.line, left)
			}
		})
	}
}

// A request leaves no inbox behind however it ends: with its reply,
// timed out, or with no responders.
func TestEndedRequestsLeaveNoInterest(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		replier    string // a job started first
	}{
		{name: "answered", line: `req svc.time hello`, replier: `reply svc.time now`},
		{name: "no responders", line: `req svc.nobody hello`},
		{name: "timed out", line: `req svc.slow hello --timeout 50ms`, replier: `sub svc.slow`},
		{name: "several", line: `req svc.time hello --count 3`, replier: `reply svc.time now`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newStopLab(t)
			if tc.replier != "" {
				<-l.s.Start(context.Background(), tc.replier, nil, nil).Ready()
			}
			// The session's own connection (and its request mux) first.
			l.must(t, "pub svc.warmup hello")
			before := l.subs(t)
			var out syncBuf
			j := l.s.Start(context.Background(), tc.line, &out, &out)
			ended := l.endedSubs(t, j)
			if left := slices.DeleteFunc(ended.minus(before), isRequestMux); len(left) > 0 {
				t.Errorf("%s: the lab said the request ended while the server still held %v\n%s", tc.line, left, out.String())
			}
		})
	}
}

// A line begun right after stop N (pasted with it) runs once job N has
// ended: a request then finds nobody listening, instead of reaching the
// subscriber being stopped and waiting for an answer that never comes.
func TestALineAfterStopRunsOnceTheJobEnded(t *testing.T) {
	l := newStopLab(t)
	// The real CLI's sub, in a child process: stopping it takes a while
	// (the child is interrupted and waited for), in which the request
	// would run if it did not wait.
	sub := l.s.Start(context.Background(), `sub "events.>" --server `+l.srv.ClientURL(), nil, nil)
	<-sub.Ready()
	eventually(t, "the real CLI's subscription", func() bool { return l.srv.Monitor().Interest("events.x") > 0 })
	var out syncBuf
	stop := l.s.Start(context.Background(), fmt.Sprintf("stop %d", sub.ID), nil, nil)
	req := l.s.Start(context.Background(), "req events.x hello --timeout 2s", &out, &out)
	for _, j := range []*command.Job{stop, req} {
		select {
		case <-j.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never ended", j.Line)
		}
	}
	if !strings.Contains(out.String(), "No responders are available") {
		t.Errorf("a request after stop %d found the stopped subscriber still listening:\n%s", sub.ID, out.String())
	}
}

// stopLab is a session whose observer reads the server's subscriptions the
// moment a job's end is told, before the job's goroutine goes on.
type stopLab struct {
	srv      *broker.Server
	s        *command.Session
	listener *command.Job // a silent subscriber, for the request case

	mu      sync.Mutex
	changed chan struct{}
	ended   map[int]subSet // the server's subscriptions when job N's end was told
	// held says, when job N's end was told, who still held a subscription
	// to greet: the lab's server (for the leaf), or the leaf.
	held map[int]string
}

func newStopLab(t *testing.T) *stopLab {
	l := &stopLab{srv: brokertest.Start(t), changed: make(chan struct{}, 1), ended: map[int]subSet{}}
	l.s = command.NewSession(l.srv, command.WithTimeout(time.Minute), command.WithObserver(func(e command.Event) {
		if e.Kind == command.JobEnded {
			got, err := serverSubs(l.srv)
			l.mu.Lock()
			if err != nil {
				got = subSet{"error: " + err.Error(): true}
			}
			l.ended[e.Job] = got
			if h := greetHeld(l.srv); h != "" {
				if l.held == nil {
					l.held = map[int]string{}
				}
				l.held[e.Job] = h
			}
			l.mu.Unlock()
		}
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(l.s.Close)
	return l
}

func (l *stopLab) must(t *testing.T, line string) {
	t.Helper()
	var out, errb strings.Builder
	if err := l.s.Run(context.Background(), line, &out, &errb); err != nil {
		t.Fatalf("%s: %v\n%s%s", line, err, errb.String(), out.String())
	}
}

// await waits for cond, looking again at each event of the session's jobs.
func (l *stopLab) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waiting is how many pulls wait at a consumer, as the server says.
func (l *stopLab) waiting(t *testing.T, stream, consumer string) int {
	t.Helper()
	jsz, err := l.srv.Monitor().Jsz(&server.JSzOptions{Accounts: true, Streams: true, Consumer: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, acc := range jsz.AccountDetails {
		for _, st := range acc.Streams {
			for _, ci := range st.Consumer {
				if st.Name == stream && ci.Name == consumer {
					return ci.NumWaiting
				}
			}
		}
	}
	return 0
}

func (l *stopLab) subs(t *testing.T) subSet {
	t.Helper()
	got, err := serverSubs(l.srv)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// endedSubs waits for j to end and returns what the server held when its
// end was told.
func (l *stopLab) endedSubs(t *testing.T, j *command.Job) subSet {
	t.Helper()
	select {
	case <-j.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: never ended after stop", j.Line)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	got, ok := l.ended[j.ID]
	if !ok {
		t.Fatalf("%s: ended without telling", j.Line)
	}
	return got
}

// notAClient reports whether a subscription (as serverSubs lists it)
// belongs to none of the server's client connections: the server's own,
// for a consumer or its system account.
func (l *stopLab) notAClient(t *testing.T) func(string) bool {
	t.Helper()
	cz, err := l.srv.Monitor().Connz(&server.ConnzOptions{Limit: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]bool{}
	for _, ci := range cz.Conns {
		clients[fmt.Sprintf("cid %d", ci.Cid)] = true
	}
	return func(sub string) bool {
		f := strings.Fields(sub)
		return !clients[f[1]+" "+f[2]]
	}
}

// subSet is the server's subscriptions, each as account, client, id and
// subject.
type subSet map[string]bool

func serverSubs(srv *broker.Server) (subSet, error) {
	sz, err := srv.Monitor().Subsz(&server.SubszOptions{Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return nil, err
	}
	out := subSet{}
	for _, sd := range sz.Subs {
		out[fmt.Sprintf("%s cid %d sid %s %s", sd.Account, sd.Cid, sd.Sid, sd.Subject)] = true
	}
	return out, nil
}

// minus lists the subscriptions s holds and before did not.
func (s subSet) minus(before subSet) []string {
	var out []string
	for k := range s {
		if !before[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// holding lists those of subs s still holds.
func (s subSet) holding(subs []string) []string {
	var out []string
	for _, k := range subs {
		if s[k] {
			out = append(out, k)
		}
	}
	return out
}

// isRequestMux reports whether a subscription is a connection's request
// mux (_INBOX.<id>.*), where nats.go takes the answers to the
// connection's own requests: nothing else can reach it, and it leaves with
// the connection.
func isRequestMux(sub string) bool {
	f := strings.Fields(sub)
	subject := f[len(f)-1]
	return strings.HasPrefix(subject, "_INBOX.") && strings.HasSuffix(subject, ".*") && strings.Count(subject, ".") == 2
}

// A job of the real CLI's (a child process) leaves no interest behind
// either, when it is stopped: its process exits, and the servers notice
// its closed socket a moment later, the leaf node first and the lab's
// server after, once the leaf has told it. The lab says the job ended only
// once both have dropped the subscription, so a request pasted right
// after stop 1 finds nobody listening. Several rounds: on its own, the
// servers usually win the race.
func TestStoppedRealCLIJobsLeaveNoInterest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	for _, tc := range []struct {
		name string
		line string // subscribes to greet
	}{
		{name: "leaf sub", line: "leaf sub greet"},
		{name: "leaf reply", line: "leaf reply greet hello"},
		{name: "leaf sub queue group", line: "leaf sub greet --queue workers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newStopLab(t)
			l.must(t, "leaf start")
			for round := range 20 {
				sub := l.s.Start(context.Background(), tc.line, nil, nil)
				<-sub.Ready()
				eventually(t, "the subscriber's interest at the lab's server", func() bool { return l.srv.Monitor().Interest("greet") > 0 })
				l.mu.Lock()
				l.held = nil
				l.mu.Unlock()
				var out syncBuf
				stop := l.s.Start(context.Background(), fmt.Sprintf("stop %d", sub.ID), nil, nil)
				req := l.s.Start(context.Background(), "req greet hello --timeout 1s", &out, &out)
				for _, j := range []*command.Job{stop, req, sub} {
					select {
					case <-j.Done():
					case <-time.After(10 * time.Second):
						t.Fatalf("round %d: %s never ended", round, j.Line)
					}
				}
				l.mu.Lock()
				held := l.held[sub.ID]
				l.mu.Unlock()
				if held != "" {
					t.Fatalf("round %d: the lab said %q ended while %s", round, tc.line, held)
				}
				if !strings.Contains(out.String(), "No responders are available") {
					t.Fatalf("round %d: a request after stop %d found the stopped subscriber still listening:\n%s", round, sub.ID, out.String())
				}
			}
		})
	}
}

// greetHeld says which server still holds a subscription to greet: the
// lab's server (its own clients', or what the leaf told it of), the leaf
// node (its own clients', or what the lab's server told it of); "" for
// none.
func greetHeld(srv *broker.Server) string {
	var held []string
	// Interest counts what the leaf told the lab's server; the server's
	// list of subscriptions leaves a leaf's out.
	if srv.Monitor().Interest("greet") > 0 {
		held = append(held, "the lab's server still routed greet to a subscriber")
	}
	if m := srv.Leaf().Monitor(); m != nil && m.Listeners("greet") > 0 {
		held = append(held, "the leaf node still had a subscriber to greet")
	}
	if leafHearsGreet(srv) {
		held = append(held, "the leaf node still heard of the lab's server's interest in greet")
	}
	return strings.Join(held, ", and ")
}

// leafHearsGreet reports whether the leaf node has been told, over its
// leaf connection, that the lab's server wants messages on greet: until it
// forgets, it sends what its clients publish on greet over to the lab's
// server, where nobody takes it ("no responders" never comes, a request
// waits for its timeout).
func leafHearsGreet(srv *broker.Server) bool {
	m := srv.Leaf().Monitor()
	if m == nil {
		return false
	}
	lz, err := m.Leafz(&server.LeafzOptions{Subscriptions: true})
	if err != nil {
		return false
	}
	for _, lf := range lz.Leafs {
		if slices.Contains(lf.Subs, "greet") {
			return true
		}
	}
	return false
}

// A job of the lab's own on the lab's server (sub, reply), stopped while
// a leaf node runs: the lab says it ended only once the leaf node, too,
// has forgotten its interest, so that a request made on the leaf right
// after stop 1 finds no responders instead of waiting for its timeout.
func TestStoppedJobsLeaveTheLeafNoInterest(t *testing.T) {
	for _, line := range []string{"sub greet", "reply greet hello", "sub greet --queue workers"} {
		t.Run(line, func(t *testing.T) {
			l := newStopLab(t)
			l.must(t, "leaf start")
			for round := range 50 {
				j := l.s.Start(context.Background(), line, nil, nil)
				<-j.Ready()
				if !broker.WaitFor(10*time.Second, func() bool { return leafHearsGreet(l.srv) }) {
					t.Fatalf("round %d: the leaf node never heard of %q's interest in greet", round, line)
				}
				l.mu.Lock()
				l.held = nil
				l.mu.Unlock()
				j.Stop()
				select {
				case <-j.Done():
				case <-time.After(10 * time.Second):
					t.Fatalf("round %d: %s never ended", round, line)
				}
				l.mu.Lock()
				held := l.held[j.ID]
				l.mu.Unlock()
				if held != "" {
					t.Fatalf("round %d: the lab said %q ended while %s", round, line, held)
				}
			}
		})
	}
}
