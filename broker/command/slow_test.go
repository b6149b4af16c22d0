package command_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// blockedWriter holds every write until released: a subscriber whose
// output cannot keep up, for as long as the test wants.
type blockedWriter struct {
	release chan struct{}
	buf     syncBuf
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.buf.Write(p)
}

// A sub that cannot keep up loses messages to the client library's bounded
// buffer. What the real CLI prints stays as it prints it (the [#n] numbers
// skip the lost ones); a note says what happened, jobs counts the drops,
// and the last note says how many of how many were lost.
func TestSlowConsumerIsReportedWithItsDrops(t *testing.T) {
	l := newLab(t)
	out := &blockedWriter{release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(out.release)
		}
	}
	defer release() // a failure must not leave the job stuck for ever
	var errb, note syncBuf
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := l.s.StartStreams(ctx, `sub ">"`, command.Streams{Out: out, Err: &errb, Note: &note})
	select {
	case <-j.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the sub did not start")
	}
	const flood = command.SubPendingMsgs + 50_000 // more than the subscriber's buffer holds
	nc := brokertest.Connect(t, l.srv, "flood")
	for i := range flood {
		if err := nc.Publish(fmt.Sprintf("flood.%d", i%10), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The subscriber is stuck on its first message: everything past its
	// buffer is dropped, as the server delivers it. Nothing announces a
	// drop as it happens: poll the count.
	deadline := time.Now().Add(20 * time.Second)
	for j.Dropped() < 40_000 {
		if time.Now().After(deadline) {
			t.Fatalf("dropped %d of %d with the subscriber stuck", j.Dropped(), flood)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(note.String(), "slow consumer") {
		t.Errorf("no note says the subscriber is slow:\n%s", note.String())
	}
	jobs := l.must("jobs")
	if !regexp.MustCompile(`\[1\] sub ">"  \(running .*, \d+ messages? received, \d+ dropped as a slow consumer\)`).MatchString(jobs.out) {
		t.Errorf("jobs does not count the drops:\n%s", jobs.out)
	}
	release()
	// Everything the subscriber kept is printed; then it stops.
	l.await(fmt.Sprintf("all %d received or dropped", flood), func() bool { return j.Received()+j.Dropped() >= flood })
	dropped := j.Dropped()
	j.Stop()
	<-j.Done()
	if !strings.Contains(note.String(), fmt.Sprintf(`sub ">": %d of %d messages dropped`, dropped, flood)) {
		t.Errorf("the last note should count the drops (%d):\n%s", dropped, note.String())
	}
	// The real CLI's lines: its numbers count the dropped messages too.
	last := regexp.MustCompile(`\[#(\d+)\] Received on`).FindAllStringSubmatch(out.buf.String(), -1)
	if len(last) == 0 {
		t.Fatal("nothing printed")
	}
	if n, _ := strconv.Atoi(last[len(last)-1][1]); uint64(n) <= j.Received() || uint64(n) > j.Received()+dropped || uint64(len(last)) != j.Received() {
		t.Errorf("printed %d messages, the last numbered %d; received %d, dropped %d", len(last), n, j.Received(), dropped)
	}
	if strings.Contains(errb.String()+out.buf.String(), "slow consumer") {
		t.Errorf("the real CLI's lines mention the slow consumer; natscli's sub does not")
	}
}
