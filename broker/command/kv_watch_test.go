package command_test

import (
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
	l.await("the watch to see the purge", func() bool {
		return strings.Contains(out.String(), "] PURGE profiles > sue.color\n")
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
// ends with a clear error when its bucket is removed.
func TestKVWatchSurvivesRestartAndSeesRemoval(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")
	j, out := l.background("kv watch profiles")
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
	if j.Err() == nil || !strings.Contains(j.Err().Error(), "bucket profiles was deleted") {
		t.Errorf("the watch ended with %v", j.Err())
	}
}
