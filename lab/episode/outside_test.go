package episode

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// watchedLab is a lab whose tutor watches the broker on its own, as the
// lab's does, for a real CLI that runs beside it.
type watchedLab struct {
	*lab
	srv     *broker.Server
	changed chan struct{}
}

func newWatchedLab(t *testing.T) *watchedLab {
	srv := brokertest.Start(t)
	w := &watchedLab{lab: newLab(t, srv), srv: srv, changed: make(chan struct{}, 1)}
	w.tutor.OnChange(func() {
		select {
		case w.changed <- struct{}{}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go w.tutor.Watch(ctx)
	return w
}

// waitDone waits until n steps are done, each look after a change the
// tutor reports.
func (w *watchedLab) waitDone(n int) {
	w.t.Helper()
	for {
		r := w.report()
		if r.Done >= n {
			return
		}
		select {
		case <-w.changed:
		case <-time.After(10 * time.Second):
			w.t.Fatalf("the tutor saw no change for 10s, waiting for step %d: %+v", n, r.Steps)
		}
	}
}

// another starts the real CLI as another terminal would, against the lab's
// server, and stops it when the test ends.
func (w *watchedLab) another(args ...string) *exec.Cmd {
	w.t.Helper()
	cmd := exec.Command(brokertest.RealCLI(w.t), append([]string{"--server", w.srv.ClientURL(), "--no-context"}, args...)...)
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// listening waits until the server has a subscriber for subject.
func (w *watchedLab) listening(subject string) {
	w.t.Helper()
	if !broker.WaitFor(10*time.Second, func() bool { return w.srv.Monitor().Interest(subject) > 0 }) {
		w.t.Fatalf("no subscriber for %s is in place", subject)
	}
	w.report() // the tutor's look before anything is published, as its poll takes one a second
}

// A subscriber started by a nats CLI in another terminal counts as the
// lab's own would: lesson republish's steps 2 and 3 tick on what the server
// delivered to it, though the lab never sees its messages.
func TestRepublishTicksForAnotherTerminalsSubscriber(t *testing.T) {
	w := newWatchedLab(t)
	w.must("lesson republish")
	w.must(`stream edit SHOP --republish-source ">" --republish-destination "ui.>" -f`)
	w.waitDone(1)
	w.another("sub", "ui.>")
	w.listening("ui.probe")
	w.must(`pub orders.new "order 3" --jetstream`)
	w.waitDone(2)
	w.must(`pub orders.eu "order 4"`)
	w.waitDone(3)
}

// Lesson durable-ephemeral's step 2 ticks for a sub --durable in another
// terminal: the consumer's own state says it delivered the three orders.
func TestDurableEphemeralTicksForAnotherTerminalsSub(t *testing.T) {
	w := newWatchedLab(t)
	w.must("lesson durable-ephemeral")
	w.bg(`sub '$JS.EVENT.ADVISORY.CONSUMER.>'`)
	w.waitDone(1)
	sub := w.another("sub", "--stream", "ORDERS", "--durable", "billing", "-T")
	if err := sub.Wait(); err != nil {
		t.Fatalf("the real sub --durable: %v", err)
	}
	w.waitDone(2)
}

// Lesson leaf-node's step 4 ticks for a subscriber on hub.> in another
// terminal.
func TestLeafNodeTicksForAnotherTerminalsSubscriber(t *testing.T) {
	w := newWatchedLab(t)
	w.must("lesson leaf-node")
	w.must("leaf start")
	w.bg("leaf sub greet")
	// The leaf's subscription is in place on the leaf; the lab's server
	// hears of it a moment later, and a publish before then reaches no one.
	w.listening("greet")
	w.must(`pub greet "hello leaf"`)
	w.waitDone(3)
	w.another("sub", "hub.>")
	w.listening("hub.probe")
	w.must(`leaf pub hub.news "from the leaf"`)
	w.waitDone(4)
}

// subjectsWithOutsideSubscribers opens lesson subjects with its two
// subscribers started by the real CLI, as in other terminals: the first
// two steps done.
func subjectsWithOutsideSubscribers(t *testing.T) *watchedLab {
	w := newWatchedLab(t)
	w.must("lesson subjects")
	w.another("sub", "orders.*.created")
	w.another("sub", "orders.>")
	w.listening("orders.us.created")
	w.waitDone(2)
	return w
}

// Lesson subjects' step 3 wants to know which subjects each subscriber
// received. Of a subscriber in another terminal the server counts the
// messages only; when the lab's own publishes account for every one of
// them, their subjects are the ones it received, and the step ticks.
func TestSubjectsTicksForAnotherTerminalsSubscribers(t *testing.T) {
	w := subjectsWithOutsideSubscribers(t)
	for _, line := range []string{`pub orders.us.created "order 1"`, `pub orders.created "order 2"`, `pub orders.us.west.created "order 3"`} {
		w.must(line)
	}
	w.waitDone(3)
}

// When another client published too, the counts no longer tell which
// subjects a subscriber in another terminal received: the step stays
// undone, and its not-yet line says why and how out.
func TestSubjectsSaysWhenAnotherTerminalsSubjectsAreUnknown(t *testing.T) {
	w := subjectsWithOutsideSubscribers(t)
	for _, subject := range []string{"orders.us.created", "orders.created", "orders.us.west.created"} {
		brokertest.RunRealCLI(t, w.srv.ClientURL(), "pub", subject, "from elsewhere")
	}
	want := "a subscriber the lab did not start received 3 messages, but the lab cannot tell their subjects (it can when all of them came from a pub typed here after the subscriber started): subscribe here, in the lab's pane"
	if !broker.WaitFor(10*time.Second, func() bool { return strings.Contains(w.report().Steps[2].Why, want) }) {
		t.Fatalf("step 3's not-yet line: %q, want it to hold %q", w.report().Steps[2].Why, want)
	}
}

// Lesson push-pull's step 3 ticks for a subscriber in another terminal
// that listened while the two orders were stored: the looks at the server
// saw it in place before they were.
func TestPushPullTicksForAnotherTerminalsSubscriber(t *testing.T) {
	w := newWatchedLab(t)
	w.must("lesson push-pull")
	w.must("consumer add ORDERS pusher --target work.orders --ack explicit --defaults")
	w.waitDone(1)
	w.another("sub", "work.orders", "--ack")
	w.listening("work.orders")
	w.waitDone(2)
	w.must(`pub orders.new "order {{Count}}" --count 2 --jetstream`)
	w.waitDone(3)
}
