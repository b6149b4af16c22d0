package episode

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// What the lesson texts of Part VII say about NATS beyond what their steps
// check, tried on the real server: each test names the lesson and the claim.

// claimJS is a JetStream handle on a connection of the test's own.
func claimJS(t *testing.T, srv broker.Deployment) (jetstream.JetStream, *nats.Conn) {
	t.Helper()
	nc := brokertest.Connect(t, srv, "claims")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js, nc
}

func claimCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitUntil polls cond until it holds or the test's deadline passes: the
// server removes idle consumers on its own clock.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited in vain for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// push-pull: a push consumer sends nothing while nobody subscribes to its
// delivery subject; the CLI's default ack policy for push consumers is none.
func TestClaimPushConsumerWaitsForInterest(t *testing.T) {
	claimIn(t, "push-pull", "nobody subscribes to the delivery subject, so nothing is sent and the three orders wait")
	claimIn(t, "push-pull", "The CLI's default acknowledgement for a push consumer is *none*")
	l := newLab(t, newServer(t))
	js, nc := claimJS(t, l.srv)
	ctx := claimCtx(t)
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	l.must(`pub orders.new "order {{Count}}" --count 3 --jetstream`)
	l.must(`consumer add ORDERS quiet --target work.quiet --defaults`)
	l.must(`consumer add ORDERS pusher --target work.orders --ack explicit --defaults`, "No interest")
	pc, err := js.PushConsumer(ctx, "ORDERS", "quiet")
	if err != nil {
		t.Fatal(err)
	}
	if got := pc.CachedInfo().Config.AckPolicy; got != jetstream.AckNonePolicy {
		t.Errorf("a push consumer added with --defaults acknowledges %v, the lesson says none", got)
	}
	got := make(chan *nats.Msg, 10)
	sub, err := nc.ChanSubscribe("work.orders", got)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for i := 0; i < 3; i++ {
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatalf("the push consumer delivered %d of 3 once somebody listened", i)
		}
	}
	// Before the subscription nothing was delivered: the first delivery is
	// stream sequence 1 with delivery count 1 (nothing was sent and lost).
	info, err := js.PushConsumer(ctx, "ORDERS", "pusher")
	if err != nil {
		t.Fatal(err)
	}
	if d := info.CachedInfo().Delivered; d.Consumer != 3 || d.Stream != 3 {
		t.Errorf("want exactly three deliveries, one per order; got consumer seq %d, stream seq %d", d.Consumer, d.Stream)
	}
}

// durable-ephemeral: a durable consumer given an inactive threshold is
// removed after that long idle, like an ephemeral one.
func TestClaimDurableWithInactiveThresholdGoes(t *testing.T) {
	claimIn(t, "durable-ephemeral", "A durable consumer may also be given an inactive threshold (`--inactive-threshold 1h`): the server then removes it after that long idle")
	l := newLab(t, newServer(t))
	js, _ := claimJS(t, l.srv)
	ctx := claimCtx(t)
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	l.must(`consumer add ORDERS reports --pull --inactive-threshold 1s --defaults`)
	c, err := js.Consumer(ctx, "ORDERS", "reports")
	if err != nil {
		t.Fatal(err)
	}
	if cfg := c.CachedInfo().Config; cfg.Durable != "reports" || cfg.InactiveThreshold != time.Second {
		t.Fatalf("want a durable consumer with a 1s inactive threshold, got durable %q, threshold %v", cfg.Durable, cfg.InactiveThreshold)
	}
	waitUntil(t, ctx, "the idle durable consumer to be removed", func() bool {
		_, err := js.Consumer(ctx, "ORDERS", "reports")
		return errors.Is(err, jetstream.ErrConsumerNotFound)
	})
}

// deliver-policies: a consumer that starts at the last message counts
// everything before as acknowledged (its ack floor is one below its start).
func TestClaimLaterStartCountsAsAcked(t *testing.T) {
	claimIn(t, "deliver-policies", "a new consumer that starts at sequence 5 shows its ack floor at 4")
	l := newLab(t, newServer(t))
	js, _ := claimJS(t, l.srv)
	ctx := claimCtx(t)
	l.must(`stream add PRICES --subjects "prices.>" --defaults`)
	for i := 0; i < 5; i++ {
		l.must(fmt.Sprintf("pub prices.aapl %d --jetstream", 190+i))
	}
	l.must(`consumer add PRICES latest --pull --deliver last --defaults`)
	c, err := js.Consumer(ctx, "PRICES", "latest")
	if err != nil {
		t.Fatal(err)
	}
	if f := c.CachedInfo().AckFloor.Stream; f != 4 {
		t.Errorf("a consumer starting at sequence 5 has its ack floor at %d, the lesson says 4", f)
	}
}

// deliver-policies: an ordered consumer is ephemeral, without acks, in
// memory; after a server restart the library creates a new one starting
// one past the last message it saw: nothing missed, nothing twice.
func TestClaimOrderedConsumerRidesOutARestart(t *testing.T) {
	claimIn(t, "deliver-policies", "ephemeral, without acks, kept in memory")
	claimIn(t, "deliver-policies", "after a gap or a server restart it creates a new consumer starting one past the last message it saw, so nothing is missed and nothing comes twice")
	srv := newServer(t)
	js, nc := claimJS(t, srv)
	ctx := claimCtx(t)
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "PRICES", Subjects: []string{"prices.>"}})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(from, to int) {
		for i := from; i <= to; i++ {
			if _, err := js.Publish(ctx, "prices.aapl", []byte(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(1, 3)
	oc, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan uint64, 16)
	cc, err := oc.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err == nil {
			got <- md.Sequence.Stream
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Stop()
	read := func(n int) []uint64 {
		var seqs []uint64
		for len(seqs) < n {
			select {
			case s := <-got:
				seqs = append(seqs, s)
			case <-ctx.Done():
				t.Fatalf("read %v, wanted %d", seqs, n)
			}
		}
		return seqs
	}
	if seqs := read(3); fmt.Sprint(seqs) != "[1 2 3]" {
		t.Fatalf("before the restart: %v", seqs)
	}
	names := func() map[string]jetstream.ConsumerConfig {
		out := map[string]jetstream.ConsumerConfig{}
		l := st.ListConsumers(ctx)
		for ci := range l.Info() {
			out[ci.Name] = ci.Config
		}
		return out
	}
	before := names()
	if len(before) != 1 {
		t.Fatalf("want one consumer, got %v", before)
	}
	for _, cfg := range before {
		if cfg.Durable != "" || cfg.AckPolicy != jetstream.AckNonePolicy || !cfg.MemoryStorage {
			t.Errorf("an ordered consumer: durable %q, acks %v, in memory %v", cfg.Durable, cfg.AckPolicy, cfg.MemoryStorage)
		}
	}
	if err := srv.Restart(true); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the client to reconnect", func() bool { return nc.Stats().Reconnects > 0 && nc.IsConnected() })
	publish(4, 5)
	if seqs := read(2); fmt.Sprint(seqs) != "[4 5]" {
		t.Fatalf("after the restart: %v (want 4 and 5, once each)", seqs)
	}
	after := names()
	for name, cfg := range after {
		if _, ok := before[name]; ok {
			t.Errorf("consumer %s survived the restart; the library should have made a new one", name)
		}
		if cfg.DeliverPolicy != jetstream.DeliverByStartSequencePolicy || cfg.OptStartSeq != 4 {
			t.Errorf("the new consumer starts with %v at %d, want by start sequence at 4", cfg.DeliverPolicy, cfg.OptStartSeq)
		}
	}
	select {
	case s := <-got:
		t.Errorf("a message came twice or out of turn: %d", s)
	default:
	}
}

// max-ack-pending, push-pull: a push consumer stops pushing at max ack
// pending; a consumer without acks has no max ack pending at all.
func TestClaimPushStopsAtMaxAckPending(t *testing.T) {
	claimIn(t, "max-ack-pending", "push consumers stop pushing, and pull requests wait")
	claimIn(t, "max-ack-pending", "a consumer without acks has none")
	claimIn(t, "push-pull", "The server pushes as fast as messages are stored, up to **Max Ack Pending** unacknowledged at a time.")
	l := newLab(t, newServer(t))
	js, nc := claimJS(t, l.srv)
	ctx := claimCtx(t)
	l.must(`stream add JOBS --subjects "jobs.>" --defaults`)
	l.must(`pub jobs.new "job {{Count}}" --count 10 --jetstream`)
	l.must(`consumer add JOBS none --pull --ack none --defaults`)
	c, err := js.Consumer(ctx, "JOBS", "none")
	if err != nil {
		t.Fatal(err)
	}
	if m := c.CachedInfo().Config.MaxAckPending; m != 0 {
		t.Errorf("a consumer without acks has max ack pending %d, the lesson says none", m)
	}
	got := make(chan *nats.Msg, 20)
	sub, err := nc.ChanSubscribe("work.jobs", got)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	l.must(`consumer add JOBS pusher --target work.jobs --ack explicit --max-pending 3 --defaults`)
	pc, err := js.PushConsumer(ctx, "JOBS", "pusher")
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "three jobs pushed", func() bool { return len(got) >= 3 })
	// The pusher has delivered three and stops: ask the server, not a clock.
	info, err := pc.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumAckPending != 3 || info.Delivered.Stream != 3 || info.NumPending != 7 {
		t.Errorf("at max ack pending 3: ack pending %d, delivered up to %d, unprocessed %d", info.NumAckPending, info.Delivered.Stream, info.NumPending)
	}
	// Acknowledge one: exactly one more is pushed.
	first := <-got
	if err := first.AckSync(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "a fourth job pushed after one ack", func() bool { return len(got) >= 3 })
	info, err = pc.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Delivered.Stream != 4 || info.NumAckPending != 3 {
		t.Errorf("after one ack: delivered up to %d, ack pending %d (want 4 and 3)", info.Delivered.Stream, info.NumAckPending)
	}

	// A pull consumer at its limit: the request gets nothing until the
	// server expires it, though jobs wait in the stream.
	l.must(`consumer add JOBS puller --pull --max-pending 3 --defaults`)
	l.must(`consumer next JOBS puller --no-ack --count 3`)
	pull, err := js.Consumer(ctx, "JOBS", "puller")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := pull.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for m := range batch.Messages() {
		md, _ := m.Metadata()
		t.Errorf("at max ack pending a pull got stream sequence %d", md.Sequence.Stream)
	}
	pi, err := pull.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pi.NumPending != 7 {
		t.Errorf("jobs waiting in the stream: %d, want 7", pi.NumPending)
	}
}

// exactly-once: a message ID is remembered for the duplicate window; a
// retry after it is stored again. The server answers a double ack with an
// empty message.
func TestClaimDuplicateWindowAndDoubleAck(t *testing.T) {
	claimIn(t, "exactly-once", "a retry later than that is stored again")
	claimIn(t, "exactly-once", "The server answers with an empty message once the ack is recorded")
	l := newLab(t, newServer(t))
	js, nc := claimJS(t, l.srv)
	ctx := claimCtx(t)
	l.must(`stream add PAY --subjects "pay.>" --dupe-window 1s --defaults`)
	msg := func() *nats.Msg {
		m := nats.NewMsg("pay.new")
		m.Header.Set("Nats-Msg-Id", "pay-1")
		m.Data = []byte("charge 10 EUR")
		return m
	}
	first, err := js.PublishMsg(ctx, msg())
	if err != nil {
		t.Fatal(err)
	}
	again, err := js.PublishMsg(ctx, msg())
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Sequence != first.Sequence {
		t.Fatalf("a retry inside the window: duplicate %v, sequence %d (first %d)", again.Duplicate, again.Sequence, first.Sequence)
	}
	var later *jetstream.PubAck
	waitUntil(t, ctx, "a retry after the window to be stored", func() bool {
		later, err = js.PublishMsg(ctx, msg())
		return err == nil && !later.Duplicate
	})
	if later.Sequence == first.Sequence {
		t.Errorf("stored again at the same sequence %d", later.Sequence)
	}

	l.must(`consumer add PAY bill --pull --defaults`)
	c, err := js.Consumer(ctx, "PAY", "bill")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := c.Fetch(1)
	if err != nil {
		t.Fatal(err)
	}
	var m jetstream.Msg
	for x := range batch.Messages() {
		m = x
	}
	if m == nil {
		t.Fatal("no message fetched")
	}
	reply, err := nc.Request(m.Reply(), []byte("+ACK"), 2*time.Second)
	if err != nil {
		t.Fatalf("a double ack got no answer: %v", err)
	}
	if len(reply.Data) != 0 {
		t.Errorf("the server's answer to a double ack is %q, the lesson says empty", reply.Data)
	}
}
