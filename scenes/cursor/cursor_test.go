package cursor

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// Integration tests: the episodes' commands on a real server, and what the
// scene says about them checked against the broker's own answers.

// info asks the broker directly, for comparing with what the scene shows.
func (h *harness) info(stream, name string) *jetstream.ConsumerInfo {
	h.T.Helper()
	nc := brokertest.Connect(h.T, h.Srv, "test")
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, stream, name)
	if err != nil {
		h.T.Fatalf("consumer %s: %v", name, err)
	}
	return c.CachedInfo()
}

func TestCursorAndFloorSurviveRestart(t *testing.T) {
	h := newHarness(t, "stream add EVENTS --subjects 'events.>' --defaults",
		"pub events.a 1 --jetstream", "pub events.b 2 --jetstream", "pub events.a 3 --jetstream")
	h.Run("consumer add EVENTS worker --pull --ack explicit --defaults")
	h.Run("consumer next EVENTS worker --ack")
	h.Run("consumer next EVENTS worker --ack")
	h.Settle("floor 2", func(s Snapshot) bool { return consumer(s, "worker").AckFloor == 2 })
	ci := h.info("EVENTS", "worker")
	c := consumer(h.Scene.snap, "worker")
	if c.Delivered != ci.Delivered.Stream || c.AckFloor != ci.AckFloor.Stream || c.Pending != ci.NumPending {
		t.Fatalf("scene shows cursor %d floor %d pending %d, broker %d %d %d", c.Delivered, c.AckFloor, c.Pending, ci.Delivered.Stream, ci.AckFloor.Stream, ci.NumPending)
	}
	h.Run("restart")
	h.Settle("back", func(s Snapshot) bool { return s.ServerUp && storyHas(s, "kept its place") })
	if !storyHas(h.Scene.snap, "server is down") {
		t.Fatalf("the scene did not show the server going down: %+v", h.Scene.snap.Story)
	}
	c = consumer(h.Scene.snap, "worker")
	if c.Delivered != 2 || c.AckFloor != 2 {
		t.Fatalf("after the restart: cursor %d floor %d, want 2 and 2", c.Delivered, c.AckFloor)
	}
	h.Run("consumer next EVENTS worker --ack")
	h.Settle("floor 3", func(s Snapshot) bool {
		c := consumer(s, "worker")
		return c.AckFloor == 3 && c.Delivered == 3 && c.Pending == 0
	})
}

func TestCountdownAndRedelivery(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`)
	h.Run("consumer add JOBS worker --pull --wait 3s --max-deliver 3 --defaults")
	h.Run("consumer next JOBS worker --no-ack")
	h.Settle("delivered", func(s Snapshot) bool { return len(consumer(s, "worker").Out) == 1 })
	o := consumer(h.Scene.snap, "worker").Out[0]
	if o.Seq != 1 || o.Tries != 1 || o.Pull != 1 {
		t.Fatalf("outstanding %+v, want #1 try 1 from pull 1", o)
	}
	// The countdown starts at the ack wait, within the time the scene took
	// to see the delivery.
	if left := o.Deadline.Sub(h.Clock.Now()); left > 3*time.Second || left < 2*time.Second {
		t.Fatalf("countdown starts at %v, want about 3s", left)
	}
	if ci := h.info("JOBS", "worker"); ci.NumAckPending != 1 {
		t.Fatalf("broker has %d ack pending", ci.NumAckPending)
	}
	if v := h.View(100, 14); !strings.Contains(v, "try 1 of 3") || !strings.Contains(v, "left") {
		t.Fatalf("no countdown on screen:\n%s", v)
	}
	// A second worker waits for it; the server gives it the message when
	// the ack wait runs out.
	h.Start("consumer next JOBS worker --no-ack")
	h.Settle("try 2", func(s Snapshot) bool {
		o := consumer(s, "worker").Out
		return len(o) == 1 && o[0].Tries == 2
	})
	c := consumer(h.Scene.snap, "worker")
	if c.Out[0].Pull != 2 || c.Redelivered != 1 {
		t.Fatalf("redelivery went to pull %d, redelivered %d; want pull 2, 1", c.Out[0].Pull, c.Redelivered)
	}
	if !storyHas(h.Scene.snap, "pull 1 never acked it") {
		t.Fatalf("story: %+v", h.Scene.snap.Story)
	}
}

func TestMaxDeliveriesNakTerm(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", `pub jobs.email "send welcome email" --jetstream`,
		"consumer add JOBS worker --pull --wait 500ms --max-deliver 2 --defaults")
	h.Run("consumer next JOBS worker --no-ack --timeout 3s")
	h.Run("consumer next JOBS worker --no-ack --timeout 3s")
	// The server gives up on the message when its last ack wait runs out
	// while a pull waits for it.
	_, _ = h.Try("consumer next JOBS worker --no-ack --timeout 3s")
	h.Settle("given up", func(s Snapshot) bool { return consumer(s, "worker").Dead[1] == "max deliveries" })
	if !storyHas(h.Scene.snap, "max-deliveries advisory") {
		t.Fatalf("story: %+v", h.Scene.snap.Story)
	}
	h.Run(`pub jobs.resize "resize image 42" --jetstream`)
	h.Run("consumer next JOBS worker --nak")
	h.Run("consumer next JOBS worker --term")
	h.Settle("terminated", func(s Snapshot) bool {
		return consumer(s, "worker").Dead[2] == "terminated" && storyHas(s, "nak'd on try 1") && storyHas(s, "terminated on try 2")
	})
	if n := len(consumer(h.Scene.snap, "worker").Out); n != 0 {
		t.Fatalf("%d still awaiting ack", n)
	}
}

func TestTwoConsumersAndAFilterMatchingNothing(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.us.new "1" --jetstream`, `pub orders.eu.new "2" --jetstream`, `pub orders.us.new "3" --jetstream`, `pub orders.eu.new "4" --jetstream`)
	h.Run(`consumer add ORDERS us --pull --filter "orders.us.>" --defaults`)
	h.Run(`consumer next ORDERS us --count 2`)
	h.Run(`consumer add ORDERS eu --pull --filter "orders.eu.>" --defaults`)
	h.Run(`consumer next ORDERS eu --count 2`)
	h.Run(`pub orders.eu.new "5" --jetstream`)
	h.Run(`consumer add ORDERS ue --pull --filter "orders.ue.>" --defaults`)
	h.Settle("three", func(s Snapshot) bool {
		return consumer(s, "eu").Pending == 1 && consumer(s, "ue").Name != "" && s.LastSeq == 5
	})
	us, eu, ue := consumer(h.Scene.snap, "us"), consumer(h.Scene.snap, "eu"), consumer(h.Scene.snap, "ue")
	if us.Delivered != 3 || us.AckFloor != 3 || us.Pending != 0 || eu.Delivered != 4 || eu.AckFloor != 4 {
		t.Fatalf("us %+v eu %+v", us, eu)
	}
	if !ue.NoMatch || us.NoMatch || eu.NoMatch {
		t.Fatalf("filter matching nothing: us %v eu %v ue %v", us.NoMatch, eu.NoMatch, ue.NoMatch)
	}
	if v := h.View(120, 20); !strings.Contains(v, "filter orders.ue.> matches nothing") {
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
		jobs = append(jobs, h.Start("consumer next JOBS pool --count 2"))
	}
	for _, j := range jobs {
		<-j.Done()
	}
	h.Settle("six", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 6 })
	h.Run("consumer next JOBS pool --no-ack")
	h.Settle("seventh", func(s Snapshot) bool { return len(consumer(s, "pool").Out) == 1 })
	dead := consumer(h.Scene.snap, "pool").Out[0].Pull
	h.Start("consumer next JOBS pool")
	h.Settle("waiting", func(s Snapshot) bool { return consumer(s, "pool").Waiting == 1 })
	h.Settle("finished", func(s Snapshot) bool { return consumer(s, "pool").AckFloor == 7 })
	var got []Pull
	for _, p := range h.Scene.snap.Pulls {
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
	for _, p := range h.Scene.snap.Pulls {
		for _, seq := range p.Got {
			seen[seq]++
		}
	}
	for seq := uint64(1); seq <= 6; seq++ {
		if seen[seq] != 1 {
			t.Fatalf("#%d went to %d pulls: %+v", seq, seen[seq], h.Scene.snap.Pulls)
		}
	}
}

func TestWatchControl(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults", "stream add JOBS --subjects 'jobs.>' --defaults",
		"consumer add JOBS pool --pull --defaults", "kv add profiles")
	h.Settle("picked", func(s Snapshot) bool { return s.Stream == "JOBS" })
	for _, bad := range [][]string{{"NOPE"}, {"ORDERS", "nobody"}} {
		if _, err := h.Scene.Do("watch", bad); err == nil {
			t.Fatalf("watch %v: no error", bad)
		} else if !strings.Contains(err.Error(), "JOBS") && !strings.Contains(err.Error(), "consumer add") {
			t.Fatalf("watch %v: %v (should say what exists)", bad, err)
		}
	}
	if _, err := h.Scene.Do("wobble", nil); err == nil {
		t.Fatal("an unknown control was accepted")
	}
	if out, err := h.Scene.Do("watch", []string{"ORDERS"}); err != nil || !strings.Contains(out, "ORDERS") {
		t.Fatalf("watch ORDERS: %q %v", out, err)
	}
	h.Settle("ORDERS", func(s Snapshot) bool { return s.Stream == "ORDERS" && !s.Auto })
	// A consumer added elsewhere does not move an explicit choice…
	created := h.advisories("$JS.EVENT.ADVISORY.CONSUMER.CREATED.JOBS.other")
	h.Run("consumer add JOBS other --pull --defaults")
	h.heard(created)
	h.sync()
	if s := h.Scene.snap; s.Stream != "ORDERS" {
		t.Fatalf("a consumer added on JOBS moved the scene off ORDERS: %+v", s)
	}
	// …and watch alone follows the stream in use again.
	if _, err := h.Scene.Do("watch", nil); err != nil {
		t.Fatal(err)
	}
	h.Settle("auto", func(s Snapshot) bool { return s.Stream == "JOBS" && s.Auto })
	// A consumer added on another stream is followed.
	h.Run("consumer add ORDERS us --pull --defaults")
	h.Settle("follows", func(s Snapshot) bool { return s.Stream == "ORDERS" })
	// Only named consumers.
	h.Run("consumer add ORDERS eu --pull --defaults")
	if _, err := h.Scene.Do("watch", []string{"ORDERS", "eu"}); err != nil {
		t.Fatal(err)
	}
	h.Settle("eu only", func(s Snapshot) bool { return len(s.Consumers) == 1 && s.Consumers[0].Name == "eu" })
}

func TestJetStreamOffAndNoStream(t *testing.T) {
	h := newHarness(t)
	h.Settle("no stream", func(s Snapshot) bool { return strings.Contains(s.Problem, "no stream yet") })
	if v := h.View(80, 10); !strings.Contains(v, "stream add") {
		t.Fatalf("no hint:\n%s", v)
	}
	h.Run("stream add EVENTS --subjects 'events.>' --defaults")
	h.Settle("found", func(s Snapshot) bool { return s.Stream == "EVENTS" })
	h.Run("nats-server")
	h.Settle("off", func(s Snapshot) bool { return strings.Contains(s.Problem, "JetStream is off") })
	h.Run("nats-server -js")
	h.Settle("on again", func(s Snapshot) bool { return s.Problem == "" && s.Stream == "EVENTS" })
}

// A scene opened after a delivery takes the countdown from the server's
// own time of that delivery: what is left is the ack wait less the age the
// server gives the delivery when the scene looks, which lies between the
// ages the server gives before the scene opens and after it has shown it.
func TestCountdownFromTheServerWhenOpenedLate(t *testing.T) {
	srv := brokertest.Start(t)
	h := newLearner(t, srv, srv)
	h.Run("stream add JOBS --subjects 'jobs.>' --defaults")
	h.Run("pub jobs.a 1 --jetstream")
	h.Run("consumer add JOBS w --pull --wait 10s --defaults")
	h.Run("consumer next JOBS w --no-ack")
	age := func() time.Duration {
		ci := h.info("JOBS", "w")
		return ci.TimeStamp.Sub(*ci.Delivered.Last)
	}
	before := age()
	h.Open()
	h.Settle("seen", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 })
	after := age()
	o := consumer(h.Scene.snap, "w").Out[0]
	left := o.Deadline.Sub(h.Clock.Now())
	if before <= 0 || left > 10*time.Second-before || left < 10*time.Second-after || o.Unsure || o.Tries != 1 {
		t.Fatalf("%v left (unsure %v, tries %d); the server gave the delivery an age of %v before the scene opened and %v after: want between %v and %v left",
			left, o.Unsure, o.Tries, before, after, 10*time.Second-after, 10*time.Second-before)
	}
}

// The scene asks the broker at most five times a second while a message
// waits for its ack or a pull for a message, and only on the idle safety
// net's schedule when nothing happens.
func TestPollSchedule(t *testing.T) {
	last := kittest.Epoch
	d := &driver{up: true, lastPoll: last}
	d.t.snap.Consumers = []Consumer{{Name: "w"}}
	quiet := last.Add(busyLinger)
	if got := d.nextPoll(quiet).Sub(last); got != idlePoll {
		t.Fatalf("idle: the next look %v after the last, want %v", got, idlePoll)
	}
	d.busyUntil = last.Add(busyLinger)
	if got := d.nextPoll(last.Add(time.Millisecond)).Sub(last); got != minPoll {
		t.Fatalf("after news: the next look %v after the last, want %v", got, minPoll)
	}
	if d.pollNow(last.Add(minPoll / 2)) {
		t.Fatal("news brings a look sooner than minPoll after the last")
	}
	d.busyUntil = time.Time{}
	d.t.snap.Consumers[0].AckPending = 1
	if got := d.nextPoll(quiet.Add(time.Hour)).Sub(last); got != minPoll {
		t.Fatalf("a message awaiting its ack: the next look %v after the last, want %v", got, minPoll)
	}
	d.t.snap.Consumers[0].AckPending, d.t.snap.Consumers[0].Waiting = 0, 1
	if got := d.nextPoll(quiet.Add(time.Hour)).Sub(last); got != minPoll {
		t.Fatalf("a pull waiting: the next look %v after the last, want %v", got, minPoll)
	}
	// A push consumer delivers what it holds once a subscriber appears on
	// its deliver subject, with no news of it: exactly-once's bill showed
	// 1 to deliver and cursor 0 for ten seconds after sub bill.in had it.
	d.t.snap.Consumers[0] = Consumer{Name: "w", Pending: 1}
	if got := d.nextPoll(quiet.Add(time.Hour)).Sub(last); got != pushPoll {
		t.Fatalf("a push consumer with a message to deliver: the next look %v after the last, want %v", got, pushPoll)
	}
	d.t.snap.Consumers[0].Pull = true
	if got := d.nextPoll(quiet.Add(time.Hour)).Sub(last); got != idlePoll {
		t.Fatalf("a pull consumer with a message to deliver, nobody pulling: the next look %v after the last, want %v", got, idlePoll)
	}
	d.up = false
	if got := d.nextPoll(last.Add(time.Millisecond)).Sub(last); got != idlePoll {
		t.Fatalf("server down: the next look %v after the last, want %v", got, idlePoll)
	}
}

// Each look while a message awaits its ack is a stream info and a
// consumer list, counted by the server over looks the scene counts.
func TestALookCostsTwoRequests(t *testing.T) {
	h := newHarness(t, "stream add JOBS --subjects 'jobs.>' --defaults", "pub jobs.a 1 --jetstream",
		"consumer add JOBS w --pull --wait 30s --defaults")
	h.Run("consumer next JOBS w --no-ack")
	h.Settle("awaiting ack", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 })
	looks, asked := kittest.LookCost(t, h.Srv, h.Scene.d.looks.Load, h.Scene.d.sync)
	if looks < 3 || asked > 2*looks {
		t.Fatalf("%d looks asked %d API requests: want at most two each", looks, asked)
	}
}

// Through the client API alone (an external deployment) the scene shows
// the same things.
func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	ext := kittest.External(t, srv)
	h := newLearner(t, srv, ext)
	h.Run("stream add JOBS --subjects 'jobs.>' --defaults")
	h.Run("pub jobs.a 1 --jetstream")
	h.Run("consumer add JOBS w --pull --wait 5s --defaults")
	h.Open()
	h.Run("consumer next JOBS w --no-ack")
	h.Settle("out", func(s Snapshot) bool { return len(consumer(s, "w").Out) == 1 && len(s.Pulls) == 1 })
	srv.Stop()
	h.Settle("down", func(s Snapshot) bool { return !s.ServerUp })
	if err := srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	h.Settle("back", func(s Snapshot) bool { return s.ServerUp && storyHas(s, "kept its place") })
}

// With no stream yet, what to type reads whole at the lab's smallest
// panes (80x24): it wraps at words rather than losing its end.
func TestNoStreamSaysWhatToTypeAt80x24(t *testing.T) {
	h := newHarness(t)
	h.Settle("no stream", func(s Snapshot) bool { return s.Problem != "" })
	want := "no stream yet: stream add EVENTS --subjects 'events.>' --defaults makes one"
	for _, sz := range scenes.SmallestPanes {
		v := h.View(sz.W, sz.H)
		if got := strings.Join(strings.Fields(v), " "); !strings.Contains(got, want) {
			t.Errorf("at %dx%d the scene does not say %q:\n%s", sz.W, sz.H, want, v)
		}
	}
}

// With no stream yet and the rows for it (beside the lesson pane at
// 100x30 and at 120x36), the scene lists the commands that bring it to
// life, each whole on its line, the stream's first; typed, they do: the
// log, the consumer's cursor and ack floor show.
func TestNoStreamListsWhatBringsItToLife(t *testing.T) {
	h := newHarness(t)
	h.Settle("no stream", func(s Snapshot) bool { return s.Problem == noStream })
	for _, sz := range append(slices.Clone(scenes.LessonPanes), scenes.PaneSize{W: 68, H: 16}) {
		v := h.View(sz.W, sz.H)
		for _, cmd := range tryStream {
			if !slices.ContainsFunc(strings.Split(v, "\n"), func(l string) bool { return strings.TrimSpace(l) == cmd }) {
				t.Errorf("at %dx%d the scene does not show %q whole on a line:\n%s", sz.W, sz.H, cmd, v)
			}
		}
	}
	for _, cmd := range tryStream {
		h.Run(cmd)
	}
	h.Settle("the worker read two", func(s Snapshot) bool {
		w := consumer(s, "worker")
		return s.Stream == "EVENTS" && s.LastSeq == 5 && w.Delivered == 2 && w.AckFloor == 2
	})
	if v := h.View(68, 16); !strings.Contains(v, "cursor 2 · ack floor 2") {
		t.Errorf("after the commands the scene does not show the worker's cursor and ack floor:\n%s", v)
	}
}

// Lesson 21: a consumer removed and made again under the same name is a
// new consumer. The pulls the first one had (sub --durable's) are gone with it: the second's
// deliveries of the same messages are not the first's redelivered.
func TestAConsumerRemovedTakesItsPulls(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	// The first billing reads with no acks, as the one sub --durable
	// makes; made first, so that the scene sees each delivery.
	h.Run("consumer add ORDERS billing --pull --ack none --defaults")
	h.Settle("the first billing", func(s Snapshot) bool { return s.consumer("billing") != nil })
	h.Run("sub --stream ORDERS --durable billing -T")
	h.Settle("the first billing read the orders", func(s Snapshot) bool {
		got := 0
		for _, p := range s.Pulls {
			got += len(p.Got)
		}
		return consumer(s, "billing").Delivered == 3 && got == 3
	})
	first := h.Scene.snap.Pulls[len(h.Scene.snap.Pulls)-1].ID
	h.Run("consumer rm ORDERS billing -f")
	h.Settle("billing removed", func(s Snapshot) bool { return s.consumer("billing") == nil })
	h.Run("consumer add ORDERS billing --pull --defaults")
	h.Run("consumer next ORDERS billing --count 3")
	h.Settle("the second billing read the orders", func(s Snapshot) bool { return consumer(s, "billing").AckFloor == 3 })
	for _, p := range h.Scene.snap.Pulls {
		if p.ID <= first {
			t.Errorf("pull %d of the removed billing is still on screen: %+v", p.ID, p)
		}
	}
	for _, sz := range []kittest.Size{{W: 120, H: 36}, {W: 56, H: 16}} {
		if v := h.View(sz.W, sz.H); strings.ContainsRune(v, markExpired) && !strings.Contains(v, "↻ ack wait ran out") || strings.Count(v, string(markExpired)) > 1 {
			t.Errorf("at %dx%d, a delivery is drawn as redelivered (%c), though nothing was:\n%s", sz.W, sz.H, markExpired, v)
		}
	}
}

// A consumer removed and added again under the same name between two of
// the scene's looks is told apart by its creation time: it starts with
// nothing, and the pulls the first one had (heard before it was created)
// are not its own.
func TestAConsumerRecreatedWithinOneLookStartsFresh(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.new "order {{Count}}" --count 3 --jetstream`,
		"consumer add ORDERS billing --pull --wait 30s --defaults")
	h.Settle("billing", func(s Snapshot) bool { return s.consumer("billing") != nil })
	h.Run("consumer next ORDERS billing --no-ack --count 2")
	h.Settle("two awaiting ack", func(s Snapshot) bool { return len(consumer(s, "billing").Out) == 2 })
	h.sync()
	old := consumer(h.Scene.snap, "billing").Created
	first := h.Scene.snap.Pulls[len(h.Scene.snap.Pulls)-1].ID

	// The driver takes no look while the test holds its lock: the scene
	// hears the removal, the new billing and its pull, then looks once.
	h.Scene.d.mu.Lock()
	h.Run("consumer rm ORDERS billing -f")
	h.Run("consumer add ORDERS billing --pull --wait 30s --defaults")
	h.Run("consumer next ORDERS billing --no-ack")
	h.Scene.d.mu.Unlock()
	h.Settle("the new billing", func(s Snapshot) bool {
		c := consumer(s, "billing")
		return !c.Created.Equal(old) && c.Delivered == 1
	})
	h.still()
	s := h.Scene.snap
	for _, p := range s.Pulls {
		if p.ID <= first {
			t.Errorf("pull %d of the removed billing is still on screen: %+v", p.ID, p)
		}
	}
	if out := consumer(s, "billing").Out; len(out) != 1 || out[0].Seq != 1 || out[0].Tries != 1 {
		t.Errorf("the new billing awaits acks for %+v; want #1 on its first try alone", out)
	}
	if v := h.View(120, 36); strings.ContainsRune(v, markExpired) && strings.Count(v, string(markExpired)) > 1 {
		t.Errorf("a delivery of the new billing is drawn as redelivered (%c):\n%s", markExpired, v)
	}
}

// Which pulls a recreated consumer keeps, from the times alone: where the
// server's advisory of the removal was missed, a look that meets the new
// consumer drops the pulls surely heard before it was created, and keeps
// those it cannot tell (here the server's clock runs 2s ahead of the
// scene's, and the look took 5ms); an advisory that comes after a look
// took in the new consumer leaves it be.
func TestRecreatedConsumersPullsByTime(t *testing.T) {
	local := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ahead := 2 * time.Second
	created := local.Add(ahead).Add(time.Second) // the new billing, on the server's clock
	tr := &tracker{snap: Snapshot{
		Consumers: []Consumer{{Name: "billing", Created: created.Add(-time.Minute), Acked: map[uint64]bool{}, Dead: map[uint64]string{}}},
		Pulls: []Pull{
			{ID: 1, Consumer: "billing", heard: local.Add(900 * time.Millisecond), Ended: true},  // the old one's
			{ID: 2, Consumer: "billing", heard: local.Add(998 * time.Millisecond), Ended: true},  // too close to tell
			{ID: 3, Consumer: "billing", heard: local.Add(1100 * time.Millisecond), Ended: true}, // the new one's
			{ID: 4, Consumer: "other", heard: local, Ended: true},
		},
	}}
	asked := local.Add(1500 * time.Millisecond)
	ci := &jetstream.ConsumerInfo{Name: "billing", Created: created, TimeStamp: asked.Add(ahead).Add(5 * time.Millisecond)}
	tr.apply(ci, local, asked)
	var kept []int
	for _, p := range tr.snap.Pulls {
		kept = append(kept, p.ID)
	}
	if want := []int{2, 3, 4}; !slices.Equal(kept, want) {
		t.Errorf("pulls kept %v, want %v", kept, want)
	}
	if c := tr.snap.consumer("billing"); c == nil || !c.Created.Equal(created) {
		t.Fatalf("billing after the look: %+v", c)
	}
	tr.removed("billing", created.Add(-time.Millisecond))
	if tr.snap.consumer("billing") == nil || len(tr.snap.Pulls) != 3 {
		t.Errorf("the late news of the old billing's removal took the new one: %+v", tr.snap)
	}
	tr.removed("billing", created.Add(time.Second))
	if tr.snap.consumer("billing") != nil || len(tr.snap.Pulls) != 1 {
		t.Errorf("the new billing's removal left it or its pulls: %+v", tr.snap)
	}
}

// An ack the scene hears after a look already found its message settled
// (the look's answer overtook the ack on the scene's loop) is still told
// in the story, once: the worker acknowledged it, the story says so.
func TestAnAckHeardAfterTheLookThatSettledItIsTold(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	tr := &tracker{snap: Snapshot{Stream: "JOBS"}, born: map[string]bool{"pool": true}}
	cfg := jetstream.ConsumerConfig{Durable: "pool", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second}
	tr.apply(&jetstream.ConsumerInfo{Name: "pool", Created: now, Config: cfg}, now, now)
	tr.apply(&jetstream.ConsumerInfo{Name: "pool", Created: now, Config: cfg,
		Delivered: jetstream.SequenceInfo{Consumer: 2, Stream: 2}, NumAckPending: 2}, now, now)
	// The look that finds #1 settled comes before the scene hears its ack.
	tr.apply(&jetstream.ConsumerInfo{Name: "pool", Created: now, Config: cfg,
		Delivered: jetstream.SequenceInfo{Consumer: 2, Stream: 2}, AckFloor: jetstream.SequenceInfo{Consumer: 1, Stream: 1}, NumAckPending: 1}, now, now)
	tr.ack("pool", 1, 1, 1, "+ACK", now)
	tr.ack("pool", 2, 1, 2, "+ACK", now)
	tr.ack("pool", 1, 1, 1, "+ACK", now) // the same ack again: told once
	var story []string
	for _, l := range tr.snap.Story {
		story = append(story, l.Text)
	}
	if want := []string{"#1 acknowledged", "#2 acknowledged"}; !slices.Equal(story, want) {
		t.Errorf("story %q, want %q", story, want)
	}
}

// On the lab's cluster one node stopping is not the server going down: the
// scene's connection moves to another node and the cluster runs on, so
// the scene does not say clients wait for the server (scenes/watch).
func TestANodeStoppingIsNotTheServerDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered())
	h := newLearner(t, srv, srv)
	h.Run(`stream add EVENTS --subjects "events.>" --replicas 3 --defaults`)
	h.Run(`consumer add EVENTS worker --pull --ack explicit --defaults`)
	h.Open()
	h.sync()
	nc := h.Scene.d.nc
	node := nc.ConnectedServerName()
	h.Run("node stop " + node)
	if !broker.WaitFor(20*time.Second, func() bool { return nc.IsConnected() && nc.ConnectedServerName() != node }) {
		t.Fatalf("the scene's connection did not move off %s", node)
	}
	h.sync()
	s := h.Scene.snap
	if !s.ServerUp || storyHas(s, "the server is down") || storyHas(s, "the server is back") || storyHas(s, "restart") {
		t.Fatalf("with %s stopped: up %v, story %+v", node, s.ServerUp, s.Story)
	}
}

// On the lab's cluster a consumer whose every copy is on a stopped node is
// listed by the server with its configuration alone, no name and no
// numbers: the scene names it, keeps what it last read and says it is
// offline, rather than drawing a nameless consumer with nothing to
// deliver; a scene opened meanwhile shows no numbers for it.
func TestAConsumerOnAStoppedNodeIsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered())
	h := newLearner(t, srv, srv)
	h.Run(`stream add ORDERS --subjects "orders.>" --replicas 3 --defaults`)
	h.Run(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	h.Run(`consumer add ORDERS solo --pull --replicas 1 --defaults`)
	h.Open()
	h.sync()
	if c := consumer(h.Scene.snap, "solo"); c.Pending != 3 || c.Offline {
		t.Fatalf("solo before: %+v", c)
	}
	js, err := jetstream.New(brokertest.Connect(t, srv, "test"))
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(context.Background(), "ORDERS", "solo")
	if err != nil {
		t.Fatal(err)
	}
	home := cons.CachedInfo().Cluster.Leader
	h.Run("node stop " + home)
	h.Settle("solo offline", func(s Snapshot) bool { return consumer(s, "solo").Offline })
	s := h.Scene.snap
	for _, c := range s.Consumers {
		if c.Name == "" {
			t.Fatalf("a consumer with no name: %+v", s.Consumers)
		}
	}
	if c := consumer(s, "solo"); c.Pending != 3 || c.Unread || !storyHas(s, "solo is offline: every copy of it is on a stopped node") {
		t.Fatalf("solo with %s stopped: %+v, story %+v", home, c, s.Story)
	}
	if v := h.View(100, 14); !strings.Contains(v, "solo") || !strings.Contains(v, "offline: its copies are on stopped nodes") || strings.Contains(v, "to deliver") {
		t.Fatalf("with %s stopped:\n%s", home, v)
	}

	other := newLearner(t, srv, srv)
	other.Open()
	other.Settle("solo offline", func(s Snapshot) bool { return consumer(s, "solo").Offline })
	if c := consumer(other.Scene.snap, "solo"); !c.Unread {
		t.Fatalf("solo, never read: %+v", c)
	}
	if v := other.View(100, 14); !strings.Contains(v, "offline: its copies are on stopped nodes") || strings.Contains(v, "to deliver") || strings.Contains(v, "cursor 0") {
		t.Fatalf("a scene opened with %s stopped:\n%s", home, v)
	}

	h.Run("node start " + home)
	h.Settle("solo online", func(s Snapshot) bool { c := consumer(s, "solo"); return !c.Offline && c.Pending == 3 })
	if !storyHas(h.Scene.snap, "solo is online again") {
		t.Fatalf("story %+v", h.Scene.snap.Story)
	}
}

// A look can find a pull already answered while the pull itself, which
// the server sent the scene before the look's answer, still waits to be
// heard: the deliveries go to the pull all the same, not to no worker
// (which left "pull 1 got nothing" on screen for good).
func TestALookHearsThePullsBeforeItsDeliveries(t *testing.T) {
	h := newHarness(t, "stream add ORDERS --subjects 'orders.>' --defaults",
		`pub orders.us.new "order 1 (us)" --jetstream`, `pub orders.eu.new "order 2 (eu)" --jetstream`,
		`pub orders.us.new "order 3 (us)" --jetstream`)
	h.Run(`consumer add ORDERS us --pull --filter "orders.us.>" --defaults`)
	h.Settle("us added", func(s Snapshot) bool { return s.consumer("us") != nil })

	d := h.Scene.d
	held, release := make(chan struct{}), make(chan struct{})
	d.mu.Lock()
	d.hold = func() {
		d.mu.Lock()
		d.hold = nil
		d.mu.Unlock()
		close(held)
		<-release
	}
	d.mu.Unlock()
	d.Poke()
	<-held
	// The look is held: the pulls and the acks are heard but not taken.
	h.Run(`consumer next ORDERS us --count 2`)
	if !broker.WaitFor(10*time.Second, func() bool { return len(d.Msgs()) >= 4 }) {
		t.Fatalf("the scene heard %d messages, want two pulls and two acks", len(d.Msgs()))
	}
	close(release)
	h.Settle("us read its two", func(s Snapshot) bool { return consumer(s, "us").AckFloor == 3 })
	h.sync()
	var got []uint64
	for _, p := range h.Scene.snap.Pulls {
		if len(p.Got) != 1 {
			t.Errorf("pull %d got %v, want one message", p.ID, p.Got)
		}
		got = append(got, p.Got...)
	}
	if !slices.Equal(got, []uint64{1, 3}) {
		t.Errorf("the pulls got %v, want #1 and #3", got)
	}
}
