package broker_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// SHOP exports its orders; AUDIT takes them under shop.
const tradingConf = `accounts {
  SHOP: { users: [ {user: shop, password: shop-pw} ], exports: [ {stream: "orders.>"} ] }
  AUDIT: { users: [ {user: audit, password: audit-pw} ], imports: [ {stream: {account: SHOP, subject: "orders.>"}, prefix: "shop"} ] }
}`

func connectAs(t *testing.T, s *broker.Server, user string) *nats.Conn {
	t.Helper()
	nc, err := s.ConnectAs("test "+user, broker.Credentials{User: user, Password: user + "-pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func subscribe(t *testing.T, nc *nats.Conn, subject string) *nats.Subscription {
	t.Helper()
	sub, err := nc.SubscribeSync(subject)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil { // the server has it, and its shadows
		t.Fatal(err)
	}
	return sub
}

func publish(t *testing.T, nc *nats.Conn, subject string, n int) {
	t.Helper()
	for range n {
		if err := nc.Publish(subject, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// receive takes n messages, so the server has delivered (and counted) them.
func receive(t *testing.T, sub *nats.Subscription, n int) {
	t.Helper()
	for i := range n {
		if _, err := sub.NextMsg(10 * time.Second); err != nil {
			t.Fatalf("%s: message %d of %d: %v", sub.Subject, i+1, n, err)
		}
	}
}

func subOf(t *testing.T, subs []server.SubDetail, cid uint64, subject string) server.SubDetail {
	t.Helper()
	i := slices.IndexFunc(subs, func(sd server.SubDetail) bool { return sd.Cid == cid && sd.Subject == subject })
	if i < 0 {
		t.Fatalf("no subscription of client %d on %s in %+v", cid, subject, subs)
	}
	return subs[i]
}

func TestAccountSubscriptionsSplitStreamImportShadows(t *testing.T) {
	s := brokertest.Start(t, brokertest.WithoutJetStream())
	if err := s.Configure(tradingConf); err != nil {
		t.Fatal(err)
	}
	audit, shop := connectAs(t, s, "audit"), connectAs(t, s, "shop")
	all := subscribe(t, audit, "shop.orders.>")    // the import feeds all of it
	news := subscribe(t, audit, "shop.orders.new") // and part of it
	own := subscribe(t, audit, "audit.>")          // nothing of it
	mine := subscribe(t, shop, "orders.>")         // SHOP's own subscriber

	publish(t, shop, "orders.new", 3)         // in SHOP: crosses into AUDIT
	publish(t, audit, "shop.orders.local", 1) // in AUDIT itself: crosses nothing
	publish(t, audit, "audit.note", 2)
	receive(t, all, 4)
	receive(t, news, 3)
	receive(t, own, 2)
	receive(t, mine, 3)

	subs, err := s.Monitor().AccountSubscriptions()
	if err != nil {
		t.Fatal(err)
	}
	acid, err := audit.GetClientID()
	if err != nil {
		t.Fatal(err)
	}
	scid, err := shop.GetClientID()
	if err != nil {
		t.Fatal(err)
	}

	// Each subscription of AUDIT's is AUDIT's, once, counting what reached
	// it inside AUDIT.
	var auditsAnywhere int
	for acc, list := range subs.Own {
		for _, sd := range list {
			if sd.Cid == acid {
				auditsAnywhere++
				if acc != "AUDIT" || sd.Account != "AUDIT" {
					t.Errorf("audit's %s (sid %s) is listed as %s's own, with account %s", sd.Subject, sd.Sid, acc, sd.Account)
				}
			}
		}
	}
	if auditsAnywhere != 3 {
		t.Errorf("audit's 3 subscriptions are listed %d times among the accounts' own", auditsAnywhere)
	}
	allSD := subOf(t, subs.Own["AUDIT"], acid, "shop.orders.>")
	newsSD := subOf(t, subs.Own["AUDIT"], acid, "shop.orders.new")
	ownSD := subOf(t, subs.Own["AUDIT"], acid, "audit.>")
	if allSD.Msgs != 1 || newsSD.Msgs != 0 || ownSD.Msgs != 2 {
		t.Errorf("inside AUDIT: shop.orders.> got %d (want 1), shop.orders.new %d (want 0), audit.> %d (want 2)", allSD.Msgs, newsSD.Msgs, ownSD.Msgs)
	}
	if sd := subOf(t, subs.Own["SHOP"], scid, "orders.>"); sd.Msgs != 3 || sd.Account != "SHOP" {
		t.Errorf("SHOP's own orders.> shows %d of account %s, want 3 of SHOP", sd.Msgs, sd.Account)
	}
	for acc, list := range subs.Own {
		for _, sd := range list {
			if sd.Account != acc {
				t.Errorf("%s lists a subscription of account %s on %s as its own", acc, sd.Account, sd.Subject)
			}
		}
	}

	// The shadows stand apart: one for each subscription the import feeds,
	// on SHOP's side of the subject, counting what crossed.
	want := []broker.Shadow{
		{Importer: "AUDIT", Exporter: "SHOP", Import: "orders.>", Cid: acid, Sid: allSD.Sid, Subject: "orders.>", Msgs: 3},
		{Importer: "AUDIT", Exporter: "SHOP", Import: "orders.>", Cid: acid, Sid: newsSD.Sid, Subject: "orders.new", Msgs: 3},
	}
	if !slices.Equal(subs.Shadows, want) {
		t.Fatalf("shadows:\n got %+v\nwant %+v", subs.Shadows, want)
	}
	if got := subs.Imported(acid, allSD.Sid); !slices.Equal(got, want[:1]) {
		t.Errorf("Imported(audit's shop.orders.>) = %+v, want %+v", got, want[:1])
	}
	if got := subs.Imported(acid, ownSD.Sid); len(got) != 0 {
		t.Errorf("Imported(audit's audit.>) = %+v, want none: the import feeds none of it", got)
	}
	if got := subs.Of("AUDIT", "SHOP", "orders.>"); !slices.Equal(got, want) {
		t.Errorf("Of(AUDIT's import of orders.> from SHOP) = %+v, want %+v", got, want)
	}
	if got := subs.Of("SHOP", "AUDIT", "orders.>"); len(got) != 0 {
		t.Errorf("Of(an import SHOP does not have) = %+v", got)
	}

	// Named accounts only: a shadow is listed with its exporter.
	if only, err := s.Monitor().AccountSubscriptions("AUDIT"); err != nil || len(only.Own) != 1 || len(only.Own["AUDIT"]) != len(subs.Own["AUDIT"]) || len(only.Shadows) != 0 {
		t.Errorf("AUDIT alone: %+v, %v; want AUDIT's own and no shadow (they are in SHOP)", only, err)
	}
	if only, err := s.Monitor().AccountSubscriptions("SHOP"); err != nil || len(only.Own) != 1 || !slices.Equal(only.Shadows, want) {
		t.Errorf("SHOP alone: %+v, %v; want SHOP's own and AUDIT's shadows", only, err)
	}

	// When the subscription ends, so does its shadow.
	if err := all.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if err := audit.Flush(); err != nil {
		t.Fatal(err)
	}
	if subs, err = s.Monitor().AccountSubscriptions(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(subs.Shadows, want[1:]) {
		t.Fatalf("after shop.orders.> ended, shadows:\n got %+v\nwant %+v", subs.Shadows, want[1:])
	}
}

// Listeners counts every subscription a message would reach, wildcards
// above the subject included, where the server's cheap Interest counts
// only the first level one matches at; Subscriptions moves as they come
// and go.
func TestListenersCountsEverySubscriptionAMessageReaches(t *testing.T) {
	s := brokertest.Start(t, brokertest.InProcessOnly())
	m := s.Monitor()
	before := m.Subscriptions()
	nc := brokertest.Connect(t, s, "listeners")
	for _, subj := range []string{"orders.>", "orders.*", "orders.new", "other.new"} {
		if _, err := nc.SubscribeSync(subj); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nc.QueueSubscribeSync("orders.new", "workers"); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := m.Listeners("orders.new"); got != 4 {
		t.Errorf("orders.new reaches %d subscriptions, want 4 (orders.>, orders.*, orders.new and its queue group's)", got)
	}
	if got := m.Interest("orders.new"); got < 1 || got > 4 {
		t.Errorf("Interest(orders.new) = %d: at least one, at most every one", got)
	}
	if got := m.Listeners("nobody.here"); got != 0 {
		t.Errorf("nobody.here reaches %d subscriptions", got)
	}
	if got := m.Subscriptions() - before; got != 5 {
		t.Errorf("the account has %d more subscriptions, want 5", got)
	}
}
