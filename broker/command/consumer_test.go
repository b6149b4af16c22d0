package command_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// Consumer commands against a real embedded server. Streams are made with
// the nats.go API directly, so these tests stand on their own.

// conStream creates a stream and publishes bodies to subject (subject may
// hold {n} for the message number).
func conStream(t *testing.T, l *lab, cfg jetstream.StreamConfig, subject string, bodies ...string) {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "setup")
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		if _, err := js.Publish(ctx, subject, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
}

// conPublish adds messages to a stream that exists.
func conPublish(t *testing.T, l *lab, subject string, bodies ...string) {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "pub")
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, b := range bodies {
		if _, err := js.Publish(ctx, subject, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
}

// conInfo reads a consumer's state straight from the broker.
func conInfo(t *testing.T, l *lab, stream, name string) *jetstream.ConsumerInfo {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "check")
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, stream, name)
	if err != nil {
		t.Fatalf("consumer %s > %s: %v", stream, name, err)
	}
	return c.CachedInfo()
}

func conEvents() jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}
}

func TestConsumerAddPullDefaults(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "one", "two", "three")
	r := l.must("consumer add EVENTS worker --pull --ack explicit --defaults")
	for _, want := range []string{"Information for Consumer EVENTS > worker created", "Pull Mode: true", "Ack Policy: Explicit", "Unprocessed Messages: 3"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("lacks %q:\n%s", want, r.out)
		}
	}
	if r.err != "" {
		t.Errorf("with --pull --defaults nothing was defaulted, yet: %s", r.err)
	}
	ci := conInfo(t, l, "EVENTS", "worker")
	if ci.Config.AckPolicy != jetstream.AckExplicitPolicy || ci.Config.Durable != "worker" || ci.Config.DeliverSubject != "" {
		t.Errorf("config: %+v", ci.Config)
	}
	// Adding the same again is fine, as on the real CLI.
	l.must("consumer add EVENTS worker --pull --ack explicit --defaults")
	// The aliases reach the same command.
	l.must("con info EVENTS worker")
	l.must("obs ls EVENTS")
	l.must("consumer create EVENTS other --pull --defaults")
	l.must("consumer new EVENTS third --pull --defaults")
	// natscli v0.5.0 has no --durable: the real CLI refuses it.
	l.fails("consumer add EVENTS --durable fourth --pull --defaults", "error: unknown long flag '--durable'")
}

// Without a terminal the real CLI refuses where it would ask, in the
// order it asks; the lab's note names the flag that answers.
func TestConsumerAddRefusesWhereTheRealCLIWouldAsk(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "one")
	for line, want := range map[string]string{
		"consumer add EVENTS nodef":                  "could not request delivery target: cannot prompt for user input without a terminal",
		"consumer add EVENTS dflt --defaults":        "could not request delivery target: cannot prompt for user input without a terminal",
		"consumer add EVENTS p --pull":               "could not request start policy: cannot prompt for user input without a terminal",
		"consumer add EVENTS p --pull --deliver all": "could not ask acknowledgement policy: cannot prompt for user input without a terminal",
		"consumer add EVENTS q --target out":         "could not request delivery group: cannot prompt for user input without a terminal",
		"consumer add EVENTS --pull --defaults":      "could not request durable name: cannot prompt for user input without a terminal",
		"consumer add EVENTS p --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 9": "could not ask headers only: cannot ask for confirmation without a terminal",
	} {
		r := l.run(line)
		if r.e == nil {
			t.Errorf("%s: made a consumer where the real CLI would ask", line)
			continue
		}
		if got := command.ErrorLine(r.e); got != "nats: error: "+want {
			t.Errorf("%s: %q, want the real CLI's %q", line, got, want)
		}
		if note := command.ErrorNote(r.e); !strings.Contains(note, "no terminal to ask in: give") {
			t.Errorf("%s: the note should name the flag: %q", line, note)
		}
	}
	if r := l.run("consumer ls EVENTS --names"); strings.TrimSpace(r.out) != "" {
		t.Errorf("refused lines made consumers: %q", r.out)
	}
	l.must("consumer add EVENTS all --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 9 --no-headers-only --backoff none")
	ci := conInfo(t, l, "EVENTS", "all")
	if ci.Config.DeliverSubject != "" || ci.Config.AckPolicy != jetstream.AckExplicitPolicy || ci.Config.MaxDeliver != 3 {
		t.Errorf("a line that answers everything: %+v", ci.Config)
	}
}

func TestConsumerAddFlags(t *testing.T) {
	l := newLab(t)
	conStream(t, l, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}, "orders.new", "1", "2", "3", "4", "5")
	conPublish(t, l, "orders.old", "6")

	l.must("consumer add ORDERS W1 --pull --wait 10s --defaults")
	if got := conInfo(t, l, "ORDERS", "W1").Config.AckWait; got != 10*time.Second {
		t.Errorf("--wait: %s", got)
	}
	r := l.must("consumer add ORDERS W2 --pull --wait 3s --max-deliver 3 --max-pending 7 --replay original --description 'two' --inactive-threshold 1h --defaults")
	ci := conInfo(t, l, "ORDERS", "W2")
	if ci.Config.AckWait != 3*time.Second || ci.Config.MaxDeliver != 3 || ci.Config.MaxAckPending != 7 || ci.Config.ReplayPolicy != jetstream.ReplayOriginalPolicy || ci.Config.Description != "two" || ci.Config.InactiveThreshold != time.Hour {
		t.Errorf("config: %+v", ci.Config)
	}
	for _, want := range []string{"Ack Wait: 3.00s", "Maximum Deliveries: 3", "Max Ack Pending: 7", "Replay Policy: Original", "Inactive Threshold: 1h0m0s"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("info lacks %q:\n%s", want, r.out)
		}
	}

	for _, tc := range []struct {
		deliver string
		policy  jetstream.DeliverPolicy
		pending uint64
		shows   string
	}{
		{"all", jetstream.DeliverAllPolicy, 6, "Deliver Policy: All"},
		{"new", jetstream.DeliverNewPolicy, 0, "Deliver Policy: New"},
		{"last", jetstream.DeliverLastPolicy, 1, "Deliver Policy: Last"},
		{"last_per_subject", jetstream.DeliverLastPerSubjectPolicy, 2, "Deliver Policy: Last Per Subject"},
		{"4", jetstream.DeliverByStartSequencePolicy, 3, "Deliver Policy: From Sequence 4"},
		{"1h", jetstream.DeliverByStartTimePolicy, 6, "Deliver Policy: Since "},
	} {
		name := "D" + strings.ReplaceAll(tc.deliver, "_", "")
		r := l.must(fmt.Sprintf("consumer add ORDERS %s --pull --deliver %s --defaults", name, tc.deliver))
		ci := conInfo(t, l, "ORDERS", name)
		if ci.Config.DeliverPolicy != tc.policy || ci.NumPending != tc.pending {
			t.Errorf("--deliver %s: policy %v pending %d", tc.deliver, ci.Config.DeliverPolicy, ci.NumPending)
		}
		if !strings.Contains(r.out, tc.shows) {
			t.Errorf("--deliver %s: info lacks %q", tc.deliver, tc.shows)
		}
	}
	l.fails("consumer add ORDERS BAD --pull --deliver yesterday --defaults", "nats: error: could not parse starting delta: invalid duration", "--deliver takes all, new, last", `"yesterday"`)
	l.fails("consumer add ORDERS BAD --pull --deliver 0 --defaults", "nats: error: Consumer creation failed: consumer delivery policy is deliver by start sequence, but optional start sequence is not set (10094)", "sequences start at 1")
	l.fails("consumer add ORDERS BAD --pull --ack sometimes --defaults", "--ack wants one of")
	l.fails("consumer add ORDERS bad.name --pull --defaults", "not a valid consumer name")
	// --target wins over --pull, as in the real CLI: a push consumer, its
	// acks explicit as --pull asks.
	r = l.must("consumer add ORDERS PUSHED --pull --target x.y --defaults")
	if !strings.Contains(r.out, "Delivery Subject: x.y") || !strings.Contains(r.out, "Ack Policy: Explicit") {
		t.Errorf("--pull --target:\n%s", r.out)
	}
	l.fails("consumer add ORDERS BAD --pull --heartbeat 5s --defaults", "nats: error: pull subscribers does not support idle heartbeats", "push consumers")
	l.fails("consumer add ORDERS BAD --pull --filter 'orders. new' --defaults", "nats: error: Consumer creation failed: nats: invalid subject", "contains a space")
	l.fails("consumer add ORDERS --pull --defaults", "could not request durable name", "consumer add ORDERS worker --pull --defaults")
	l.fails("consumer add --pull --defaults", "nats: error: could not select Stream: cannot pick a Stream without a terminal and no Stream name supplied", "name the stream on the line: ORDERS")

	// Two filters.
	l.must("consumer add ORDERS BOTH --pull --filter orders.new --filter orders.old --defaults")
	if ci := conInfo(t, l, "ORDERS", "BOTH"); len(ci.Config.FilterSubjects) != 2 || ci.NumPending != 6 {
		t.Errorf("filters: %v pending %d", ci.Config.FilterSubjects, ci.NumPending)
	}
	// A linear backoff.
	r = l.must("consumer add ORDERS BACK --pull --backoff linear --backoff-min 1s --backoff-max 5s --backoff-steps 4 --defaults")
	if ci := conInfo(t, l, "ORDERS", "BACK"); len(ci.Config.BackOff) != 4 || ci.Config.BackOff[3] != 4*time.Second {
		t.Errorf("backoff: %v", ci.Config.BackOff)
	}
	if !strings.Contains(r.out, "Backoff: 1s, 2s, 3s, 4s") {
		t.Errorf("info lacks the backoff:\n%s", r.out)
	}
}

func TestConsumerFilterTypoIsPointedOut(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.page.view", "a", "b")
	r := l.must("consumer add EVENTS typo --pull --filter evnts.page.view --defaults")
	// The real CLI says nothing: the lab's words are a note.
	if r.err != "" || !strings.Contains(r.note, "filter evnts.page.view matches no subject stream EVENTS captures (events.>)") ||
		!strings.Contains(r.note, "did you mean events.page.view?") {
		t.Errorf("stderr %q, note %q", r.err, r.note)
	}
	// The consumer exists all the same (the server allows it), with nothing to deliver.
	if ci := conInfo(t, l, "EVENTS", "typo"); ci.NumPending != 0 {
		t.Errorf("pending %d", ci.NumPending)
	}
	// A filter that matches: no warning. Two consumers, one log (episode 13).
	r = l.must("consumer add EVENTS pages --pull --filter 'events.page.>' --defaults")
	if strings.Contains(r.note, "matches no subject") {
		t.Errorf("unexpected warning: %s", r.note)
	}
	conPublish(t, l, "events.click", "c")
	l.must("consumer add EVENTS all --pull --defaults")
	if a, p := conInfo(t, l, "EVENTS", "all").NumPending, conInfo(t, l, "EVENTS", "pages").NumPending; a != 3 || p != 2 {
		t.Errorf("all sees %d, pages sees %d", a, p)
	}
	out := l.must("consumer next EVENTS pages").out
	if !strings.Contains(out, "subj: events.page.view") {
		t.Errorf("next: %s", out)
	}
	if a := conInfo(t, l, "EVENTS", "all").NumPending; a != 3 {
		t.Errorf("reading one consumer moved the other: %d", a)
	}
	// Editing a filter into a typo warns too.
	r = l.must("consumer edit EVENTS pages --filter 'evetns.page.>' --force")
	if !strings.Contains(r.note, "did you mean events.page.>?") {
		t.Errorf("edit warning: %q", r.note)
	}
}

func TestConsumerAddErrors(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "one")
	l.must("consumer add EVENTS worker --pull --defaults")
	// Adding it again changes it, where the server allows the change. A
	// deliver policy it does not allow, and consumer edit can not change
	// it either: the note sends to consumer rm alone (lesson
	// deliver-policies, a consumer made with another --deliver).
	msg := l.fails("consumer add EVENTS worker --pull --deliver new --defaults",
		"nats: error: Consumer creation failed: deliver policy can not be updated (10012)", "already exists on stream EVENTS", "deliver policy All, not New",
		"its deliver policy is fixed when it is made", "consumer rm EVENTS worker --force, then add it again")
	if strings.Contains(msg, "with consumer edit") {
		t.Errorf("the note sends to consumer edit, which can not change a deliver policy: %q", msg)
	}
	if line, _, _ := strings.Cut(msg, "\n"); strings.Contains(line, "already exists") {
		t.Error("the lab's words are in the real CLI's line:", msg)
	}
	l.fails("consumer add NOPE worker --pull --defaults", "nats: error: could not select Stream: cannot pick a Stream without a terminal and no Stream name supplied", "there is no stream NOPE", "EVENTS")
	l.fails("consumer add EVENT worker --pull --defaults", "did you mean EVENTS?")

	// A work queue takes one unfiltered consumer.
	conStream(t, l, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}, Retention: jetstream.WorkQueuePolicy}, "jobs.email", "x")
	l.must("consumer add JOBS first --pull --defaults")
	l.fails("consumer add JOBS second --pull --defaults", "(10099)", "work queue", "exactly one consumer", "first with no filter", "--filter")
	l.fails("consumer add JOBS emails --pull --filter jobs.email --defaults", "(10100)", "may not overlap", "first with no filter")
	l.must("consumer rm JOBS first -f")
	l.must("consumer add JOBS emails --pull --filter jobs.email --defaults")
	l.fails("consumer add JOBS emails2 --pull --filter 'jobs.*' --defaults", "may not overlap")

	// Replicas need a cluster, for a consumer as for a stream.
	l.fails("consumer add EVENTS copies --pull --replicas 3 --defaults", "nats: error: Consumer creation failed: replicas > 1 not supported in non-clustered mode (10074)", "--replicas 3 needs a cluster", "--cluster 3")
	l.fails("consumer edit EVENTS worker --replicas 3 -f", "nats: error: replicas > 1 not supported in non-clustered mode (10074)", "--replicas 3 needs a cluster", "--cluster 3")

	l.fails("consumer add EVENTS slow --pull --backoff linear --max-deliver 2 --defaults", "nats: error: Consumer creation failed: max deliver is required to be > length of backoff values (10116)", "more than the delays (10 here)", "--backoff-steps")
	l.must("consumer add EVENTS slow --pull --backoff linear --backoff-steps 2 --max-deliver 3 --defaults")
	l.must("stream add FEW --subjects few --max-consumers 1 --defaults")
	l.must("consumer add FEW one --pull --defaults")
	l.fails("consumer add FEW two --pull --defaults", "nats: error: Consumer creation failed: maximum consumers limit reached (10026)", "as many consumers as its --max-consumers allows (it has one with no filter)", "consumer rm FEW NAME")
}

func TestConsumerJetStreamOff(t *testing.T) {
	l := newLab(t, brokertest.WithoutJetStream())
	for _, line := range []string{
		"consumer add EVENTS worker --pull --defaults",
		"consumer info EVENTS worker",
		"consumer next EVENTS worker",
		"consumer ls EVENTS",
		"consumer report EVENTS",
		"consumer rm EVENTS worker -f",
		"consumer ls",
	} {
		msg := l.fails(line, "JetStream is off", "nats-server -js")
		// The note says why, and leaves the library's words to the line.
		if _, note, _ := strings.Cut(msg, "\n"); strings.Contains(note, "no responders") {
			t.Errorf("%s: the note repeats the real CLI's line: %q", line, note)
		}
	}
	// The real CLI's line as it prints it; why, in the note.
	r := l.must("account info")
	if !strings.HasSuffix(r.out, " JetStream is not supported in this account\n") || !strings.Contains(r.note, "nats-server -js") {
		t.Errorf("account info without JetStream:\n%q\nnote: %q", r.out, r.note)
	}
	if testing.Short() {
		return
	}
	real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "account", "info")
	if d := brokertest.DiffLines(conComparable(real.Stdout), conComparable(r.out)); d != "" {
		t.Errorf("account info without JetStream differs from the real CLI's (-real +lab):\n%s", d)
	}
}

// Episode 11: ack twice, the ack floor shows 2, a restart keeps it, and
// the next message is stream sequence 3 with nothing pending.
func TestConsumerAckFloorSurvivesRestart(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "one", "two", "three")
	l.must("consumer add EVENTS worker --pull --ack explicit --defaults")
	r := l.must("consumer next EVENTS worker --ack")
	if !strings.Contains(r.out, "str seq: 1 / pending: 2") || !strings.Contains(r.out, "\none\n") || !strings.Contains(r.out, "\nAcknowledged message\n") {
		t.Errorf("next:\n%s", r.out)
	}
	l.must("consumer next EVENTS worker --ack")
	info := l.must("consumer info EVENTS worker").out
	if !strings.Contains(info, "Acknowledgment Floor: Consumer sequence: 2 Stream sequence: 2 Last Ack:") ||
		!strings.Contains(info, "Outstanding Acks: 0 out of maximum") || !strings.Contains(info, "Unprocessed Messages: 1") {
		t.Errorf("info after two acks:\n%s", info)
	}
	if err := l.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	// The lab's connection finds the new server by itself.
	eventually(t, "the lab to reconnect", func() bool { return l.run("consumer info EVENTS worker").e == nil })
	r = l.must("consumer next EVENTS worker")
	if !strings.Contains(r.out, "str seq: 3 / pending: 0") || !strings.Contains(r.out, "\nthree\n") {
		t.Errorf("after restart:\n%s", r.out)
	}
	if ci := conInfo(t, l, "EVENTS", "worker"); ci.AckFloor.Stream != 3 {
		t.Errorf("ack floor %d", ci.AckFloor.Stream)
	}
}

// A worker waiting on a pull keeps waiting through a server restart: the
// pull the old server held is made again.
func TestConsumerNextWaitsThroughARestart(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a")
	l.must("consumer add EVENTS worker --pull --defaults")
	j, out := l.background("consumer next EVENTS worker --count 1 --timeout 1m")
	<-j.Ready()
	eventually(t, "the pull to wait", func() bool { return conInfo(t, l, "EVENTS", "worker").NumWaiting == 1 })
	if err := l.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pull to be made again", func() bool { return conInfo(t, l, "EVENTS", "worker").NumWaiting == 1 })
	conPublish(t, l, "events.a", "after the restart")
	select {
	case <-j.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the worker never got the message")
	}
	if j.Err() != nil || !strings.Contains(out.String(), "\nafter the restart\n") {
		t.Errorf("%v\n%s", j.Err(), out.String())
	}
}

// Episode 12: an unacknowledged message comes back after the ack wait,
// with its delivery count; --max-deliver caps it; --nak and --term.
func TestConsumerRedelivery(t *testing.T) {
	l := newLab(t)
	conStream(t, l, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}}, "jobs.email", "send welcome email")
	l.must("consumer add JOBS WORKER --pull --deliver all --ack explicit --wait 1s --max-deliver 2 --defaults")
	r := l.must("consumer next JOBS WORKER --no-ack")
	if !strings.Contains(r.out, "tries: 1 / cons seq: 1 / str seq: 1") || strings.Contains(r.out, "Acknowledged") {
		t.Errorf("first:\n%s", r.out)
	}
	// The note says it comes back, and when.
	if want := "the message was not acknowledged (--no-ack): consumer WORKER waits 1s for an acknowledgement, then delivers again what has none"; !strings.Contains(r.note, want) {
		t.Errorf("first: the note %q lacks %q", r.note, want)
	}
	info := l.must("consumer info JOBS WORKER").out
	if !strings.Contains(info, "Outstanding Acks: 1 out of maximum") || !strings.Contains(info, "Ack Wait: 1.00s") || !strings.Contains(info, "Maximum Deliveries: 2") {
		t.Errorf("info:\n%s", info)
	}
	// The server says when it gives up on a message: the advisory.
	nc := brokertest.Connect(t, l.srv, "advisories")
	gaveUp, err := nc.SubscribeSync("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.JOBS.WORKER")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The pull waits for the redelivery the ack wait brings: nothing else
	// is there to read.
	r = l.must("consumer next JOBS WORKER --no-ack --timeout 10s")
	if !strings.Contains(r.out, "tries: 2 / cons seq: 2 / str seq: 1") {
		t.Errorf("redelivery:\n%s", r.out)
	}
	if want := "that was the last delivery consumer WORKER allows (--max-deliver 2): the server will not deliver it again"; !strings.Contains(r.note, want) {
		t.Errorf("redelivery: the note %q lacks %q", r.note, want)
	}
	// Delivered twice, the maximum: a pull waits, and once the ack wait
	// runs out the server gives up on the message instead of delivering
	// it again: it leaves the outstanding acks, and once the next one is
	// acknowledged the ack floor is past both. The next message is what
	// the pull gets.
	next, out := l.background("consumer next JOBS WORKER --ack --timeout 10s")
	waitReady(t, next)
	if _, err := gaveUp.NextMsg(10 * time.Second); err != nil {
		t.Fatalf("no max deliveries advisory: %v", err)
	}
	if ci := conInfo(t, l, "JOBS", "WORKER"); ci.NumAckPending != 0 {
		t.Errorf("after giving up on seq 1: ack pending %d, want 0", ci.NumAckPending)
	}
	conPublish(t, l, "jobs.email", "send receipt")
	waitDone(t, next)
	if !strings.Contains(out.String(), "tries: 1 / cons seq: 3 / str seq: 2") || next.Err() != nil {
		t.Errorf("after max deliveries: %v\n%s", next.Err(), out.String())
	}
	if ci := conInfo(t, l, "JOBS", "WORKER"); ci.NumAckPending != 0 || ci.NumPending != 0 || ci.AckFloor.Stream != 2 {
		t.Errorf("state: ack pending %d, pending %d, ack floor %d; want 0, 0, 2 (past the message given up on)", ci.NumAckPending, ci.NumPending, ci.AckFloor.Stream)
	}

	// --nak asks for it again now; --term ends it.
	conPublish(t, l, "jobs.resize", "resize image 42")
	r = l.must("consumer next JOBS WORKER --nak")
	if !strings.Contains(r.out, "str seq: 3") || !strings.Contains(r.out, "\nNegative Acknowledged message\n\n") {
		t.Errorf("nak:\n%s", r.out)
	}
	r = l.must("consumer next JOBS WORKER --term")
	if !strings.Contains(r.out, "tries: 2") || !strings.Contains(r.out, "str seq: 3") || !strings.HasSuffix(r.out, "\nTerminated message\n") {
		t.Errorf("term:\n%q", r.out)
	}
	msg := l.fails("consumer next JOBS WORKER --timeout 300ms", "nats: error: no message received: nats: timeout", "nothing came within 300ms", "delivered everything")
	if strings.Contains(msg, "Terminated") {
		t.Error(msg)
	}
	l.fails("consumer next JOBS WORKER --timeout=-1s", "nats: error: no message received: nats: timeout", "no time to wait", "--timeout 5s")
	l.fails("consumer next JOBS WORKER --timeout 0", "nats: error: no message received: nats: timeout", "no time to wait", "--timeout 5s")
	l.fails("consumer next JOBS WORKER --term --ack", "nats: error: can not both Acknowledge and Terminate message", "--term settles the message itself")
	// natscli pulls --count times: with 0, never, and says nothing.
	if r := l.must("consumer next JOBS WORKER --count 0"); r.out != "" || r.err != "" || !strings.Contains(r.note, "pulls no message") {
		t.Errorf("--count 0: %q %q, note %q", r.out, r.err, r.note)
	}
}

func TestConsumerNextRawHeadersAndDelay(t *testing.T) {
	l := newLab(t)
	conStream(t, l, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}}, "jobs.email", "plain")
	l.must("consumer add JOBS W --pull --defaults")
	r := l.must("consumer next JOBS W --raw")
	if r.out != "plain\n" {
		t.Errorf("raw: %q", r.out)
	}
	l.must(`pub jobs.email 'hdr job' -H Priority:high -H A:1`)
	r = l.must("consumer next JOBS W --wait 200ms")
	if !strings.Contains(r.out, "\nHeaders:\n\n  A: 1\n  Priority: high\n\nData:\n\n\nhdr job\n") ||
		!strings.Contains(r.out, "Acknowledged message after ") {
		t.Errorf("headers and delay:\n%s", r.out)
	}
	// natscli pauses only for a --wait above zero: below, it acknowledges at once.
	l.must("pub jobs.email later")
	r = l.must("consumer next JOBS W --wait=-1s")
	if !strings.HasSuffix(r.out, "\nlater\n\nAcknowledged message\n\n") || !strings.Contains(r.note, "no pause before acknowledging") {
		t.Errorf("negative --wait:\n%s\nnote: %q", r.out, r.note)
	}
	// An ack-none consumer: natscli acknowledges all the same and says so;
	// the note says the server ignores it.
	l.must("consumer add JOBS NOACK --pull --ack none --defaults")
	r = l.must("consumer next JOBS NOACK")
	if !strings.HasSuffix(r.out, "\nplain\n\nAcknowledged message\n\n") || !strings.Contains(r.note, "takes no acknowledgements (ack policy none)") {
		t.Errorf("ack none:\n%s\nnote: %q", r.out, r.note)
	}
	// ... and the server ignores a nak from it: the next pull gets the
	// next message, not this one again.
	r = l.must("consumer next JOBS NOACK --nak")
	if !strings.Contains(r.out, "str seq: 2") || !strings.Contains(r.note, "ignores the -NAK") {
		t.Errorf("ack none, nak:\n%s\nnote: %q", r.out, r.note)
	}
	if r = l.must("consumer next JOBS NOACK"); !strings.Contains(r.out, "tries: 1 / cons seq: 3 / str seq: 3") {
		t.Errorf("ack none after a nak:\n%s", r.out)
	}
	// A push consumer cannot be pulled: the server answers with a status,
	// which natscli prints as a message and cannot acknowledge.
	l.must("consumer add JOBS PUSH --target push.jobs --defaults")
	l.fails("consumer next JOBS PUSH", "nats: error: could not Acknowledge message: nats: message does not have a reply", "push consumer", "push.jobs", "--pull")
	if out := l.must("consumer info JOBS PUSH").out; !strings.Contains(out, "Delivery Subject: push.jobs") || !strings.Contains(out, "Active Interest: No interest") {
		t.Errorf("push info:\n%s", out)
	}
}

// consumer next --count is a job: ready once its pull waits, reporting
// each delivery, and stoppable.
func TestConsumerNextCountIsAJob(t *testing.T) {
	var mu sync.Mutex
	var events []command.Event
	srv := brokertest.Start(t)
	l := &lab{t: t, srv: srv, changed: make(chan struct{}, 1)}
	l.s = command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithObserver(func(e command.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
		l.poke()
	}))
	t.Cleanup(l.s.Close)
	conStream(t, l, conEvents(), "events.a")
	l.must("consumer add EVENTS worker --pull --defaults")

	j, out := l.background("consumer next EVENTS worker --count 3 --timeout 1m")
	select {
	case <-j.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("never ready")
	}
	eventually(t, "the pull to wait", func() bool { return conInfo(t, l, "EVENTS", "worker").NumWaiting == 1 })
	conPublish(t, l, "events.a", "one", "two")
	l.await("two deliveries", func() bool { return j.Received() == 2 })
	if !strings.Contains(out.String(), "\none\n") || !strings.Contains(out.String(), "\ntwo\n") {
		t.Errorf("output:\n%s", out.String())
	}
	j.Stop()
	<-j.Done()
	if j.Err() != nil {
		t.Errorf("a stopped job is not a failure: %v", j.Err())
	}
	// Once the job is done, its pull is gone from the server (which
	// prunes pulls whose inbox lost interest when asked for its info).
	if n := conInfo(t, l, "EVENTS", "worker").NumWaiting; n != 0 {
		t.Errorf("the stopped job's pull still waits at the server: %d waiting pulls", n)
	}
	mu.Lock()
	var got []string
	for _, e := range events {
		if e.Kind == command.Received {
			got = append(got, fmt.Sprintf("%s %s %d", e.Subject, e.Stream, e.Seq))
		}
	}
	mu.Unlock()
	if strings.Join(got, ",") != "events.a EVENTS 1,events.a EVENTS 2" {
		t.Errorf("received events: %v", got)
	}
	// The stopped pull is withdrawn: the next message waits for a new
	// reader, who gets it as its first delivery.
	conPublish(t, l, "events.a", "three")
	nc := brokertest.Connect(t, l.srv, "reader")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, "EVENTS", "worker")
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatalf("the message after the stop never came to a new reader: %v", err)
	}
	if md, _ := m.Metadata(); string(m.Data()) != "three" || md.NumDelivered != 1 {
		t.Errorf("after stop a new reader got %q delivered %d times, want three delivered once", m.Data(), md.NumDelivered)
	}
}

// Episode 14: workers share one consumer; one dies holding a message it
// has not acknowledged, and a survivor gets it after the ack wait.
func TestConsumerWorkerPool(t *testing.T) {
	l := newLab(t)
	conStream(t, l, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}, Retention: jetstream.WorkQueuePolicy}, "jobs.x")
	l.must("consumer add JOBS WORKERS --pull --wait 1s --defaults")
	// The doomed worker pauses before acking; it is stopped meanwhile.
	doomed, _ := l.background("consumer next JOBS WORKERS --count 5 --wait 1h --timeout 1m")
	<-doomed.Ready()
	eventually(t, "the doomed pull", func() bool { return conInfo(t, l, "JOBS", "WORKERS").NumWaiting == 1 })
	conPublish(t, l, "jobs.x", "job 1")
	l.await("the doomed worker's message", func() bool { return doomed.Received() == 1 })
	doomed.Stop()
	<-doomed.Done()

	var survivors []*command.Job
	var outs []*syncBuf
	for range 2 {
		j, o := l.background("consumer next JOBS WORKERS --count 5 --timeout 1m")
		<-j.Ready()
		survivors, outs = append(survivors, j), append(outs, o)
	}
	l.await("a survivor to get and ack the redelivery", func() bool {
		return strings.Contains(outs[0].String()+outs[1].String(), "Acknowledged message")
	})
	all := outs[0].String() + outs[1].String()
	if !strings.Contains(all, "tries: 2") || !strings.Contains(all, "\njob 1\n") || !strings.Contains(all, "Acknowledged message") {
		t.Errorf("survivors:\n%s", all)
	}
	conPublish(t, l, "jobs.x", "job 2", "job 3")
	l.await("the rest", func() bool {
		return strings.Count(outs[0].String()+outs[1].String(), "Acknowledged message") == 3
	})
	for _, j := range survivors {
		j.Stop()
		<-j.Done()
	}
	// Each message went to exactly one worker and, acknowledged, left the work queue.
	all = outs[0].String() + outs[1].String()
	for _, b := range []string{"job 1", "job 2", "job 3"} {
		if strings.Count(all, "\n"+b+"\n") != 1 {
			t.Errorf("%s delivered %d times to survivors", b, strings.Count(all, "\n"+b+"\n"))
		}
	}
	eventually(t, "the work queue to empty", func() bool {
		out := l.must("consumer info JOBS WORKERS").out
		return strings.Contains(out, "Outstanding Acks: 0 ") && strings.Contains(out, "Unprocessed Messages: 0")
	})
}

func TestConsumerLsReportRm(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "1", "2", "3", "4")
	l.must("consumer ls EVENTS") // none yet
	if out := l.must("consumer ls EVENTS").out; out != "No Consumers defined\n" {
		t.Errorf("empty ls: %q", out)
	}
	l.must("consumer add EVENTS b --pull --description 'second one' --defaults")
	l.must("consumer add EVENTS a --pull --defaults")
	l.must("consumer next EVENTS a --no-ack")
	out := l.must("consumer ls EVENTS").out
	for _, want := range []string{"│ Name │ Description", "│ a    │", "│ b    │ second one", "never"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "│ a ") > strings.Index(out, "│ b ") || !strings.HasSuffix(out, "╯\n\n\n") {
		t.Errorf("ls order or ending:\n%q", out)
	}
	if out := l.must("consumer ls EVENTS --names").out; out != "a\nb\n" {
		t.Errorf("names: %q", out)
	}
	var names []string
	if err := json.Unmarshal([]byte(l.must("consumer ls EVENTS --json").out), &names); err != nil || len(names) != 2 {
		t.Errorf("json: %v %v", names, err)
	}
	out = l.must("consumer report EVENTS").out
	for _, want := range []string{"Consumer report for EVENTS with 2 consumers", "│ a        │ Pull │ Explicit   │ 30.00s   │ 1           │ 0           │ 3 / 75%", "│ b        │ Pull │ Explicit   │ 30.00s   │ 0           │ 0           │ 4 / 100%"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(l.must("consumer info EVENTS a --json").out), &info); err != nil || info["name"] != "a" {
		t.Errorf("info json: %v %v", info["name"], err)
	}

	l.fails("consumer rm EVENTS a", "--force")
	conInfo(t, l, "EVENTS", "a") // still there
	l.fails("consumer rm EVENTS nope -f", "nats: error: consumer not found (10014)", "consumer nope not found on stream EVENTS", "a, b")
	l.fails("consumer rm EVENTS -f", "nats: error: --force requires a stream and consumer name", "needs <consumer>", "a, b")
	l.fails("consumer rm EVENTS", "nats: error: could not select Consumer: cannot pick a Consumer without a terminal", "name the consumer on the line: a, b")
	l.fails("consumer rm", "nats: error: could not select Stream: cannot pick a Stream without a terminal", "EVENTS")
	if r := l.must("consumer rm EVENTS a --force"); r.out != "" || r.err != "" {
		t.Errorf("rm prints nothing, like the real CLI: %q %q", r.out, r.err)
	}
	l.fails("consumer info EVENTS a", "nats: error: could not select Consumer: cannot pick a Consumer without a terminal and no Consumer name supplied", "there is no consumer a on stream EVENTS", "(consumers: b)")
	l.must("consumer delete EVENTS b -f")
	if out := l.must("consumer ls EVENTS").out; out != "No Consumers defined\n" {
		t.Errorf("after rm: %q", out)
	}
}

func TestConsumerRmAsksThroughTheConfirmHook(t *testing.T) {
	srv := brokertest.Start(t)
	var asked []string
	answer := false
	s := command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithConfirm(func(q string) bool {
		asked = append(asked, q)
		return answer
	}))
	t.Cleanup(s.Close)
	l := &lab{t: t, srv: srv, s: s}
	conStream(t, l, conEvents(), "events.a", "1")
	l.must("consumer add EVENTS a --pull --defaults")
	l.must("consumer rm EVENTS a")
	conInfo(t, l, "EVENTS", "a") // declined: still there
	answer = true
	l.must("consumer rm EVENTS a")
	if len(asked) != 2 || asked[0] != "Really delete Consumer EVENTS > a" {
		t.Errorf("asked: %q", asked)
	}
	l.fails("consumer info EVENTS a", "could not select Consumer", "stream EVENTS has no consumers yet")
}

func TestConsumerEdit(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "1")
	l.must("consumer add EVENTS w --pull --defaults")
	// The real CLI's go-cmp diff (its spacing mixes in no-break spaces),
	// and a dry run exits with status 1.
	r := l.run("consumer edit EVENTS w --max-deliver 5 --wait 4s --dry-run")
	out := strings.ReplaceAll(r.out, "\u00a0", " ")
	if r.e == nil || !strings.HasPrefix(out, "Differences (-old +new):\n  api.ConsumerConfig{\n") || !regexp.MustCompile(`(?m)^-[ \t]+AckWait:[ \t]+s"30s",\n\+[ \t]+AckWait:[ \t]+s"4s",$`).MatchString(out) || !regexp.MustCompile(`(?m)^\+[ \t]+MaxDeliver:[ \t]+5,$`).MatchString(out) || strings.Contains(out, "Metadata") {
		t.Errorf("dry run (%v):\n%s", r.e, out)
	}
	if conInfo(t, l, "EVENTS", "w").Config.MaxDeliver == 5 {
		t.Error("a dry run changed the consumer")
	}
	l.fails("consumer edit EVENTS w --max-deliver 5", "--force")
	r = l.must("consumer edit EVENTS w --max-deliver 5 --wait 4s --description new -f")
	ci := conInfo(t, l, "EVENTS", "w")
	if ci.Config.MaxDeliver != 5 || ci.Config.AckWait != 4*time.Second || ci.Config.Description != "new" {
		t.Errorf("edit: %+v", ci.Config)
	}
	if !strings.Contains(r.out, "Information for Consumer EVENTS > w") || !strings.Contains(r.out, "Maximum Deliveries: 5") {
		t.Errorf("edit output:\n%s", r.out)
	}
	if out := l.must("consumer edit EVENTS w --max-deliver 5 -f").out; out != "No difference in configuration\n" {
		t.Errorf("no change: %q", out)
	}
	l.fails("consumer edit EVENTS nope --max-deliver 2 -f", `nats: error: could not select Consumer: unknown consumer "EVENTS" > "nope"`, "there is no consumer nope on stream EVENTS")
	l.fails("consumer edit EVENTS nope --max-deliver 2", "nats: error: could not select Consumer: cannot pick a Consumer without a terminal and no Consumer name supplied", "(consumers: w)")
	l.fails("consumer edit NOPE w --max-deliver 2", "nats: error: could not select Stream: cannot pick a Stream without a terminal and no Stream name supplied", "there is no stream NOPE")
	l.fails("consumer edit EVENTS w --deliver new", "error: unknown long flag '--deliver'")
}

func TestAccountInfo(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a", "1", "2")
	l.must("consumer add EVENTS w --pull --defaults")
	r := l.must("account info")
	for _, want := range []string{
		"Account Information\n\n",
		"Account: $G ($G)",
		"Connected Server Version: " + l.srv.Version(),
		// The session's connection is a client's, over TCP, as the real
		// CLI's is.
		"Connected URL: " + l.srv.ClientURL(),
		"JetStream Account Information:",
		"Streams: 1\n",
		"Consumers: 1\n",
		"  Tier: Default:",
		"Streams: 1 of Unlimited",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("account info lacks %q:\n%s", want, r.out)
		}
	}
	if !strings.Contains(l.must("a nfo").out, "Account Information") {
		t.Error("aliases")
	}
	// Without one (--listen none), the lab's own connection is all there
	// is, and the rows say it is in-process.
	l = newLab(t, brokertest.InProcessOnly())
	if r := l.must("account info"); !strings.Contains(r.out, "Connected URL: in-process\n") || !strings.Contains(r.out, "Client IP: in-process\n") {
		t.Errorf("account info in-process:\n%s", r.out)
	}
}

// An empty pull prints the real CLI's line; the lab's note says why from
// what the server holds: a filter that matches nothing, a consumer that
// moved past what its edited filter now matches (edits never rewind), a
// message given up on after --max-deliver tries.
func TestConsumerNextSaysWhyNothingCame(t *testing.T) {
	l := newLab(t)
	conStream(t, l, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}, "orders.shipped", "order 1 shipped")
	l.must("consumer add ORDERS shipping --pull --filter orders.shiped --defaults")
	msg := l.fails("consumer next ORDERS shipping --timeout 300ms", "nats: error: no message received: nats: timeout", "filters orders.shiped, which matches none of the subjects stream ORDERS holds (orders.shipped)")
	if strings.Contains(msg, "publish more") {
		t.Errorf("a filter typo is not a reason to publish more: %s", msg)
	}
	l.must("consumer edit ORDERS shipping --filter orders.shipped -f")
	l.fails("consumer next ORDERS shipping --timeout 300ms", "no message received: nats: timeout", "moved past them while its filter matched nothing, and changing a filter does not rewind a consumer")
	l.must("consumer rm ORDERS shipping -f")
	l.must("consumer add ORDERS shipping --pull --filter orders.shipped --defaults")
	l.must("consumer next ORDERS shipping")

	conStream(t, l, jetstream.StreamConfig{Name: "JOBS", Subjects: []string{"jobs.>"}}, "jobs.email", "send")
	l.must("consumer add JOBS worker --pull --wait 300ms --max-deliver 1 --defaults")
	l.must("consumer next JOBS worker --no-ack")
	l.fails("consumer next JOBS worker --timeout 1s", "no message received: nats: timeout", "gave up on a message after 1 delivery (--max-deliver)", "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.JOBS.worker", "other consumers can read it")
}

// The server may answer a pull with a status instead of a message (here
// 409 Exceeded MaxWaiting: the consumer takes one waiting pull, and a job
// holds it). natscli prints that answer as a message and then cannot
// acknowledge it: so does the lab, its words a note.
func TestConsumerNextPrintsTheServersRefusalAsNatscli(t *testing.T) {
	l := newLab(t)
	conStream(t, l, conEvents(), "events.a")
	l.must("consumer add EVENTS one --pull --defaults --max-waiting 1")
	j, _ := l.background("consumer next EVENTS one --timeout 1m")
	waitReady(t, j)
	eventually(t, "the job's pull to wait", func() bool { return conInfo(t, l, "EVENTS", "one").NumWaiting == 1 })
	r := l.run("consumer next EVENTS one")
	// natscli prints the headers in Go's map order, which varies; the
	// lab sorts them.
	want := "\nHeaders:\n\n  Description: Exceeded MaxWaiting\n  Status: 409\n\nData:\n\n\n\n"
	if !strings.HasPrefix(r.out, "--- subject: _INBOX.") || !strings.HasSuffix(r.out, want) {
		t.Errorf("want the answer printed as natscli prints it, ending %q:\n%s", want, r.out)
	}
	if r.e == nil || command.ErrorLine(r.e) != "nats: error: could not Acknowledge message: nats: message does not have a reply" {
		t.Errorf("want natscli's failure to acknowledge, got %v", r.e)
	}
	if !strings.Contains(command.ErrorNote(r.e), "status 409 (Exceeded MaxWaiting)") {
		t.Errorf("note: %q", command.ErrorNote(r.e))
	}
}

// A key-value bucket's stream is one the real CLI never offers to pick:
// with only such streams, the note must not say there are none at all.
func TestConsumerAddOnlyBucketStreamsSaysSo(t *testing.T) {
	l := newLab(t)
	l.must("kv add CFG")
	msg := l.fails("consumer add NOPE c --pull --defaults", "cannot pick a Stream", "there is no stream NOPE, only those that keep key-value buckets and object stores (KV_CFG): create it with stream add NOPE")
	if strings.Contains(msg, "nor any other") {
		t.Errorf("the note says there are no streams: %q", msg)
	}
	l.fails("consumer add", "cannot pick a Stream", "there are no streams to pick, only those that keep key-value buckets and object stores (KV_CFG): create one with stream add ORDERS")
}
