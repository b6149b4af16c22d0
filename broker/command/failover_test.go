package command_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// streamMsgs is how many messages the stream's leader holds, read from the
// nodes themselves; -1 while it has no leader.
func streamMsgs(srv *broker.Server, stream string) int {
	for _, r := range srv.Replicas(stream) {
		if r.Leader {
			return int(r.Msgs)
		}
	}
	return -1
}

// Two of the three nodes stopped: the stream cannot elect a leader. The
// publish fails as the real CLI's does, and the lab says why (no quorum,
// not "no stream captures") and that none of the messages was stored.
func TestJetStreamPublishWithoutQuorumSaysSo(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	l.must(`pub orders.new one --jetstream`)
	leader := l.srv.StreamLeader("ORDERS")
	var stopped []string
	for _, n := range []string{"n1", "n2", "n3"} {
		if n != leader {
			l.must("node stop " + n)
			stopped = append(stopped, n)
		}
	}
	r := l.run(`pub orders.new "m{{Count}}" --jetstream --count 5`)
	if r.e == nil {
		t.Fatalf("a publish without quorum was acknowledged:\n%s", r.all())
	}
	note := command.ErrorNote(r.e)
	if !strings.Contains(note, "stream ORDERS has no quorum: 1 of its 3 replicas run, and it needs 2") || !strings.Contains(note, "none of the 5 messages was acknowledged as stored") {
		t.Errorf("the notes should say there is no quorum and nothing was stored:\n%s", note)
	}
	if s := r.all() + note; strings.Contains(s, "no stream captures") || strings.Contains(s, "no streams yet") {
		t.Errorf("a stream that exists was said not to:\n%s", s)
	}
	if line := command.ErrorLine(r.e); line != "nats: error: nats: no responders available for request" && line != "nats: error: nats: timeout" {
		t.Errorf("the error line is not one the real CLI prints: %q", line)
	}
	// With a node back the stream has its quorum, and held its one message.
	l.must("node start " + stopped[0])
	if !broker.WaitFor(10*time.Second, func() bool { return streamMsgs(l.srv, "ORDERS") >= 0 }) {
		t.Fatal("no leader after a node came back")
	}
	// A publish that met no responders reached no stream. One that timed
	// out reached the leader, which may have put it in its log without a
	// quorum to commit it: with a follower back it is committed, stored
	// though never acknowledged, as the note says it may be.
	want := []int{1}
	if strings.HasSuffix(command.ErrorLine(r.e), "timeout") {
		want = append(want, 2)
		if !strings.Contains(note, "it may have been stored too") {
			t.Errorf("a publish that timed out may have been stored, and the note should say so:\n%s", note)
		}
	}
	if n := streamMsgs(l.srv, "ORDERS"); !slices.Contains(want, n) {
		t.Errorf("the stream holds %d messages, want %v: the one stored before, and the one that timed out if it did", n, want)
	}
}

// The stream's followers stop while a publish of many runs: the stream
// loses its quorum, the publish fails where it went, and the lab says how
// many were stored, which is what the stream holds (give or take the one
// on its way), and never that no stream captures them. (Stopping the
// leader alone is no failure: the client reconnects to another node, a new
// leader is elected within the publish's timeout, and the real CLI's
// publish goes on.)
func TestJetStreamPublishDuringFailoverCountsWhatWasStored(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.addReachable(`stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults`, "ORDERS")
	// The lab's session talks to n1: with n1 leading and staying up, the
	// publisher keeps its connection and waits for acknowledgements that
	// cannot come without a quorum.
	if l.srv.StreamLeader("ORDERS") != "n1" {
		l.must("stream cluster step-down ORDERS --preferred n1")
	}
	var out, errb, note syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const total = 500_000
	j := l.s.StartStreams(ctx, `pub orders.new "m{{Count}}" --jetstream --count 500000`, command.Streams{Out: &out, Err: &errb, Note: &note})
	if !broker.WaitFor(30*time.Second, func() bool { return streamMsgs(l.srv, "ORDERS") >= 1000 }) {
		t.Fatal("the publish did not get going")
	}
	l.must("node stop n2")
	l.must("node stop n3")
	<-j.Done()
	err := j.Err()
	if err == nil {
		t.Fatalf("the publish went on after the stream lost its quorum:\n%s", errb.String())
	}
	notes := command.ErrorNote(err)
	m := regexp.MustCompile(`(\d+) of the 500000 messages were stored \(in ORDERS, sequences \d+ to \d+\) before (a publish failed|this one)`).FindStringSubmatch(notes)
	if m == nil {
		t.Fatalf("the notes do not say how many were stored:\n%s\n%s", command.ErrorLine(err), notes)
	}
	stored, _ := strconv.Atoi(m[1])
	l.must("node start n2")
	if !broker.WaitFor(10*time.Second, func() bool { return streamMsgs(l.srv, "ORDERS") >= 0 }) {
		t.Fatal("no leader once a follower came back")
	}
	if held := streamMsgs(l.srv, "ORDERS"); held < stored || held > stored+command.JSPublishWindow {
		t.Errorf("the lab says %d were stored, the stream holds %d", stored, held)
	}
	if !regexp.MustCompile(`stream ORDERS has no quorum: 1 of its 3 replicas run`).MatchString(notes) {
		t.Errorf("the notes do not say what happened:\n%s", notes)
	}
	if strings.Contains(notes+command.ErrorLine(err), "no stream captures") {
		t.Errorf("a stream that exists was said not to:\n%s", notes)
	}
	if stored >= total {
		t.Errorf("all %d stored, yet the publish failed", stored)
	}
}
