package command_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/command"
)

// waitReady waits for a background job to be in place.
func kvWaitReady(t *testing.T, ready <-chan struct{}) {
	t.Helper()
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch never became ready")
	}
}

// TestKVWatch checks a watch prints the current values, then sees a new
// put and a delete, counts them, and stops cleanly.
func TestKVWatch(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles --history 5")
	l.must("kv put profiles sue.color blue")
	l.must("kv put profiles bob.color red")
	l.must("kv del profiles bob.color -f")

	j, out := l.background("kv watch profiles")
	kvWaitReady(t, j.Ready())
	if subj, q := j.Listening(); subj != "$KV.profiles.>" || q != "" {
		t.Errorf("the watch listens on %q %q", subj, q)
	}
	// Ready means the current values are printed already.
	initial := out.String()
	line := regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] `)
	for _, l := range strings.Split(strings.TrimSpace(initial), "\n") {
		if !line.MatchString(l) {
			t.Errorf("watch line %q lacks the [date] prefix", l)
		}
	}
	kvContains(t, "initial watch output", initial, "] PUT profiles > sue.color: blue\n", "] DELETE profiles > bob.color\n")
	if got := j.Received(); got != 2 {
		t.Errorf("received %d initial values, want 2", got)
	}

	l.must("kv put profiles sue.color green")
	l.await("the watch to see the new put", func() bool {
		return strings.Contains(out.String(), "] PUT profiles > sue.color: green\n")
	})
	l.must("kv purge profiles sue.color -f")
	// The watch prints a change, then counts it as received.
	l.await("the watch to see the purge", func() bool {
		return strings.Contains(out.String(), "] PURGE profiles > sue.color\n") && j.Received() >= 4
	})
	if got := j.Received(); got != 4 {
		t.Errorf("received %d, want 4", got)
	}

	j.Stop()
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not stop")
	}
	if j.Err() != nil {
		t.Errorf("a stopped watch ended with %v", j.Err())
	}
}

// TestKVWatchKeyAndFlags checks a key pattern filters, and --updates skips
// the current values.
func TestKVWatchKeyAndFlags(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")

	j, out := l.background("kv watch profiles 'sue.*' --updates --no-deletes")
	kvWaitReady(t, j.Ready())
	if subj, _ := j.Listening(); subj != "$KV.profiles.sue.*" {
		t.Errorf("the watch listens on %q", subj)
	}
	l.must("kv put profiles bob.color red")
	l.must("kv del profiles sue.color -f")
	l.must("kv put profiles sue.size large")
	l.await("the watch to see sue.size", func() bool { return strings.Contains(out.String(), "sue.size: large") })
	if got := out.String(); strings.Contains(got, "blue") || strings.Contains(got, "bob") || strings.Contains(got, "DELETE") {
		t.Errorf("the watch printed what it should not:\n%s", got)
	}
	j.Stop()
	<-j.Done()

	// An empty bucket is ready at once.
	l.must("kv add empty")
	j, _ = l.background("kv watch empty")
	kvWaitReady(t, j.Ready())
	j.Stop()
	<-j.Done()

	// A watch on a bucket that is not there ends with the error.
	j, _ = l.background("kv watch nope")
	<-j.Done()
	if j.Err() == nil || command.ErrorLine(j.Err()) != "nats: error: nats: bucket not found" || !strings.Contains(command.ErrorNote(j.Err()), "bucket nope not found") {
		t.Errorf("watch of a missing bucket: %v", j.Err())
	}
}

// TestKVWatchSurvivesRestartAndSeesRemoval checks a watch carries on at
// once when the lab's server restarts (no duplicate, no lost change), and
// ends quietly, as the real CLI's does, when its bucket is removed, the
// lab saying why in a note.
func TestKVWatchSurvivesRestartAndSeesRemoval(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")
	out, note := &syncBuf{}, &syncBuf{}
	out.written = l.poke
	j := l.s.StartStreams(context.Background(), "kv watch profiles", command.Streams{Out: out, Err: out, Note: note})
	kvWaitReady(t, j.Ready())

	if err := l.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	// The session's own connection comes back within moments.
	eventually(t, "a put after the restart", func() bool { return l.run("kv put profiles sue.color green").e == nil })
	l.await("the watch to see the put after the restart", func() bool {
		return strings.Contains(out.String(), "sue.color: green")
	})
	if n := strings.Count(out.String(), "sue.color: blue"); n != 1 {
		t.Errorf("the value before the restart was printed %d times:\n%s", n, out.String())
	}

	l.must("kv rm profiles --force")
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the watch went on after its bucket was removed")
	}
	// As the real CLI's: no error, no line of its own; the lab says why in
	// a note.
	if j.Err() != nil || strings.Contains(out.String(), "error") || !strings.Contains(note.String(), "the watch ended: bucket profiles was deleted") {
		t.Errorf("the watch ended with %v, printed:\n%s\nnoted: %q", j.Err(), out.String(), note.String())
	}
}

// A bucket kept in memory is gone once the server restarts: the watch
// cannot be made again and ends as the real CLI's does, with no error and
// no line of its own; the lab's words are a note.
func TestKVWatchOfABucketLostInARestart(t *testing.T) {
	l := newLab(t)
	l.must("kv add cache --storage memory")
	l.must("kv put cache k v")
	out, note := &syncBuf{}, &syncBuf{}
	j := l.s.StartStreams(context.Background(), "kv watch cache", command.Streams{Out: out, Err: out, Note: note})
	kvWaitReady(t, j.Ready())
	if err := l.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the watch went on after its bucket was lost")
	}
	if j.Err() != nil || strings.Contains(out.String(), "error") || !strings.Contains(note.String(), "the watch ended when the server restarted: bucket cache no longer exists") {
		t.Errorf("the watch ended with %v, printed:\n%s\nnoted: %q", j.Err(), out.String(), note.String())
	}
}

// handedWrites hands each write of a job to the test, one at a time:
// until the test takes it, the job waits in the write, having received a
// change but not shown it. Once the test ends, writes pass.
type handedWrites struct {
	ch   chan string
	stop chan struct{}
}

func newHandedWrites(buffer int) *handedWrites {
	return &handedWrites{ch: make(chan string, buffer), stop: make(chan struct{})}
}

func (w *handedWrites) Write(p []byte) (int, error) {
	select {
	case w.ch <- string(p):
	case <-w.stop:
	}
	return len(p), nil
}

func (w *handedWrites) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-w.ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("the watch printed nothing")
		return ""
	}
}

// startHanded starts line as a job whose writes w hands to the test.
func startHanded(t *testing.T, l *lab, line string, w *handedWrites) *command.Job {
	j := l.s.Start(context.Background(), line, w, w)
	t.Cleanup(func() {
		close(w.stop)
		j.Stop()
		<-j.Done()
	})
	return j
}

// TestKVWatchSettles checks a watch's barrier (Job.Settle) lets through
// only once the watch has shown the last change the server holds for it
// (a script waits for that before a check and before stopping it),
// counting deletes it passes over with --no-deletes, and not waiting for
// the values before it started with --updates.
func TestKVWatchSettles(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gone, stop := context.WithCancel(context.Background())
	stop()

	w := newHandedWrites(0)
	j := startHanded(t, l, "kv watch profiles", w)
	if got := w.next(t); !strings.Contains(got, "PUT profiles > sue.color: blue") {
		t.Fatalf("first line %q", got)
	}
	kvWaitReady(t, j.Ready())
	l.must("kv put profiles sue.color green")
	// Stored, and the watch's line for it is held: the barrier cannot let
	// through, so it ends with the context.
	if err := j.Settle(gone); err == nil {
		t.Error("the watch's barrier let through before it showed the new value")
	}
	if got := w.next(t); !strings.Contains(got, "PUT profiles > sue.color: green") {
		t.Fatalf("next line %q", got)
	}
	if err := j.Settle(ctx); err != nil {
		t.Errorf("once it showed the new value: %v", err)
	}

	quiet := newHandedWrites(10)
	j2 := startHanded(t, l, "kv watch profiles --no-deletes", quiet)
	quiet.next(t)
	kvWaitReady(t, j2.Ready())
	l.must("kv del profiles sue.color -f")
	// Passing over a delete prints nothing, and still lets the barrier through.
	if err := j2.Settle(ctx); err != nil {
		t.Errorf("the --no-deletes watch past the delete: %v", err)
	}
	select {
	case s := <-quiet.ch:
		t.Errorf("the --no-deletes watch printed %q", s)
	default:
	}

	j3, _ := l.background("kv watch profiles --updates")
	kvWaitReady(t, j3.Ready())
	if err := j3.Settle(ctx); err != nil {
		t.Errorf("an --updates watch waits for no value from before it started: %v", err)
	}
}
