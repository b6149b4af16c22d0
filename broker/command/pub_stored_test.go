package command_test

import (
	"fmt"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// A core publish returns once a stream that captures it has stored what
// it published, as the real CLI's next command (a process of its own,
// later) finds it: stream info right after pub counts every message.
func TestCorePublishIsStoredWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("stream add S --subjects 'foo' --defaults")
	for i := 1; i <= 300; i++ {
		l.must(`pub foo x`)
		r := l.must("stream info S --json")
		if want := fmt.Sprintf(`"messages": %d,`, i); !strings.Contains(r.out, want) {
			t.Fatalf("after publish %d, stream info says:\n%s", i, r.out)
		}
	}
}

// A publish, core or JetStream, returns once the stream's consumers count
// what it stored as pending too: the server tells them on a goroutine of
// its own after storing (and after acknowledging a JetStream publish), and
// consumer info right after pub must count every message, as the real
// CLI's next command does.
func TestPublishIsPendingWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("stream add S --subjects 'foo' --defaults")
	l.must("consumer add S C --pull --defaults")
	for i := 1; i <= 300; i++ {
		if i%2 == 0 {
			l.must(`pub foo x --jetstream`)
		} else {
			l.must(`pub foo x`)
		}
		r := l.must("consumer info S C --json")
		if want := fmt.Sprintf(`"num_pending": %d,`, i); !strings.Contains(r.out, want) {
			t.Fatalf("after publish %d, consumer info says:\n%s", i, r.out)
		}
	}
}

// A JetStream publish to a subject no stream captures, while a plain
// subscriber listens there: the server has a responder, so no "no
// responders", only the real CLI's timeout; the note says what happened
// (no stream captures it; a subscriber does not acknowledge), not that
// a stream may be unavailable.
func TestJetStreamPublishHeardButNotStored(t *testing.T) {
	l := newLab(t)
	l.must(`stream add EVENTS --subjects events --defaults`)
	j, _ := l.background(`sub "events.>"`)
	waitReady(t, j)
	defer func() { j.Stop(); <-j.Done() }()
	msg := l.fails("pub events.page_loaded hi --jetstream --timeout 500ms", "nats: timeout", `no stream captures "events.page_loaded" (EVENTS captures events)`, "something subscribes to it")
	if strings.Contains(msg, "may be unavailable") {
		t.Errorf("the note blames a stream: %q", msg)
	}
}

// With JetStream off, a JetStream publish is answered by nobody, or, with
// a plain subscriber there, waits out its timeout: the note says JetStream
// is off (and why it waited), not that a meta leader may be being elected.
func TestJetStreamPublishWithJetStreamOffSaysItIsOff(t *testing.T) {
	l := newLab(t, brokertest.WithoutJetStream())
	msg := l.fails("pub orders hi --jetstream", "nats: no responders available for request", "JetStream is off on the lab's server: turn it on with nats-server -js")
	if strings.Contains(msg, "meta leader") || strings.Contains(msg, "waited") {
		t.Errorf("the note blames an election, or a wait there was not: %q", msg)
	}
	j, _ := l.background(`sub "events.>"`)
	waitReady(t, j)
	defer func() { j.Stop(); <-j.Done() }()
	msg = l.fails("pub events.page_loaded hi --jetstream --timeout 500ms", "nats: timeout", "JetStream is off on the lab's server: turn it on with nats-server -js", `something subscribes to "events.page_loaded"`)
	if strings.Contains(msg, "meta leader") {
		t.Errorf("the note blames an election: %q", msg)
	}
}
