package cursor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// Integration tests: the episodes' commands on a real server, and what the
// scene says about them checked against the broker's own answers.

// info asks the broker directly, for comparing with what the scene shows.
func (h *harness) info(stream, name string) *jetstream.ConsumerInfo {
	h.t.Helper()
	nc := brokertest.Connect(h.t, h.srv, "test")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, stream, name)
	if err != nil {
		h.t.Fatalf("consumer %s: %v", name, err)
	}
	return c.CachedInfo()
}

func TestCursorAndFloorSurviveRestart(t *testing.T) {
	h := newHarness(t, "stream add EVENTS --subjects 'events.>' --defaults",
		"pub events.a 1 --jetstream", "pub events.b 2 --jetstream", "pub events.a 3 --jetstream")
	h.run("consumer add EVENTS worker --pull --ack explicit --defaults")
	h.run("consumer next EVENTS worker --ack")
	h.run("consumer next EVENTS worker --ack")
	h.settle("floor 2", func(s Snapshot) bool { return consumer(s, "worker").AckFloor == 2 })
	ci := h.info("EVENTS", "worker")
	c := consumer(h.s.snap, "worker")
	if c.Delivered != ci.Delivered.Stream || c.AckFloor != ci.AckFloor.Stream || c.Pending != ci.NumPending {
		t.Fatalf("scene shows cursor %d floor %d pending %d, broker %d %d %d", c.Delivered, c.AckFloor, c.Pending, ci.Delivered.Stream, ci.AckFloor.Stream, ci.NumPending)
	}
	h.run("restart")
	h.settle("back", func(s Snapshot) bool { return s.ServerUp && storyHas(s, "kept its place") })
	if !storyHas(h.s.snap, "server is down") {
		t.Fatalf("the scene did not show the server going down: %+v", h.s.snap.Story)
	}
	c = consumer(h.s.snap, "worker")
	if c.Delivered != 2 || c.AckFloor != 2 {
		t.Fatalf("after the restart: cursor %d floor %d, want 2 and 2", c.Delivered, c.AckFloor)
	}
	h.run("consumer next EVENTS worker --ack")
	h.settle("floor 3", func(s Snapshot) bool {
		c := consumer(s, "worker")
		return c.AckFloor == 3 && c.Delivered == 3 && c.Pending == 0
	})
}

func TestCountdownAndRedelivery(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`)
	h.run("consumer add JOBS worker --pull --wait 3s --max-deliver 3 --defaults")
	h.run("consumer next JOBS worker --no-ack")
	h.settle("delivered", func(s Snapshot) bool { return len(consumer(s, "worker").Out) == 1 })
	o := consumer(h.s.snap, "worker").Out[0]
	if o.Seq != 1 || o.Tries != 1 || o.Pull != 1 {
		t.Fatalf("outstanding %+v, want #1 try 1 from pull 1", o)
	}
	// The countdown starts at the ack wait, within the time the scene took
	// to see the delivery.
	if left := o.Deadline.Sub(h.clock.Now()); left > 3*time.Second || left < 2*time.Second {
		t.Fatalf("countdown starts at %v, want about 3s", left)
	}
	if ci := h.info("JOBS", "worker"); ci.NumAckPending != 1 {
		t.Fatalf("broker has %d ack pending", ci.NumAckPending)
	}
	if v := h.view(100, 14); !strings.Contains(v, "try 1 of 3") || !strings.Contains(v, "left") {
		t.Fatalf("no countdown on screen:\n%s", v)
	}
	// A second worker waits for it; the server gives it the message when
	// the ack wait runs out.
	h.start("consumer next JOBS worker --no-ack")
	h.settle("try 2", func(s Snapshot) bool {
		o := consumer(s, "worker").Out
		return len(o) == 1 && o[0].Tries == 2
	})
	c := consumer(h.s.snap, "worker")
	if c.Out[0].Pull != 2 || c.Redelivered != 1 {
		t.Fatalf("redelivery went to pull %d, redelivered %d; want pull 2, 1", c.Out[0].Pull, c.Redelivered)
	}
	if !storyHas(h.s.snap, "pull 1 never acked it") {
		t.Fatalf("story: %+v", h.s.snap.Story)
	}
}

func TestMaxDeliveriesNakTerm(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`,
		"consumer add JOBS worker --pull --wait 500ms --max-deliver 2 --defaults")
	h.run("consumer next JOBS worker --no-ack --timeout 3s")
	h.run("consumer next JOBS worker --no-ack --timeout 3s")
	time.Sleep(700 * time.Millisecond)
	_, _ = h.try("consumer next JOBS worker --no-ack --timeout 1s")
	h.settle("given up", func(s Snapshot) bool { return consumer(s, "worker").Dead[1] == "max deliveries" })
	if !storyHas(h.s.snap, "max-deliveries advisory") {
		t.Fatalf("story: %+v", h.s.snap.Story)
	}
	h.run(`pub jobs.resize "resize image 42" --jetstream`)
	h.run("consumer next JOBS worker --nak")
	h.run("consumer next JOBS worker --term")
	h.settle("terminated", func(s Snapshot) bool {
		return consumer(s, "worker").Dead[2] == "terminated" && storyHas(s, "nak'd on try 1") && storyHas(s, "terminated on try 2")
	})
	if n := len(consumer(h.s.snap, "worker").Out); n != 0 {
		t.Fatalf("%d still awaiting ack", n)
	}
}

func TestTwoConsumersAndAFilterMatchingNothing(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.us.new "1" --jetstream`, `pub orders.eu.new "2" --jetstream`, `pub orders.us.new "3" --jetstream`, `pub orders.eu.new "4" --jetstream`)
	h.run(`consumer add ORDERS us --pull --filter "orders.us.>" --defaults`)
	h.run(`consumer next ORDERS us --count 2`)
	h.run(`consumer add ORDERS eu --pull --filter "orders.eu.>" --defaults`)
	h.run(`consumer next ORDERS eu --count 2`)
	h.run(`pub orders.eu.new "5" --jetstream`)
	h.run(`consumer add ORDERS ue --pull --filter "orders.ue.>" --defaults`)
	h.settle("three", func(s Snapshot) bool {
		return consumer(s, "eu").Pending == 1 && consumer(s, "ue").Name != "" && s.LastSeq == 5
	})
	us, eu, ue := consumer(h.s.snap, "us"), consumer(h.s.snap, "eu"), consumer(h.s.snap, "ue")
	if us.Delivered != 3 || us.AckFloor != 3 || us.Pending != 0 || eu.Delivered != 4 || eu.AckFloor != 4 {
		t.Fatalf("us %+v eu %+v", us, eu)
	}
	if !ue.NoMatch || us.NoMatch || eu.NoMatch {
		t.Fatalf("filter matching nothing: us %v eu %v ue %v", us.NoMatch, eu.NoMatch, ue.NoMatch)
	}
	if v := h.view(120, 20); !strings.Contains(v, "filter orders.ue.> matches nothing") {
		t.Fatalf("not pointed out:\n%s", v)
	}
}

func TestWorkerPoolFailover(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults",
		`pub jobs.resize "resize image {{Count}}" --count 7 --jetstream`,
		"consumer add JOBS pool --pull --ack explicit --wait 2s --defaults")
	// Three workers at once.
	jobs := []interface{ Done() <-chan struct{} }{}
	for i := 0; i < 3; i++ {
		jobs = append(jobs, h.start("consumer next JOBS pool --count 2"))
	}
	for _, j := range jobs {
		<-j.Done()
	}
	h.settle("six", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 6 })
	h.run("consumer next JOBS pool --no-ack")
	h.settle("seventh", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 1 })
	dead := consumer(h.s.snap, "pool").Out[0].Pull
	h.start("consumer next JOBS pool")
	h.settle("waiting", func(s Snapshot) bool { return consumer(s, "pool").Waiting == 1 })
	h.settle("finished", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 7 })
	var got []Pull
	for _, p := range h.s.snap.Pulls {
		for _, seq := range p.Got {
			if seq == 7 {
				got = append(got, p)
			}
		}
	}
	if len(got) != 2 || got[0].ID != dead || got[1].ID == dead || got[1].Tries[0] != 2 {
		t.Fatalf("#7 went to %+v; want the dead worker's pull %d, then another with try 2", got, dead)
	}
	// Each of the first six went to exactly one pull.
	seen := map[uint64]int{}
	for _, p := range h.s.snap.Pulls {
		for _, seq := range p.Got {
			seen[seq]++
		}
	}
	for seq := uint64(1); seq <= 6; seq++ {
		if seen[seq] != 1 {
			t.Fatalf("#%d went to %d pulls: %+v", seq, seen[seq], h.s.snap.Pulls)
		}
	}
}

func TestWatchControl(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults", "stream add JOBS --subjects 'jobs.>' --defaults",
		"consumer add JOBS pool --pull --defaults", "kv add profiles")
	h.settle("picked", func(s Snapshot) bool { return s.Stream == "JOBS" })
	for _, bad := range [][]string{{"NOPE"}, {"ORDERS", "nobody"}} {
		if _, err := h.s.Do("watch", bad); err == nil {
			t.Fatalf("watch %v: no error", bad)
		} else if !strings.Contains(err.Error(), "JOBS") && !strings.Contains(err.Error(), "consumer add") {
			t.Fatalf("watch %v: %v (should say what exists)", bad, err)
		}
	}
	if _, err := h.s.Do("wobble", nil); err == nil {
		t.Fatal("an unknown control was accepted")
	}
	if out, err := h.s.Do("watch", []string{"ORDERS"}); err != nil || !strings.Contains(out, "ORDERS") {
		t.Fatalf("watch ORDERS: %q %v", out, err)
	}
	h.settle("ORDERS", func(s Snapshot) bool { return s.Stream == "ORDERS" && !s.Auto })
	// A consumer added elsewhere does not move an explicit choice…
	h.run("consumer add JOBS other --pull --defaults")
	time.Sleep(300 * time.Millisecond)
	h.settle("still ORDERS", func(s Snapshot) bool { return s.Stream == "ORDERS" })
	// …and watch alone follows the stream in use again.
	if _, err := h.s.Do("watch", nil); err != nil {
		t.Fatal(err)
	}
	h.settle("auto", func(s Snapshot) bool { return s.Stream == "JOBS" && s.Auto })
	// A consumer added on another stream is followed.
	h.run("consumer add ORDERS us --pull --defaults")
	h.settle("follows", func(s Snapshot) bool { return s.Stream == "ORDERS" })
	// Only named consumers.
	h.run("consumer add ORDERS eu --pull --defaults")
	if _, err := h.s.Do("watch", []string{"ORDERS", "eu"}); err != nil {
		t.Fatal(err)
	}
	h.settle("eu only", func(s Snapshot) bool { return len(s.Consumers) == 1 && s.Consumers[0].Name == "eu" })
}

func TestJetStreamOffAndNoStream(t *testing.T) {
	h := newHarness(t)
	h.settle("no stream", func(s Snapshot) bool { return strings.Contains(s.Problem, "no stream yet") })
	if v := h.view(80, 10); !strings.Contains(v, "stream add") {
		t.Fatalf("no hint:\n%s", v)
	}
	h.run("stream add EVENTS --subjects 'events.>' --defaults")
	h.settle("found", func(s Snapshot) bool { return s.Stream == "EVENTS" })
	h.run("nats-server")
	h.settle("off", func(s Snapshot) bool { return strings.Contains(s.Problem, "JetStream is off") })
	h.run("nats-server -js")
	h.settle("on again", func(s Snapshot) bool { return s.Problem == "" && s.Stream == "EVENTS" })
}

// A scene opened after a delivery takes the countdown from the server's
// own time of that delivery.
func TestCountdownFromTheServerWhenOpenedLate(t *testing.T) {
	srv := brokertest.Start(t)
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	h.sess = newSession(srv)
	h.run("stream add JOBS --subjects 'jobs.>' --defaults")
	h.run("pub jobs.a 1 --jetstream")
	h.run("consumer add JOBS w --pull --wait 10s --defaults")
	h.run("consumer next JOBS w --no-ack")
	time.Sleep(1500 * time.Millisecond)
	s, err := New(scenes.Env{Deployment: srv, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h.s = s
	h.settle("seen", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 })
	o := consumer(h.s.snap, "w").Out[0]
	left := o.Deadline.Sub(h.clock.Now())
	if left > 9*time.Second || left < 7*time.Second || o.Unsure || o.Tries != 1 {
		t.Fatalf("opened 1.5s after the delivery: %v left (unsure %v, tries %d), want about 8.5s", left, o.Unsure, o.Tries)
	}
}

// The scene asks the broker at most five times a second while a message
// waits for its ack, and not at all when nothing happens.
func TestPollRate(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", "pub jobs.a 1 --jetstream",
		"consumer add JOBS w --pull --wait 30s --defaults")
	api := func() uint64 {
		nc := brokertest.Connect(t, h.srv, "api count")
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ai, err := js.AccountInfo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ai.API.Total
	}
	h.settle("quiet", func(s Snapshot) bool { return consumer(s, "w").Name != "" })
	time.Sleep(2 * time.Second)
	before := api()
	time.Sleep(2 * time.Second)
	if n := api() - before - 1; n > 0 {
		t.Fatalf("idle: %d API requests in 2s", n)
	}
	h.run("consumer next JOBS w --no-ack")
	time.Sleep(500 * time.Millisecond)
	before = api()
	time.Sleep(2 * time.Second)
	// Each look is a stream info and a consumer list.
	if n := api() - before - 1; n > 2*2*5+2 {
		t.Fatalf("pending: %d API requests in 2s, want at most %d", n, 2*2*5+2)
	}
}

// Through the client API alone (an external deployment) the scene shows
// the same things.
func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	ext, err := broker.Dial(broker.ExternalOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, clock: kit.NewManualClock(epoch)}
	h.sess = newSession(ext)
	h.run("stream add JOBS --subjects 'jobs.>' --defaults")
	h.run("pub jobs.a 1 --jetstream")
	h.run("consumer add JOBS w --pull --wait 5s --defaults")
	s, err := New(scenes.Env{Deployment: ext, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h.s = s
	h.run("consumer next JOBS w --no-ack")
	h.settle("out", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 && len(s.Pulls) == 1 })
	srv.Stop()
	h.settle("down", func(s Snapshot) bool { return !s.ServerUp })
	if err := srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	h.settle("back", func(s Snapshot) bool { return s.ServerUp && storyHas(s, "kept its place") })
}
