package episode

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// A subscriber started by a nats CLI in another terminal counts as the
// lab's own would: lesson republish's steps 2 and 3 tick on what the server
// delivered to it, though the lab never sees its messages.
func TestRepublishTicksForAnotherTerminalsSubscriber(t *testing.T) {
	srv := brokertest.Start(t)
	l := newLab(t, srv)
	changed := make(chan struct{}, 1)
	l.tutor.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	waitDone := func(t *testing.T, n int) {
		t.Helper()
		for {
			r := l.report()
			if r.Done >= n {
				return
			}
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatalf("the tutor saw no change for 10s, waiting for step %d: %+v", n, r)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.tutor.Watch(ctx)

	l.must("lesson republish")
	l.must(`stream edit SHOP --republish-source ">" --republish-destination "ui.>" -f`)
	waitDone(t, 1)
	sub := exec.Command(brokertest.RealCLI(t), "--server", srv.ClientURL(), "--no-context", "sub", "ui.>")
	if err := sub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Process.Kill(); _ = sub.Wait() }()
	if !broker.WaitFor(10*time.Second, func() bool { return srv.Monitor().Interest("ui.probe") > 0 }) {
		t.Fatal("the real subscriber on ui.> is not in place")
	}
	l.report() // the tutor's look before the publish, as its poll takes one a second
	l.must(`pub orders.new "order 3" --jetstream`)
	waitDone(t, 2)
	l.must(`pub orders.eu "order 4"`)
	waitDone(t, 3)
}
