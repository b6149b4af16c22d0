package kvwatch

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
)

// Integration tests: the episode's commands on a real server, and what the
// scene says checked against the broker's own answers.

func (h *harness) js() jetstream.JetStream {
	nc := brokertest.Connect(h.T, h.Srv, "test")
	js, _ := jetstream.New(nc)
	return js
}

func TestRevisionsMatchTheBroker(t *testing.T) {
	h := newHarness(t, "kv add profiles --history 5")
	for _, v := range []string{"blue", "green", "red"} {
		h.Run("kv put profiles sue.color " + v)
	}
	h.Run("kv put profiles bob.color gray")
	h.Settle("four", func(s Snapshot) bool { return s.LastSeq == 4 && len(s.Keys) == 2 })
	ctx := context.Background()
	kv, err := h.js().KeyValue(ctx, "profiles")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sue.color", "bob.color"} {
		e, err := kv.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		k := key(h.Scene.snap, name)
		if k.Rev != e.Revision() || k.Value != string(e.Value()) {
			t.Fatalf("%s: scene %+v, broker rev %d %q", name, k, e.Revision(), e.Value())
		}
	}
	if k := key(h.Scene.snap, "sue.color"); k.Kept != 3 || h.Scene.snap.History != 5 {
		t.Fatalf("history: kept %d of %d, want 3 of 5", k.Kept, h.Scene.snap.History)
	}
	if s := h.Scene.snap; s.Stream != "KV_profiles" || s.Msgs != 4 {
		t.Fatalf("stream underneath: %s with %d messages", s.Stream, s.Msgs)
	}
}

// The scene is no watcher of its own: the bucket's stream has no consumer
// until the learner starts kv watch, and then one.
func TestTheSceneAddsNoWatcher(t *testing.T) {
	h := newHarness(t, "kv add profiles", "kv put profiles sue.color blue")
	h.Settle("blue", func(s Snapshot) bool { return key(s, "sue.color").Rev == 1 })
	info := func() int {
		st, err := h.js().Stream(context.Background(), "KV_profiles")
		if err != nil {
			t.Fatal(err)
		}
		return st.CachedInfo().State.Consumers
	}
	if n := info(); n != 0 || h.Scene.snap.Watchers != 0 {
		t.Fatalf("with the scene open: %d consumers (scene says %d), want 0", n, h.Scene.snap.Watchers)
	}
	h.Start("kv watch profiles")
	h.Run("kv put profiles sue.color green")
	h.Settle("watched", func(s Snapshot) bool { return s.Watchers == 1 && key(s, "sue.color").Value == "green" })
	if n := info(); n != 1 {
		t.Fatalf("with kv watch running: %d consumers, want 1", n)
	}
}

// A consumer made on the bucket's stream is no watcher while no client
// receives from it: the scene counts what the lesson counts.
func TestAConsumerOnTheStreamIsNoWatcher(t *testing.T) {
	h := newHarness(t, "kv add profiles", "kv put profiles sue.color blue", "consumer add KV_profiles reader --pull --defaults")
	h.Run("kv put profiles sue.color green")
	h.Settle("green", func(s Snapshot) bool { return key(s, "sue.color").Value == "green" })
	if w := h.Scene.snap.Watchers; w != 0 {
		t.Fatalf("a pull consumer and no watch: the scene says %d watchers, want 0", w)
	}
	h.Start("kv watch profiles")
	h.Run("kv put profiles sue.color red")
	h.Settle("watched", func(s Snapshot) bool { return s.Watchers == 1 && key(s, "sue.color").Value == "red" })
}

func TestCompareAndSet(t *testing.T) {
	h := newHarness(t, "kv add profiles", "kv put profiles sue.color blue", "kv put profiles sue.color green")
	h.Settle("green", func(s Snapshot) bool { return key(s, "sue.color").Rev == 2 })
	if _, err := h.Try("kv update profiles sue.color red 1"); err == nil {
		t.Fatal("a stale update went through")
	}
	h.Settle("refused", func(s Snapshot) bool { return last(s).Refused })
	ch := last(h.Scene.snap)
	if ch.Op != "update" || ch.Expected != 1 || ch.Was != 2 || !strings.Contains(ch.Why, "revision 2, not 1") {
		t.Fatalf("refused write: %+v", ch)
	}
	if k := key(h.Scene.snap, "sue.color"); k.Rev != 2 || k.Value != "green" {
		t.Fatalf("after the refusal: %+v", k)
	}
	h.Run("kv update profiles sue.color red 2")
	h.Settle("stored", func(s Snapshot) bool { return last(s).Rev == 3 })
	if ch := last(h.Scene.snap); ch.Refused || ch.Expected != 2 {
		t.Fatalf("update at the current revision: %+v", ch)
	}
	// kv create on an existing key is a compare-and-set too.
	if _, err := h.Try("kv create profiles sue.color purple"); err == nil {
		t.Fatal("create of an existing key went through")
	}
	h.Settle("create refused", func(s Snapshot) bool { return last(s).Refused && last(s).Op == "create" })
	h.NeverCut(t, "create refused")
	h.Run("kv del profiles sue.color -f")
	h.Settle("deleted", func(s Snapshot) bool { return key(s, "sue.color").Op == "del" })
	if v := h.View(100, 16); !strings.Contains(v, "deleted") || !strings.Contains(v, "refused") {
		t.Fatalf("view:\n%s", v)
	}
}

func TestWatchControlAndBuckets(t *testing.T) {
	h := newHarness(t)
	h.Settle("none", func(s Snapshot) bool { return strings.Contains(s.Problem, "kv add") })
	h.NeverCut(t, "no bucket")
	if _, err := h.Scene.Do("watch", []string{"profiles"}); err == nil || !strings.Contains(err.Error(), "kv add profiles") {
		t.Fatalf("watch before any bucket: %v", err)
	}
	h.Run("kv add profiles")
	h.Settle("found", func(s Snapshot) bool { return s.Bucket == "profiles" })
	h.Run("kv add config")
	h.Settle("newest", func(s Snapshot) bool { return s.Bucket == "config" })
	if _, err := h.Scene.Do("watch", []string{"nope"}); err == nil || !strings.Contains(err.Error(), "config, profiles") {
		t.Fatalf("watch nope: %v", err)
	}
	if _, err := h.Scene.Do("watch", []string{"a", "b"}); err == nil {
		t.Fatal("two buckets accepted")
	}
	if _, err := h.Scene.Do("watch", []string{"profiles"}); err != nil {
		t.Fatal(err)
	}
	h.Settle("chosen", func(s Snapshot) bool { return s.Bucket == "profiles" && !s.Auto })
	h.Run("kv put profiles a 1")
	h.Settle("a", func(s Snapshot) bool { return key(s, "a").Rev == 1 })
	h.Run("kv rm profiles -f")
	h.Settle("gone", func(s Snapshot) bool { return strings.Contains(s.Problem, "profiles is gone") })
	h.NeverCut(t, "the bucket gone")
	if _, err := h.Scene.Do("watch", nil); err != nil {
		t.Fatal(err)
	}
	h.Settle("auto", func(s Snapshot) bool { return s.Bucket == "config" && s.Auto })
}

func TestRestartKeepsTheBucket(t *testing.T) {
	h := newHarness(t, "kv add profiles", "kv put profiles sue.color blue")
	h.Settle("blue", func(s Snapshot) bool { return key(s, "sue.color").Rev == 1 })
	h.Srv.Stop()
	h.Settle("down", func(s Snapshot) bool { return !s.ServerUp })
	if v := h.View(100, 12); !strings.Contains(v, "server ○ down") || !strings.Contains(v, "blue") {
		t.Fatalf("down:\n%s", v)
	}
	h.NeverCut(t, "server down")
	h.Reconnecting(func() error { return h.Srv.Restart(true) })
	h.Settle("up", func(s Snapshot) bool { return s.ServerUp })
	h.Run("kv put profiles sue.color green")
	h.Settle("green", func(s Snapshot) bool { return last(s).Rev == 2 })
}

func TestJetStreamOff(t *testing.T) {
	h := newHarness(t, "kv add profiles")
	h.Settle("found", func(s Snapshot) bool { return s.Bucket == "profiles" })
	h.Run("nats-server")
	h.Settle("off", func(s Snapshot) bool { return strings.Contains(s.Problem, "JetStream is off") })
	h.NeverCut(t, "JetStream off")
	h.Run("nats-server -js")
	h.Settle("on", func(s Snapshot) bool { return s.Bucket == "profiles" && s.Problem == "" })
}

// Nothing is asked of the broker while nothing is written: with no news
// and every write resolved, the next look is the idle safety net's, and
// news or a write awaiting its verdict bring looks minPoll apart.
func TestIdleAsksNothing(t *testing.T) {
	last := kittest.Epoch
	d := &driver{serverUp: true, lastPoll: last}
	quiet := last.Add(busyLinger)
	if got := d.nextPoll(quiet).Sub(last); got != idlePoll {
		t.Fatalf("idle: the next look %v after the last, want %v", got, idlePoll)
	}
	d.busyUntil = last.Add(busyLinger)
	if got := d.nextPoll(last.Add(time.Millisecond)).Sub(last); got != minPoll {
		t.Fatalf("after news: the next look %v after the last, want %v", got, minPoll)
	}
	d.snap.Changes = []Change{{Key: "a"}}
	if got := d.nextPoll(quiet.Add(time.Hour)).Sub(last); got != minPoll {
		t.Fatalf("a write awaiting its verdict: the next look %v after the last, want %v", got, minPoll)
	}
	d.serverUp = false
	if got := d.nextPoll(last.Add(time.Millisecond)).Sub(last); got != idlePoll {
		t.Fatalf("server down: the next look %v after the last, want %v", got, idlePoll)
	}
}

// Each look at a quiet bucket is two requests of the JetStream API (the
// stream's info, and the subjects of its keys), counted by the server over
// looks the scene counts.
func TestALookCostsTwoRequests(t *testing.T) {
	h := newHarness(t, "kv add profiles", "kv put profiles a 1")
	h.Settle("a", func(s Snapshot) bool { return key(s, "a").Rev == 1 })
	looks, asked := kittest.LookCost(t, h.Srv, h.Scene.d.looks.Load, h.Scene.d.sync)
	if looks < 3 || asked > 2*looks {
		t.Fatalf("%d looks asked %d API requests: want at most two each", looks, asked)
	}
}

func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	ext := kittest.External(t, srv)
	h := newLearner(t, srv, ext)
	h.Open()
	h.Run("kv add profiles")
	h.Settle("bucket", func(s Snapshot) bool { return s.Bucket == "profiles" })
	h.Run("kv put profiles sue.color blue")
	h.Settle("blue", func(s Snapshot) bool { return last(s).Rev == 1 })
	_, _ = h.Try("kv update profiles sue.color red 7")
	h.Settle("refused", func(s Snapshot) bool { return last(s).Refused })
}

// A write the driver resolved while a write was still flying across the
// scene reaches the picture with the next frame, not with the next poke
// after it (an idle look, seconds later).
func TestAStateChangeDuringAnimationIsDrawn(t *testing.T) {
	d := &driver{}
	s := &Scene{rows: map[string]int{}, d: d}
	d.shared = Snapshot{Bucket: "profiles", Keys: []Key{{Name: "sue.color", Value: "green", Rev: 2}}}
	s.Apply(kit.FeedMsg{Frame: true, Poked: true}, kittest.Epoch)
	if got := key(s.snap, "sue.color").Value; got != "green" {
		t.Fatalf("after a frame that took a poke the scene shows %q, want the driver's green", got)
	}
	d.shared = Snapshot{Bucket: "profiles", Keys: []Key{{Name: "sue.color", Value: "red", Rev: 3}}}
	s.Apply(kit.FeedMsg{Frame: true}, kittest.Epoch)
	if got := key(s.snap, "sue.color").Value; got != "green" {
		t.Fatalf("a bare frame re-read the driver's state (%q): only news should", got)
	}
}

// With no bucket yet and the rows for it (beside the lesson pane at
// 100x30 and at 120x36), the scene lists what to type, each command whole
// on its line, the bucket's first; typed, they bring it to life: the key
// at its second revision, both writes listed.
func TestNoBucketListsWhatBringsItToLife(t *testing.T) {
	h := newHarness(t)
	h.Settle("no bucket", func(s Snapshot) bool { return s.Problem == noBucket })
	for _, sz := range append(slices.Clone(scenes.LessonPanes), scenes.PaneSize{W: 68, H: 16}) {
		v := h.View(sz.W, sz.H)
		for _, cmd := range tryBucket {
			if !slices.ContainsFunc(strings.Split(v, "\n"), func(l string) bool { return strings.TrimSpace(l) == cmd }) {
				t.Errorf("at %dx%d the scene does not show %q whole on a line:\n%s", sz.W, sz.H, cmd, v)
			}
		}
	}
	h.Run(tryBucket[0])
	h.Settle("bucket", func(s Snapshot) bool { return s.Bucket == "profiles" })
	for _, cmd := range tryBucket[1:] {
		h.Run(cmd)
	}
	h.Settle("two revisions", func(s Snapshot) bool { return s.Bucket == "profiles" && len(s.Changes) == 2 && last(s).Rev == 2 })
	if v := h.View(68, 16); !strings.Contains(v, "sue.color = green") {
		t.Errorf("after the commands the scene does not show the second write:\n%s", v)
	}
}

// The tap hears a write before the stream stores it (on the lab's cluster
// the read after it often finds the key as it was, while the replicas
// agree): the key is read again at each look until the write is settled,
// so the verdict is the server's, not "refused" with the old value kept.
// The driver is stepped by hand to put the store between two looks.
func TestAWriteStoredAfterALookIsSeenStored(t *testing.T) {
	srv := brokertest.Start(t)
	js, err := jetstream.New(brokertest.Connect(t, srv, "test"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "CONFIG"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.PutString(ctx, "color", "blue"); err != nil {
		t.Fatal(err)
	}
	d := &driver{js: js, clock: kit.NewManualClock(kittest.Epoch), dirty: map[string]bool{}, counts: map[string]uint64{}}
	d.snap.Bucket, d.snap.Stream = "CONFIG", "KV_CONFIG"
	look := func() {
		t.Helper()
		if err := d.readBucket(ctx); err != nil {
			t.Fatal(err)
		}
		d.resolve()
	}
	look()
	d.write("color", &nats.Msg{Subject: "$KV.CONFIG.color", Data: []byte("red")})
	look() // before the store
	if _, err := kv.PutString(ctx, "color", "red"); err != nil {
		t.Fatal(err)
	}
	d.snap.Changes[0].wall = time.Now().Add(-settleAfter) // heard long enough ago to settle
	look()
	if ch, k := d.snap.Changes[0], key(d.snap, "color"); !ch.resolved || ch.Refused || ch.Rev != 2 || k.Value != "red" || k.Rev != 2 {
		t.Fatalf("the write %+v, the key %+v: want stored at revision 2", ch, k)
	}
}
