package contrast

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/scenes"
)

// consumerPending asks the broker itself, on a connection of the test's
// own, what the app's consumer has pending.
func (h *harness) consumerPending() (pending, ackPending uint64) {
	h.T.Helper()
	nc := brokertest.Connect(h.T, h.srv, "test probe")
	js, err := jetstream.New(nc)
	if err != nil {
		h.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, StreamName, ConsumerName)
	if err != nil {
		h.T.Fatalf("consumer info: %v", err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		h.T.Fatal(err)
	}
	return info.NumPending, uint64(info.NumAckPending)
}

// realPub publishes n messages with the real nats CLI, from outside the lab.
func (h *harness) realPub(subject string, n int) {
	h.T.Helper()
	res := brokertest.RunRealCLI(h.T, h.srv.ClientURL(), "pub", subject, "hello {{Count}}", "--count", itoa(n))
	if res.ExitCode != 0 {
		h.T.Fatalf("nats pub: %s%s", res.Stdout, res.Stderr)
	}
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// The "done when", as a new user would do it: JetStream offline,
// five messages from a real nats CLI, pending 5 from the broker; online,
// pending 0 and received 5. Then Core offline, three messages: lost 3 and
// received stays 5.
func TestTheStoryWithARealCLI(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("mode", "jetstream")
	h.Until("JetStream ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Online })
	h.Do("offline")
	h.realPub("events.signup", 5)
	h.Until("pending 5", func(s Snapshot) bool { return s.JS.Pending == 5 })
	if p, _ := h.consumerPending(); p != 5 {
		t.Fatalf("the broker says pending %d, the scene 5", p)
	}
	if got := h.Scene.snap.JS.Received; got != 0 {
		t.Fatalf("received %d while offline", got)
	}
	if v := h.View(120, 12); !strings.Contains(v, "pending 5") || !strings.Contains(v, "offline") {
		t.Fatalf("the screen does not show pending 5 offline:\n%s", v)
	}
	h.Do("online")
	h.Settle("drained", func(s Snapshot) bool { return s.JS.Pending == 0 && s.JS.Received == 5 })
	if p, ack := h.consumerPending(); p != 0 {
		t.Fatalf("the broker says pending %d (ack pending %d) after the replay", p, ack)
	}
	if v := h.View(120, 12); !strings.Contains(v, "pending 0") || !strings.Contains(v, "received 5") {
		t.Fatalf("the screen does not show the drained consumer:\n%s", v)
	}

	h.Do("mode", "core")
	h.Until("core shown", func(s Snapshot) bool { return s.Mode == Core })
	// The core app stayed online while JetStream was shown: it got the
	// same five, live.
	h.Until("core received 5", func(s Snapshot) bool { return s.Core.Received == 5 })
	h.Do("offline")
	h.realPub("events.signup", 3)
	h.Until("lost 3", func(s Snapshot) bool { return s.Core.Lost == 3 })
	h.Do("online")
	// What is published now arrives, and nothing from before does.
	h.Do("publish")
	h.coreAppHasAll()
	h.Settle("received 6", func(s Snapshot) bool { return s.Core.Received == 6 })
	if s := h.Scene.snap; s.Core.Received != 6 || s.Core.Lost != 3 {
		t.Fatalf("after coming back and one publish: received %d lost %d, want 6 and 3", s.Core.Received, s.Core.Lost)
	}
	if v := h.View(120, 12); !strings.Contains(v, "lost 3") || !strings.Contains(v, "received 6") {
		t.Fatalf("the screen does not show lost 3, received 6:\n%s", v)
	}
}

// coreAppHasAll returns once the core app has taken everything the server
// had sent it: a round trip to the server on the app's connection puts it
// all in the client, and a barrier behind the subscription's callback waits
// until the callback has counted it.
func (h *harness) coreAppHasAll() {
	h.T.Helper()
	nc := h.Scene.d.coreNC
	if err := nc.Flush(); err != nil {
		h.T.Fatal(err)
	}
	done := make(chan struct{})
	if err := nc.Barrier(func() { close(done) }); err != nil {
		h.T.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		h.T.Fatal("the core app did not get through what the server sent it")
	}
}

func TestCoreOfflineLosesWhatIsPublished(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("publish", "2")
	h.Until("received 2", func(s Snapshot) bool { return s.Core.Received == 2 })
	h.Do("offline")
	h.Do("publish", "3")
	h.Until("lost 3", func(s Snapshot) bool { return s.Core.Lost == 3 && s.Published == 5 })
	h.Do("online")
	h.Do("publish")
	h.coreAppHasAll()
	if s := h.Scene.d.Snapshot(); s.Core.Received != 3 {
		t.Fatalf("received %d after coming back and one publish, want 3: nothing is replayed in Core", s.Core.Received)
	}
	// Core mode alone creates no stream.
	if st := h.srv.Stats(); st.Streams != 0 {
		t.Fatalf("core mode created %d streams", st.Streams)
	}
}

func TestJetStreamOfflinePendingComesFromTheBroker(t *testing.T) {
	h := newHarness(t, Options{Mode: JetStream})
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready })
	h.Do("offline")
	for i := 1; i <= 3; i++ {
		h.Do("publish")
		h.Until("pending climbs", func(s Snapshot) bool { return s.JS.Pending == uint64(i) })
		if p, _ := h.consumerPending(); p != uint64(i) {
			t.Fatalf("step %d: the broker says %d", i, p)
		}
	}
	h.Do("online")
	h.Until("drained", func(s Snapshot) bool { return s.JS.Pending == 0 && s.JS.Received == 3 })
	if s := h.Scene.snap; s.JS.Delivered != s.JS.LastSeq {
		t.Fatalf("delivered up to %d, stream at %d", s.JS.Delivered, s.JS.LastSeq)
	}
}

// The scene makes EVENTS exactly as `nats stream add EVENTS --subjects
// 'events.>' --defaults` would, so the learner's own command still works.
func TestEventsIsWhatTheCLIWouldMake(t *testing.T) {
	h := newHarness(t, Options{Mode: JetStream})
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Stream == StreamName })
	res := brokertest.RunRealCLI(t, h.srv.ClientURL(), "stream", "add", "EVENTS", "--subjects", "events.>", "--defaults")
	if res.ExitCode != 0 {
		t.Fatalf("the learner's stream add fails after the scene made EVENTS:\n%s%s", res.Stdout, res.Stderr)
	}
}

// A stream the learner made that captures events.> (and more) is used as
// it is, and the app reads only events.> from it.
func TestUsesTheStreamThatCapturesEvents(t *testing.T) {
	h := newHarness(t, Options{})
	nc := brokertest.Connect(t, h.srv, "learner")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ALL", Subjects: []string{"events.>", "orders.>"}}); err != nil {
		t.Fatal(err)
	}
	h.Do("mode", "jetstream")
	h.Until("ready on ALL", func(s Snapshot) bool { return s.JS.Ready && s.JS.Stream == "ALL" })
	h.Do("offline")
	if _, err := js.Publish(ctx, "orders.new", []byte("not for the app")); err != nil {
		t.Fatal(err)
	}
	h.Do("publish", "2")
	h.Until("pending 2", func(s Snapshot) bool { return s.JS.Pending == 2 && s.JS.LastSeq == 3 })
	if st := h.srv.Stats(); st.Streams != 1 {
		t.Fatalf("%d streams: the scene must not make EVENTS when ALL captures events.>", st.Streams)
	}
}

func TestJetStreamOffSaysWhatToType(t *testing.T) {
	h := newHarness(t, Options{}, brokertest.WithoutJetStream())
	out := h.Do("mode", "jetstream")
	if !strings.Contains(out, "nats-server -js") {
		t.Fatalf("mode jetstream without JetStream says %q", out)
	}
	h.Until("problem shown", func(s Snapshot) bool { return s.Problem != "" })
	if v := h.View(100, 10); !strings.Contains(v, "nats-server -js") {
		t.Fatalf("the screen does not say how to turn JetStream on:\n%s", v)
	}
	// Turning JetStream on is enough: the scene creates EVENTS then.
	if err := h.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	h.Until("ready after nats-server -js", func(s Snapshot) bool { return s.JS.Ready && s.Problem == "" })
	h.Do("offline")
	h.Do("publish", "2")
	h.Until("pending 2", func(s Snapshot) bool { return s.JS.Pending == 2 })
}

// The durable consumer survives the server restarting: pending is still
// there, and the app drains it when back online.
func TestPendingSurvivesARestart(t *testing.T) {
	h := newHarness(t, Options{Mode: JetStream})
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready })
	h.Do("offline")
	h.Do("publish", "4")
	h.Until("pending 4", func(s Snapshot) bool { return s.JS.Pending == 4 })
	if err := h.srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	h.Until("server back", func(s Snapshot) bool { return s.ServerUp })
	h.Do("publish")
	h.Until("pending 5 after the restart", func(s Snapshot) bool { return s.JS.Pending == 5 })
	h.Do("online")
	h.Until("drained", func(s Snapshot) bool { return s.JS.Pending == 0 && s.JS.Received == 5 })
}

func TestResetStartsAgain(t *testing.T) {
	h := newHarness(t, Options{Mode: Split})
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready })
	h.Do("offline")
	h.Do("publish", "3")
	h.Until("pending 3, lost 3", func(s Snapshot) bool { return s.JS.Pending == 3 && s.Core.Lost == 3 })
	out := h.Do("reset")
	if !strings.Contains(out, "recreated") {
		t.Fatalf("reset says %q", out)
	}
	h.Until("zeroed and online", func(s Snapshot) bool {
		return s.Published == 0 && s.Core.Lost == 0 && s.JS.Pending == 0 && s.JS.Received == 0 && s.Core.Online && s.JS.Online
	})
	if p, _ := h.consumerPending(); p != 0 {
		t.Fatalf("the new consumer has %d pending: it should start at the end of the stream", p)
	}
}

func TestControlsSayWhatToType(t *testing.T) {
	h := newHarness(t, Options{})
	bad := map[string][]string{
		"mode":    {"fast"},
		"publish": {"lots"},
		"offline": {"now"},
		"dance":   nil,
	}
	for control, args := range bad {
		_, err := h.Scene.Do(control, args)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: want one line of error, got %v", control, args, err)
		}
	}
	if _, err := h.Scene.Do("mode", nil); err == nil || !strings.Contains(err.Error(), "mode jetstream") {
		t.Errorf("mode without an argument: %v", err)
	}
	if _, err := h.Scene.Do("publish", []string{"0"}); err == nil {
		t.Error("publish 0 should be refused")
	}
	if _, err := h.Scene.Do("publish", []string{"10000000"}); err == nil || !strings.Contains(err.Error(), "bench") {
		t.Errorf("a huge publish should point at nats bench: %v", err)
	}
	if out := h.Do("offline"); !strings.Contains(out, "unsubscribed") {
		t.Errorf("offline says %q", out)
	}
	if out := h.Do("toggle"); !strings.Contains(out, "online") {
		t.Errorf("toggle from offline says %q", out)
	}
	var sc scenes.Scene = h.Scene
	if _, ok := sc.(scenes.Keyed); !ok {
		t.Error("the scene offers no keys")
	}
	for _, k := range h.Scene.Keys() {
		found := false
		for _, c := range h.Scene.Controls() {
			found = found || c.Name == k.Control
		}
		if !found {
			t.Errorf("key %s runs %s, which is not a control", k.Help().Key, k.Control)
		}
	}
}

func TestRegistered(t *testing.T) {
	f, ok := scenes.Lookup("contrast")
	if !ok {
		t.Fatal("contrast is not registered")
	}
	srv := brokertest.Start(t)
	sc, err := f.New(scenes.Env{Deployment: srv})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if sc.Name() != "contrast" || sc.Init() == nil {
		t.Fatal("a registered scene must name itself and arm its feed")
	}
}

// Controls come from the command pane's goroutines while the scene draws:
// run them concurrently (with -race this checks the driver's locking).
// Every publish reaches the stream, and the core side never counts one
// twice (a message racing a switch may go uncounted: see core.go).
func TestControlsFromManyGoroutines(t *testing.T) {
	h := newHarness(t, Options{Mode: Split})
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready })
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if _, err := h.Scene.Do("publish", []string{"3"}); err != nil {
				t.Error(err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			if _, err := h.Scene.Do("toggle", nil); err != nil {
				t.Error(err)
			}
			_ = h.Scene.Snapshot()
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for i := 0; ; i++ {
		select {
		case <-done:
		default:
			if _, err := h.Scene.Do("mode", []string{[]string{"core", "jetstream", "split"}[i%3]}); err != nil {
				t.Error(err)
			}
			h.View(80, 20)
			h.Step(5 * time.Millisecond)
			continue
		}
		break
	}
	h.Do("mode", "split")
	h.Do("online")
	h.Do("publish")
	h.coreAppHasAll()
	h.Settle("all 61 stored", func(s Snapshot) bool { return s.JS.LastSeq == 61 })
	s := h.Scene.d.Snapshot()
	if s.Published > 61 || s.Core.Received == 0 {
		t.Fatalf("61 published: the core side counts %d (received %d, lost %d, dropped %d)", s.Published, s.Core.Received, s.Core.Lost, s.Core.Dropped)
	}
}

// In JetStream mode the scene publishes as a JetStream publisher does,
// waiting for the stream's acknowledgement: with the server that holds the
// stream stopped, the messages reach the other servers (the tap sees them)
// but no stream stores them, and the scene says so instead of showing
// nothing lost.
func TestJetStreamPublishShowsWhatTheStreamNeverStored(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	h := newHarness(t, Options{Mode: JetStream}, brokertest.Clustered())
	h.Until("ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Online })
	// Ready means a publish from any node reaches the stream the scene
	// made: before every node learned of it, one went unanswered.
	if !h.srv.Cluster().Reachable(StreamName) {
		t.Fatal("the scene was ready before a publish from every node reaches EVENTS")
	}
	if out := h.Do("publish", "2"); !strings.Contains(out, "the stream acknowledged all 2") {
		t.Fatalf("publish 2 with the stream up: %q", out)
	}
	cluster := h.srv.Cluster()
	holder := cluster.StreamLeader(StreamName)
	if holder == "" {
		t.Fatal("no node leads EVENTS")
	}
	if err := cluster.StopNode(holder); err != nil {
		t.Fatal(err)
	}
	out := h.Do("publish", "3")
	if !strings.Contains(out, "published 3 messages on events.click, 3 not stored") {
		t.Fatalf("publish 3 with %s, the stream's server, stopped: %q", holder, out)
	}
	h.Settle("3 not stored", func(s Snapshot) bool { return s.JS.NotStored == 3 })
	if v := h.View(120, 14); !strings.Contains(v, "not stored 3") {
		t.Fatalf("the screen does not show the 3 not stored:\n%s", v)
	}
	// Back up, the stream shows they were never stored: the next message
	// takes the sequence after the first two.
	if err := cluster.StartNode(holder); err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(brokertest.Connect(t, h.srv, "test publisher"))
	if err != nil {
		t.Fatal(err)
	}
	// While the stream's server starts again, a publish goes unanswered:
	// try again as a client does, with a message id so that a try the
	// stream did store is not stored twice.
	var ack *jetstream.PubAck
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ack, err = js.Publish(ctx, "events.marker", nil, jetstream.WithMsgID("marker"))
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("publish once %s is back: %v", holder, err)
		}
	}
	if ack.Sequence != 3 {
		t.Fatalf("the next message took sequence %d, want 3: the stream stored what the scene said it did not", ack.Sequence)
	}
	h.Do("reset")
	h.Settle("reset", func(s Snapshot) bool { return s.JS.NotStored == 0 })
}

// jsAPIRequests is how many JetStream API requests the server has
// handled, read in-process so that reading it is not one of them.
func (h *harness) jsAPIRequests() uint64 {
	h.T.Helper()
	info, err := h.srv.Monitor().Jsz(nil)
	if err != nil {
		h.T.Fatal(err)
	}
	return info.JetStreamStats.API.Total
}

// While the mode hides the JetStream side, nothing of it is drawn, so the
// scene does not ask the broker about the stream and consumer; a mode that
// shows it again looks at once.
func TestHiddenJetStreamSideIsNotPolled(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("mode", "jetstream")
	h.Until("JetStream ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("mode", "core")
	h.realPub("events.hidden", 3)
	h.Until("3 received", func(s Snapshot) bool { return s.Core.Received == 3 })
	before := h.jsAPIRequests()
	h.Scene.d.poll() // what a kick or the idle look would do
	if n := h.jsAPIRequests() - before; n != 0 {
		t.Fatalf("polling with the JetStream side hidden made %d JetStream API requests", n)
	}
	h.Do("mode", "jetstream")
	h.Until("the stream's 3 messages", func(s Snapshot) bool { return s.JS.LastSeq == 3 })
}

// A lane the mode hides draws nothing, so nothing of it moves: in Core
// mode after JetStream mode the JetStream app still fetches each message,
// but once the Core side's message has arrived and its counters have
// flashed, the scene asks for no more frames.
func TestHiddenLaneStartsNoAnimation(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("mode", "jetstream")
	h.Settle("JetStream ready", func(s Snapshot) bool { return s.JS.Ready && s.JS.Known })
	h.Do("mode", "core")
	h.Settle("core mode", func(s Snapshot) bool { return s.Mode == Core })
	h.Do("publish")
	h.Settle("both apps received it", func(s Snapshot) bool { return s.Core.Received == 1 && s.JS.Received == 1 })
	if !h.Scene.Animating() {
		t.Fatal("the Core side's message is not animating")
	}
	// The Core message's flight (publisher, server, app) is over, and so
	// is every flash; the JetStream app's delivery would still be on its
	// way from the stream.
	h.Clock.Advance(h.Scene.t.pubLeg + h.Scene.t.coreLeg + 100*time.Millisecond)
	if h.Scene.Animating() {
		t.Fatal("the scene still animates with nothing moving on screen: the hidden JetStream lane does")
	}
	if v := h.View(120, 12); !strings.Contains(v, "received 1") {
		t.Fatalf("the Core side does not show its message:\n%s", v)
	}
}

// A message lost while the core app is offline fades in a few steps: the
// scene asks for a frame when its shape next changes, not ten a second
// while it stays the same, and the picture does not change in between.
func TestFadingFramesComeWhenTheShapeChanges(t *testing.T) {
	h := newHarness(t, Options{})
	h.Do("offline")
	h.Do("publish")
	h.Settle("lost 1", func(s Snapshot) bool { return s.Core.Lost == 1 })
	tm := h.Scene.t
	// Past its flight and the counters' flash: only the fade is left.
	h.Clock.Advance(max(tm.pubLeg+tm.coreLeg/2, tm.flash) + 10*time.Millisecond)
	frames := 0
	for {
		d := h.Scene.Next(h.Clock.Now())
		if d == 0 {
			break
		}
		frames++
		before := h.View(120, 12)
		h.Clock.Advance(d - time.Millisecond)
		if v := h.View(120, 12); v != before {
			t.Fatalf("the picture changed before the frame due in %v:\n%s\n%s", d, before, v)
		}
		h.Clock.Advance(time.Millisecond)
		if v := h.View(120, 12); v == before {
			t.Fatalf("frame %d, due in %v, shows nothing new:\n%s", frames, d, v)
		}
		if frames > 10 {
			t.Fatalf("%d frames for a fade of a few shapes", frames)
		}
	}
	if frames == 0 {
		t.Fatal("no frame for the fade")
	}
}
