package command_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"natslab/broker/command"
)

// After nats-server -js the next JetStream line works the first time: the
// verb returns once the session's connection is back and JetStream
// answers, so neither a publish nor a stream info right after it meets a
// connection still reconnecting.
func TestNatsServerVerbReturnsReadyForTheNextLine(t *testing.T) {
	l := newLab(t)
	l.must(`stream add EVENTS --subjects "events.>" --defaults`)
	jetStreamLinesWorkAfter(t, l, "nats-server -js")
}

// jetStreamLinesWorkAfter runs verb twenty times, each followed at once
// by a JetStream publish and a stream info that must count it.
func jetStreamLinesWorkAfter(t *testing.T, l *lab, verb string) {
	t.Helper()
	for i := range 20 {
		l.must(verb)
		l.must(fmt.Sprintf("pub events.%d hello --jetstream", i))
		want := fmt.Sprintf("Messages: %d", i+1)
		if r := l.must("stream info EVENTS"); !strings.Contains(r.out, want) {
			t.Fatalf("%s %d: stream info right after it wants %q:\n%s", verb, i, want, r.out)
		}
	}
}

// A subscriber running as a job has its own connection: the verb waits for
// it to be back too, so a core publish right after the restart reaches it
// (core NATS keeps nothing for a subscriber that is not there).
func TestNatsServerVerbWaitsForJobsConnections(t *testing.T) {
	l := newLab(t)
	subJobHearsEachPublishAfter(t, l, "nats-server -js")
}

// subJobHearsEachPublishAfter runs verb twenty times beside a sub job,
// each followed at once by a core publish the job must receive.
func subJobHearsEachPublishAfter(t *testing.T, l *lab, verb string) {
	t.Helper()
	j, _ := l.background(`sub 'greet.*'`)
	waitReady(t, j)
	for i := range 20 {
		l.must(verb)
		l.must(fmt.Sprintf("pub greet.n%d hello", i))
		l.await(fmt.Sprintf("the sub job receiving the publish after %s %d", verb, i), func() bool {
			return j.Received() >= uint64(i+1)
		})
	}
}

// The wait is bounded and says what was not ready: here the server stays
// down, so the sub job's connection cannot come back.
func TestReconnectingSaysWhatWasNotReady(t *testing.T) {
	l := newLab(t)
	j, _ := l.background(`sub 'greet.*'`)
	waitReady(t, j)
	err := l.s.Reconnecting(func() error { l.srv.Stop(); return nil })
	var notReady *command.NotReadyError
	if !errors.As(err, &notReady) || !strings.Contains(err.Error(), "greet.*") || !strings.Contains(err.Error(), "had not reconnected") {
		t.Fatalf("want a NotReadyError naming the sub's connection, got %v", err)
	}
	if err := l.s.Reconnecting(func() error { return l.srv.Restart(true) }); err != nil {
		t.Fatalf("once the server is back the lab is ready: %v", err)
	}
}

// A real nats-server flag the lab ignores (-p: the lab keeps its port) is
// the lab's word, a note, never a line on stderr that reads as the
// server's or the real CLI's.
func TestNatsServerVerbSaysWhatItIgnoresAsANote(t *testing.T) {
	l := newLab(t)
	r := l.must("nats-server -js -p 4333")
	if !strings.Contains(r.note, "-p is ignored: the lab's server keeps its address") {
		t.Errorf("no note says -p is ignored: note %q", r.note)
	}
	if strings.Contains(r.err+r.out, "is ignored") {
		t.Errorf("the lab's words are printed as the server's lines:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
}
