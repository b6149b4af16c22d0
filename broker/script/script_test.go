package script_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// A script can wait: sleep DURATION is a line of its own, and a bad
// duration is one clear error while the script carries on.
func TestScriptsSleep(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	var out, errb bytes.Buffer
	res, err := script.Run(context.Background(), s, strings.NewReader("sleep 10ms\nsleep soon\nsleep 2m\nsleep\npub greet hi\n"), command.Streams{Out: &out, Err: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 5 || res.Failed != 3 {
		t.Fatalf("want 5 lines, 3 failed: %+v\n%s", res, errb.String())
	}
	for _, want := range []string{`sleep wants a duration with a unit, like 500ms or 3s, got "soon"`, "sleep waits at most 1m0s, got 2m0s", "sleep takes one duration", `Published 2 bytes to "greet"`} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// With the lab's notes on (natslab run --explain), output of a background
// job that follows another job's (or a command's) is led by a note naming
// the job, as the lab's command pane does: two subscribers on one subject
// each say which of them received the message. Without notes, the real
// CLI's lines come alone.
func TestNotesNameTheJobWhoseLinesFollow(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	src := "sub greet &\nsub greet &\npub greet hi\n"
	var term bytes.Buffer // one terminal: stdout, stderr and the notes
	if _, err := script.Run(context.Background(), s, strings.NewReader(src), command.Streams{Out: &term, Err: &term, Note: command.MarkNotes(&term)}); err != nil {
		t.Fatal(err)
	}
	label := ""
	got := map[string]int{}
	for _, l := range strings.Split(term.String(), "\n") {
		if strings.HasPrefix(l, "» [") {
			label = strings.TrimPrefix(l, "» ")
			continue
		}
		if strings.Contains(l, `Received on "greet"`) {
			got[label]++
		}
	}
	if got["[1] sub greet"] != 1 || got["[2] sub greet"] != 1 {
		t.Errorf("each subscriber's message under its own name, got %v:\n%s", got, term.String())
	}

	s2 := command.NewSession(srv)
	defer s2.Close()
	var plain bytes.Buffer
	if _, err := script.Run(context.Background(), s2, strings.NewReader(src), command.Streams{Out: &plain, Err: &plain}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "[1] sub greet") || strings.Count(plain.String(), `Received on "greet"`) != 2 {
		t.Errorf("without notes, the real CLI's lines alone:\n%s", plain.String())
	}
}

// The end of a script waits for its background jobs to go through what
// its lines sent them before it stops them: every message a sub (live,
// from a stream through a consumer, from a work-queue stream by direct
// gets, or delivered by a push consumer), a reply, a consumer next and a
// kv watch received is in the output, although these jobs handle each
// message slower than the lines send them (a command run per message, an
// acknowledgement after a pause, a push consumer that waits for each
// acknowledgement before it delivers the next).
func TestScriptEndShowsEverythingTheJobsReceived(t *testing.T) {
	const n = 40
	var puts strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&puts, "kv put cfg k%d v%d\n", i, i)
	}
	for _, c := range []struct {
		name, script, pattern string
		first                 int // the first number in pattern
	}{
		{"sub", `sub greet --translate "tr a-z A-Z" &
pub greet "g{{Count}}" --count 40`, "\nG%d\n", 1},
		{"reply", `reply svc --command "echo ok" &
pub svc "r{{Count}}" --count 40 --reply nowhere`, "\nr%d\n", 1},
		{"consumer next", `stream add ORDERS --subjects "orders.>" --defaults
consumer add ORDERS worker --pull --ack explicit --defaults
consumer next ORDERS worker --count 1000 --wait 5ms &
pub orders.new "o{{Count}}" --count 40`, "/ str seq: %d / pending", 1},
		{"sub --all", `stream add ORDERS --subjects "orders.>" --defaults
sub "orders.>" --all --translate "tr a-z A-Z" &
pub orders.new "o{{Count}}" --count 40`, "stream: ORDERS seq: %d / pending", 1},
		{"sub --durable", `stream add ORDERS --subjects "orders.>" --defaults
sub --stream ORDERS --durable NEW --translate "tr a-z A-Z" &
pub orders.new "o{{Count}}" --count 40`, "stream: ORDERS seq: %d / pending", 1},
		{"sub on a work queue (direct gets)", `stream add JOBS --subjects "jobs.>" --retention work --defaults
pub jobs.new j0
sub "jobs.>" --stream JOBS --translate "tr a-z A-Z" &
pub jobs.new "j{{Count}}" --count 40`, "stream: JOBS seq %d / subject: jobs.new", 2},
		{"sub on a push consumer's subject", `stream add ORDERS --subjects "orders.>" --defaults
pub orders.new "o{{Count}}" --count 40
consumer add ORDERS pusher --target work.orders --ack explicit --max-pending 1 --defaults
sub work.orders --ack --translate "tr a-z A-Z" &`, "\nO%d\n", 1},
		{"kv watch", "kv add cfg\nkv watch cfg &\n" + puts.String(), "PUT cfg > k%[1]d: v%[1]d\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := brokertest.Start(t, brokertest.InProcessOnly())
			s := command.NewSession(srv)
			defer s.Close()
			var out, errb, notes bytes.Buffer // the script writes under one lock
			res, err := script.Run(context.Background(), s, strings.NewReader(c.script), command.Streams{Out: &out, Err: &errb, Note: &notes})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != 0 {
				t.Fatalf("%d lines failed:\n%s", res.Failed, errb.String())
			}
			all := out.String() + errb.String()
			for i := c.first; i < c.first+n; i++ {
				if want := fmt.Sprintf(c.pattern, i); !strings.Contains(all, want) {
					t.Errorf("the output lacks %q (of %d):\n%s", want, n, all)
					break
				}
			}
			if strings.Contains(notes.String(), "was still receiving") {
				t.Errorf("a job had to be given up on:\n%s", notes.String())
			}
		})
	}
}

// A job that cannot go through what it was sent (here its handler runs a
// command that never ends) does not hold the script for good: after the
// bound, a note names it and the script goes on to stop it.
func TestScriptEndNamesAJobStillReceiving(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	var out, errb, notes bytes.Buffer // the script writes under one lock
	src := "sub greet --translate \"tail -f /dev/null\" &\npub greet hi\n"
	res, err := script.Run(context.Background(), s, strings.NewReader(src), command.Streams{Out: &out, Err: &errb, Note: &notes})
	if err != nil || res.Failed != 0 {
		t.Fatalf("%v, %+v:\n%s", err, res, errb.String())
	}
	if !strings.Contains(notes.String(), `[1] sub greet --translate "tail -f /dev/null" was still receiving after`) {
		t.Errorf("notes:\n%s", notes.String())
	}
}

// As at a shell, where a person types the next line once a background
// job has shown what the last one sent it, each line runs once the jobs
// have gone through what the line before sent them: a key-value watch
// shows a delete that the next put of the key replaces (the bucket keeps
// one revision of each key, so a watch still behind would never see it),
// and a sub shows a message before the next line runs.
func TestEachLineRunsOnceTheJobsShowedTheLastOne(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	var seen []uint64 // what the jobs had shown, each time a line asked
	s.AddVerb(command.Verb{Name: "shown", Usage: "shown", Summary: "Note how many messages the jobs have shown", Run: func(*command.Call, []string) error {
		var n uint64
		for _, j := range s.Jobs() {
			n += j.Received()
		}
		seen = append(seen, n)
		return nil
	}})
	src := `kv add cfg
kv watch cfg &
kv put cfg k one
shown
kv del cfg k --force
shown
kv put cfg k two
shown
sub greet &
pub greet hi
shown
`
	var out, errb bytes.Buffer // the script writes under one lock
	res, err := script.Run(context.Background(), s, strings.NewReader(src), command.Streams{Out: &out, Err: &errb})
	if err != nil || res.Failed != 0 {
		t.Fatalf("%v, %+v:\n%s", err, res, errb.String())
	}
	if fmt.Sprint(seen) != "[1 2 3 4]" {
		t.Errorf("the jobs had shown %v messages when each shown line ran, want [1 2 3 4]:\n%s", seen, out.String())
	}
	if !strings.Contains(out.String(), "DELETE cfg > k\n") {
		t.Errorf("the watch never showed the delete:\n%s", out.String())
	}
}

// A script read from a terminal (or any reader still open) stops when its
// context ends, without waiting for another line to arrive: Ctrl-C at
// `natslab run -` ends the run, and the result says where.
func TestAScriptWaitingForItsNextLineStopsWithItsContext(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	type ran struct {
		res script.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := script.Run(ctx, s, r, command.Streams{Out: &out, Err: &errb})
		done <- ran{res, err}
	}()
	// Once the line's message arrives, the script has run it and goes on
	// to wait for the next.
	nc := brokertest.Connect(t, srv, "watcher")
	sub, err := nc.SubscribeSync("greet")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "pub greet hi\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case got := <-done:
		if got.err != nil {
			t.Fatal(got.err)
		}
		if !got.res.Stopped || got.res.StoppedAt != 1 || got.res.Lines != 1 || got.res.Failed != 0 {
			t.Fatalf("want a script stopped after its first line, which ran: %+v\n%s", got.res, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the script kept waiting for a line after its context ended")
	}
}
