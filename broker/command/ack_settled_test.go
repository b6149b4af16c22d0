package command_test

import (
	"fmt"
	"strings"
	"testing"
)

// A sub that acknowledges what it read returns once the server has taken
// the acknowledgements in: the real CLI's next command, a process started
// later, finds the consumer with nothing waiting for an ack, and so must
// the lab's next line (a consumer takes acks in on a goroutine of its
// own, after the connection that sent them has been flushed). Through a
// pull consumer (--durable) and a push one (sub --ack on its subject).
func TestSubAcksAreTakenWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("stream add S --subjects 'foo' --defaults")
	l.must("consumer add S PULL --pull --defaults")
	l.must("consumer add S PUSH --target push.out --defaults")
	for i := 1; i <= 300; i++ {
		l.must(`pub foo x`)
		l.must(`sub --stream S --durable PULL --count 1`)
		l.must(`sub push.out --ack --count 1`)
		for _, c := range []string{"PULL", "PUSH"} {
			r := l.must("consumer info S " + c + " --json")
			floor := r.out[strings.Index(r.out, `"ack_floor"`):]
			if !strings.Contains(r.out, `"num_ack_pending": 0,`) || !strings.Contains(floor, fmt.Sprintf(`"stream_seq": %d`, i)) {
				t.Fatalf("after sub acknowledged message %d, consumer info S %s says:\n%s", i, c, r.out)
			}
		}
	}
}

// A key's put, delete or purge returns once the bucket's consumers count
// it as pending: the server acknowledges the write before it tells them
// (on the stream's own goroutine), and the real CLI's next command, a
// process started later, finds them counting it.
func TestKeyWritesArePendingWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("kv add B")
	l.must("consumer add KV_B C --pull --defaults")
	for i := 1; i <= 300; i++ {
		switch i % 3 {
		case 0:
			l.must(fmt.Sprintf("kv put B k%d x", i))
		case 1:
			l.must(fmt.Sprintf("kv del B k%d -f", i))
		case 2:
			l.must(fmt.Sprintf("kv purge B k%d -f", i))
		}
		r := l.must("consumer info KV_B C --json")
		if want := fmt.Sprintf(`"num_pending": %d,`, i); !strings.Contains(r.out, want) {
			t.Fatalf("after key write %d, consumer info says:\n%s", i, r.out)
		}
	}
}

// A request a stream answers (it stores the request and replies with its
// acknowledgement) returns once the stream's consumers count it as
// pending, as pub --jetstream does: the server acknowledges first.
func TestRequestAStreamAnswersIsPendingWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("stream add S --subjects 'foo' --defaults")
	l.must("consumer add S C --pull --defaults")
	for i := 1; i <= 300; i++ {
		r := l.must(`req foo x`)
		if !strings.Contains(r.out, `"stream":"S"`) {
			t.Fatalf("the stream did not answer the request:\n%s", r.all())
		}
		r = l.must("consumer info S C --json")
		if want := fmt.Sprintf(`"num_pending": %d,`, i); !strings.Contains(r.out, want) {
			t.Fatalf("after request %d, consumer info says:\n%s", i, r.out)
		}
	}
}
