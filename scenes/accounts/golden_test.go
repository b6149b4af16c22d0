package accounts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"gopkg.in/yaml.v3"

	"natslab/assets"
	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// lessonConfig is the configuration lesson 26 (accounts) starts with.
func lessonConfig(t testing.TB) string {
	t.Helper()
	raw, err := assets.Episodes.ReadFile("episodes/26-accounts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ep struct {
		Scene string
		Start struct{ Config string }
	}
	if err := yaml.Unmarshal(raw, &ep); err != nil {
		t.Fatal(err)
	}
	if ep.Scene != spec.Name || ep.Start.Config == "" {
		t.Fatalf("lesson 26 opens scene %q with config %q; want this scene and the lesson's accounts", ep.Scene, ep.Start.Config)
	}
	return ep.Start.Config
}

type harness struct {
	*kittest.Harness[*Scene, Snapshot]
	srv *broker.Server
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	if err := srv.Configure(lessonConfig(t)); err != nil {
		t.Fatal(err)
	}
	kh := kittest.Open(t, srv, func(env scenes.Env) (*Scene, error) { return open(env, 0) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FollowCommands(), kittest.FitsThePanes())
	return &harness{Harness: kh, srv: srv}
}

// Settle kicks the driver into looks until the scene shows cond: the
// driver looks only when kicked, so what one look sees is the test's
// doing, and the pictures are the same every run.
func (h *harness) Settle(what string, cond func(Snapshot) bool) {
	h.T.Helper()
	h.Harness.Settle(what, func(s Snapshot) bool {
		if cond(s) {
			return true
		}
		h.Scene.d.Kick()
		return false
	})
}

// as connects as one of the lesson's users, over TCP as the lesson's
// clients do.
func (h *harness) as(t testing.TB, user string) *nats.Conn {
	t.Helper()
	nc, err := h.srv.ConnectAs("test "+user, broker.Credentials{User: user, Password: user + "-pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// looked waits until the driver has looked at the server entirely after
// this call (a look under way may have begun before), and the scene has
// applied what it saw.
func (h *harness) looked() {
	h.T.Helper()
	n := h.Scene.d.Snapshot().Looks
	h.Until("two more looks", func(Snapshot) bool {
		h.Scene.d.Kick()
		return h.Scene.d.Snapshot().Looks >= n+2
	})
	h.CatchUp()
}

// atOnce does f with the driver kept from looking, so that one look sees
// all f did: the story and the numbering of a golden do not depend on
// when a look fell.
func (h *harness) atOnce(f func()) {
	h.Scene.d.hold.Lock()
	defer h.Scene.d.hold.Unlock()
	f()
}

func flush(t testing.TB, nc *nats.Conn) {
	t.Helper()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

func sub(s Snapshot, account, subject string) (Sub, bool) {
	a, ok := s.Account(account)
	if !ok {
		return Sub{}, false
	}
	for _, c := range a.Clients {
		for _, sb := range c.Subs {
			if sb.Subject == subject {
				return sb, true
			}
		}
	}
	return Sub{}, false
}

// The lesson's three steps, done for real: the scene shows each account,
// what crosses and what stays.
func TestGoldenLesson(t *testing.T) {
	h := newHarness(t)
	const w, ht = 68, 12 // the scene pane beside a lesson in a 120x40 terminal
	h.Settle("the lesson's accounts", func(s Snapshot) bool { return len(s.Accounts) == 2 && len(s.Links) == 2 })
	if s := h.snap(); s.Accounts[0].Name != "SHOP" || s.Accounts[1].Name != "AUDIT" {
		t.Fatalf("the exporter is not first: %+v", s.Accounts)
	}
	h.Golden(t, "1-accounts", w, ht)

	// Step 1: audit listens on orders.>, shop publishes on orders.new.
	audit, shop := h.as(t, "audit"), h.as(t, "shop")
	if _, err := audit.SubscribeSync("orders.>"); err != nil {
		t.Fatal(err)
	}
	flush(t, audit)
	h.Settle("audit's subscription", func(s Snapshot) bool { _, ok := sub(s, "AUDIT", "orders.>"); return ok })
	if err := shop.Publish("orders.new", []byte("order 1")); err != nil {
		t.Fatal(err)
	}
	flush(t, shop) // the server has handled the publish, delivery and all
	h.Settle("shop's publish", func(s Snapshot) bool { a, _ := s.Account("SHOP"); return a.Published == 1 })
	h.looked()
	s := h.snap()
	if got, _ := sub(s, "AUDIT", "orders.>"); got.Msgs != 0 || got.From != "" {
		t.Fatalf("audit's orders.> got %d from %q: SHOP's orders.new is not AUDIT's", got.Msgs, got.From)
	}
	if l, _ := s.Link("stream", "AUDIT"); l.Crossed != 0 || l.Subscribers != 0 {
		t.Fatalf("the stream import carried %d to %d subscribers with no one on shop.orders.>", l.Crossed, l.Subscribers)
	}
	if !strings.Contains(strings.ReplaceAll(s.Story, text.NoBreak, " "), "1 message published in SHOP stayed there and reached no one") {
		t.Fatalf("the story does not say the order stayed in SHOP: %q", s.Story)
	}
	h.Golden(t, "2-stays-in-shop", w, ht)
	h.GoldenPanes(t, "2-stays-in-shop")
	h.Clock.Advance(stayLeg + fadeFor/2)
	h.Golden(t, "3-fading-in-shop", w, ht)

	// Step 2: through the import.
	imported, err := audit.SubscribeSync("shop.orders.>")
	if err != nil {
		t.Fatal(err)
	}
	flush(t, audit)
	h.Settle("the import's subscriber", func(s Snapshot) bool { l, _ := s.Link("stream", "AUDIT"); return l.Subscribers == 1 })
	h.atOnce(func() {
		for range 2 {
			if err := shop.Publish("orders.new", []byte("order 2")); err != nil {
				t.Fatal(err)
			}
		}
		flush(t, shop)
	})
	h.Settle("two orders across", func(s Snapshot) bool { l, _ := s.Link("stream", "AUDIT"); return l.Crossed == 2 })
	h.looked()
	s = h.snap()
	if got, _ := sub(s, "AUDIT", "shop.orders.>"); got.Msgs != 2 || got.From != "SHOP" {
		t.Fatalf("audit's shop.orders.> shows %d from %q, want 2 from SHOP", got.Msgs, got.From)
	}
	if got, _ := sub(s, "AUDIT", "orders.>"); got.Msgs != 0 {
		t.Fatalf("audit's orders.> shows %d: only the import's subject gets SHOP's orders", got.Msgs)
	}
	h.Clock.Advance(crossLeg / 4)
	h.Golden(t, "4-crossing", w, ht)
	h.Clock.Advance(3 * time.Second)

	// audit's own orders.new is AUDIT's: it stays in AUDIT, and reaches
	// audit's orders.>.
	if err := audit.Publish("orders.new", []byte("audit's own")); err != nil {
		t.Fatal(err)
	}
	flush(t, audit)
	h.Settle("audit's own order", func(s Snapshot) bool { got, _ := sub(s, "AUDIT", "orders.>"); return got.Msgs == 1 })
	h.looked()
	if story := strings.ReplaceAll(h.snap().Story, text.NoBreak, " "); !strings.Contains(story, "1 delivery to subscribers in AUDIT, from inside AUDIT") || strings.Contains(story, "crossed") {
		t.Fatalf("the story of audit's own order: %q", story)
	}
	if l, _ := h.snap().Link("stream", "AUDIT"); l.Crossed != 2 {
		t.Fatalf("AUDIT's own publish crossed the import: %d", l.Crossed)
	}
	if a, _ := h.snap().Account("SHOP"); a.Published != 3 {
		t.Fatalf("SHOP published %d, want 3", a.Published)
	}
	h.Clock.Advance(3 * time.Second)

	// Step 3: the service, a request from AUDIT into SHOP and the reply back.
	if _, err := shop.Subscribe("stock.check", func(m *nats.Msg) { _ = m.Respond([]byte("in stock")) }); err != nil {
		t.Fatal(err)
	}
	flush(t, shop)
	h.atOnce(func() {
		if _, err := audit.Request("stock.check", []byte("widget"), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	})
	h.Settle("the request and its reply", func(s Snapshot) bool {
		l, _ := s.Link("service", "AUDIT")
		return l.Crossed == 1 && l.Replies == 1
	})
	h.Clock.Advance(crossLeg / 4)
	h.Golden(t, "5-service", w, ht)
	h.GoldenPanes(t, "5-service")
	h.Clock.Advance(3 * time.Second)
	h.GoldenSizes(t,
		kittest.Size{Name: "118x20", W: 118, H: 20},
		kittest.Size{Name: "60x10", W: 60, H: 10},
		kittest.Size{Name: "50x6-list", W: 50, H: 6},
		kittest.Size{Name: "40x3-list", W: 40, H: 3},
		kittest.Size{Name: "30x1-line", W: 30, H: 1},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)

	// What crossed stays counted when the subscriber it crossed to leaves.
	if err := imported.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	flush(t, audit)
	h.Settle("the import's subscriber gone", func(s Snapshot) bool { l, _ := s.Link("stream", "AUDIT"); return l.Subscribers == 0 })
	if l, _ := h.snap().Link("stream", "AUDIT"); l.Crossed != 2 {
		t.Fatalf("the stream import shows %d crossed after its subscriber left, want 2", l.Crossed)
	}
}

func (h *harness) snap() Snapshot { return h.Scene.snap }

// With the plain server there is one account, and the scene says so; the
// lesson's configuration restarts the server, and the scene follows.
func TestPlainThenAccounts(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	h := kittest.Open(t, srv, func(env scenes.Env) (*Scene, error) { return New(env) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FollowCommands())
	h.Settle("the plain server", func(s Snapshot) bool { return s.Up && s.Looks > 0 })
	if v := h.View(68, 6); !strings.Contains(v, "shares the global account ($G)") || !strings.Contains(strings.Join(strings.Fields(v), " "), "Lesson accounts runs one") {
		t.Fatalf("the plain server's one account is not explained, with the lesson that shows more:\n%s", v)
	}
	// Where the rows are there (beside the lesson pane at 100x30, at
	// 120x36), the lesson's command stands on a line of its own.
	for _, sz := range append(slices.Clone(scenes.LessonPanes), scenes.PaneSize{W: 68, H: 16}) {
		v := h.View(sz.W, sz.H)
		if !strings.Contains(v, "shares the global account ($G)") || !slices.ContainsFunc(strings.Split(v, "\n"), func(l string) bool { return strings.TrimSpace(l) == "lesson accounts" }) {
			t.Errorf("at %dx%d the plain server's one account is not explained with lesson accounts on its line:\n%s", sz.W, sz.H, v)
		}
	}
	if err := srv.Configure(lessonConfig(t)); err != nil {
		t.Fatal(err)
	}
	h.Settle("the lesson's accounts", func(s Snapshot) bool { return len(s.Accounts) == 2 })
	if v := h.View(68, 12); !strings.Contains(v, "stream orders.>") || !strings.Contains(v, "as shop.orders.>") || !strings.Contains(v, "service stock.check") {
		t.Fatalf("the imports are not drawn:\n%s", v)
	}
}

// A subscriber of AUDIT's own on the service's subject gets the request
// too, but only what the import carried crossed into SHOP.
func TestServiceCountsWhatCrossed(t *testing.T) {
	h := newHarness(t)
	audit, shop := h.as(t, "audit"), h.as(t, "shop")
	if _, err := audit.SubscribeSync("stock.check"); err != nil {
		t.Fatal(err)
	}
	if _, err := shop.Subscribe("stock.check", func(m *nats.Msg) { _ = m.Respond([]byte("in stock")) }); err != nil {
		t.Fatal(err)
	}
	flush(t, audit)
	flush(t, shop)
	if _, err := audit.Request("stock.check", []byte("widget"), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h.Settle("the reply", func(s Snapshot) bool { l, _ := s.Link("service", "AUDIT"); return l.Replies == 1 })
	h.looked()
	s := h.snap()
	if l, _ := s.Link("service", "AUDIT"); l.Crossed != 1 {
		t.Fatalf("%d requests crossed into SHOP, want 1", l.Crossed)
	}
	if own, _ := sub(s, "AUDIT", "stock.check"); own.Msgs != 1 || own.From != "" {
		t.Fatalf("audit's own stock.check shows %d from %q, want 1 of AUDIT's", own.Msgs, own.From)
	}
	if shops, _ := sub(s, "SHOP", "stock.check"); shops.Msgs != 1 {
		t.Fatalf("shop's responder shows %d requests, want 1", shops.Msgs)
	}
}

// The service's arrows count the requests and the replies at every width
// the scene draws them: where "12 replies" does not fit the gap, a
// shorter wording still gives the number.
func TestServiceArrowsCountAtEveryWidth(t *testing.T) {
	h := newHarness(t)
	audit, shop := h.as(t, "audit"), h.as(t, "shop")
	if _, err := shop.Subscribe("stock.check", func(m *nats.Msg) { _ = m.Respond([]byte("in stock")) }); err != nil {
		t.Fatal(err)
	}
	flush(t, shop)
	for range 12 {
		if _, err := audit.Request("stock.check", []byte("widget"), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	h.Settle("twelve replies", func(s Snapshot) bool { l, _ := s.Link("service", "AUDIT"); return l.Crossed == 12 && l.Replies == 12 })
	h.looked()
	h.Clock.Advance(3 * time.Second) // the messages' dots have arrived: the labels read whole
	for _, sz := range []scenes.PaneSize{scenes.LessonPanes[0], {W: 68, H: 12}, {W: 118, H: 20}} {
		v := h.View(sz.W, sz.H)
		if !regexp.MustCompile(`◀─+ 12 req`).MatchString(v) || !regexp.MustCompile(`─ 12 \S+ ─+▶`).MatchString(v) {
			t.Errorf("at %dx%d an arrow of the service does not count what it carried:\n%s", sz.W, sz.H, v)
		}
	}
	h.NeverCut(t, "twelve replies")
}

// Two clients of one user (lesson 26's `sub --user audit` typed twice)
// are told apart in their account's box by their connections' numbers,
// the server's own: both read "● audit".
func TestClientsOfOneUserAreToldApart(t *testing.T) {
	h := newHarness(t)
	for _, subject := range []string{"orders.>", "shop.orders.>"} {
		nc := h.as(t, "audit")
		if _, err := nc.SubscribeSync(subject); err != nil {
			t.Fatal(err)
		}
		flush(t, nc)
	}
	h.Settle("two audit clients", func(s Snapshot) bool { a, ok := s.Account("AUDIT"); return ok && len(a.Clients) == 2 })
	a, _ := h.snap().Account("AUDIT")
	for _, sz := range []scenes.PaneSize{scenes.LessonPanes[0], {W: 68, H: 12}} {
		v := h.View(sz.W, sz.H)
		for _, c := range a.Clients {
			if id := fmt.Sprintf("conn %d", c.Cid); !strings.Contains(v, id) {
				t.Errorf("at %dx%d the audit clients look alike: %s is not shown:\n%s", sz.W, sz.H, id, v)
			}
		}
	}
}
