package streamlog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

// What the scene says of a mirror's and a sourced stream's numbers (and
// lesson 29 says with it) is what the server does: a mirror keeps its
// origin's sequence numbers, gaps and all, even where it starts after the
// origin's first messages were removed; a stream with sources numbers
// what it copies its own way, from 1.
func TestAMirrorKeepsTheOriginsSequencesASourceRenumbers(t *testing.T) {
	srv := brokertest.Start(t)
	js, err := jetstream.New(brokertest.Connect(t, srv, "copies"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	orders, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := js.Publish(ctx, "orders.new", []byte("order")); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(5)
	// The first two purged, the fourth deleted: ORDERS holds 3 and 5.
	if err := orders.Purge(ctx, jetstream.WithPurgeSequence(3)); err != nil {
		t.Fatal(err)
	}
	if err := orders.DeleteMsg(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BACKUP", Mirror: &jetstream.StreamSource{Name: "ORDERS"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ALL", Sources: []*jetstream.StreamSource{{Name: "ORDERS"}}}); err != nil {
		t.Fatal(err)
	}
	type numbers struct{ first, last, msgs uint64 }
	state := func(name string) numbers {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		st := s.CachedInfo().State
		return numbers{st.FirstSeq, st.LastSeq, st.Msgs}
	}
	// The server copies after the stream is added: a reader of each copy
	// hears each message as it is stored there.
	readers := map[string]jetstream.Consumer{}
	for _, name := range []string{"BACKUP", "ALL"} {
		if readers[name], err = js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	copied := func(name string, msgs uint64) numbers {
		t.Helper()
		for got := uint64(0); got < msgs; got++ {
			if _, err := readers[name].Next(jetstream.FetchMaxWait(10 * time.Second)); err != nil {
				t.Fatalf("%s copied %d messages of %d: %v", name, got, msgs, err)
			}
		}
		return state(name)
	}
	if got, want := copied("BACKUP", 2), (numbers{3, 5, 2}); got != want {
		t.Errorf("the mirror of ORDERS (holding #3 and #5) has first, last, messages %v; want the origin's %v", got, want)
	}
	if got, want := copied("ALL", 2), (numbers{1, 2, 2}); got != want {
		t.Errorf("the stream sourcing ORDERS (holding #3 and #5) has first, last, messages %v; want its own numbers %v", got, want)
	}
	publish(1)
	if got, want := copied("BACKUP", 1), (numbers{3, 6, 3}); got != want {
		t.Errorf("after ORDERS stored #6, its mirror has first, last, messages %v; want %v", got, want)
	}
	if got, want := copied("ALL", 1), (numbers{1, 3, 3}); got != want {
		t.Errorf("after ORDERS stored #6, the stream sourcing it has first, last, messages %v; want %v", got, want)
	}
	// The mirror's message #6 is the origin's #6.
	for _, name := range []string{"ORDERS", "BACKUP"} {
		s, _ := js.Stream(ctx, name)
		if m, err := s.GetMsg(ctx, 6); err != nil || m.Sequence != 6 {
			t.Errorf("%s: message 6: %v %v", name, m, err)
		}
	}
}

// Lesson 29 in the scene: a mirror of a stream whose first messages were
// purged draws the origin's numbers; empty, it says so instead of naming
// a next number of its own.
func TestTheMirrorsLaneKeepsTheOriginsNumbers(t *testing.T) {
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Run(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	h.Run(`stream purge ORDERS -f`)
	h.add(`stream add BACKUP --mirror ORDERS --defaults`, "BACKUP")
	h.Clock.Advance(5 * time.Second)
	if v := h.View(100, 20); !strings.Contains(v, "empty · copies keep their numbers from ORDERS") {
		t.Errorf("the empty mirror does not say its numbers come from ORDERS:\n%s", v)
	}
	h.NeverCut(t, "empty mirror")
	h.Run(`pub orders.new "order {{Count}}" --count 2 --jetstream`)
	h.Settle("copied", func(s Snapshot) bool { l, _ := laneOf(s, "BACKUP"); return l.Msgs == 2 })
	h.Clock.Advance(5 * time.Second)
	backup, _ := laneOf(h.Scene.snap, "BACKUP")
	if o := orders(h.Scene.snap); backup.First != o.First || backup.Last != o.Last || backup.First != 4 {
		t.Errorf("BACKUP holds #%d…#%d; its origin ORDERS #%d…#%d", backup.First, backup.Last, o.First, o.Last)
	}
	if v := h.View(100, 20); strings.Count(v, "│ 4  │ 5  │◀") != 2 {
		t.Errorf("ORDERS' and BACKUP's lanes do not both draw #4 and #5:\n%s", v)
	}
}

// The story names a sourced stream's copies by its own numbers, a
// mirror's by the origin's, which are the same.
func TestCopiesStoryNumbers(t *testing.T) {
	d := &driver{}
	all := Lane{Name: "ALL", From: []string{"ORDERS", "RETURNS"}, First: 1, Last: 3, Msgs: 3}
	more := all
	more.Last, more.Msgs = 6, 6
	if got := strings.Join(d.diff(all, more), "; "); got != "copied from ORDERS, RETURNS as #4…#6" {
		t.Errorf("ALL gained #4…#6 from its sources: %q", got)
	}
	backup := Lane{Name: "BACKUP", From: []string{"ORDERS"}, Mirror: true, First: 4, Last: 5, Msgs: 2}
	next := backup
	next.Last, next.Msgs = 6, 3
	if got := strings.Join(d.diff(backup, next), "; "); got != "copied up to #6 from ORDERS" {
		t.Errorf("BACKUP copied ORDERS' #6: %q", got)
	}
}
