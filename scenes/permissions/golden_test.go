package permissions

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// The users of episode 25 (permissions), each allowed only what its job
// needs.
const lessonConfig = `authorization {
  users: [
    {user: shop, password: shop-pw,
     permissions: {publish: "orders.>", subscribe: "_INBOX.>"}}
    {user: audit, password: audit-pw,
     permissions: {publish: {deny: ">"}, subscribe: "orders.>"}}
    {user: billing, password: billing-pw,
     permissions: {publish: {deny: ">"},
                   subscribe: {allow: "orders.>", deny: "orders.internal.>"}}}
  ]
}
`

type harness struct {
	*kittest.Harness[*Scene, Snapshot]
	srv *broker.Server
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	kh := kittest.Open(t, srv, func(env scenes.Env) (*Scene, error) { return New(env) },
		func(s *Scene) Snapshot { return s.snap }, kittest.FollowCommands(), kittest.FitsThePanes())
	return &harness{Harness: kh, srv: srv}
}

func TestGoldenLesson(t *testing.T) {
	h := newHarness(t)
	const w, ht = 68, 12 // the scene pane beside a lesson in a 120x40 terminal
	h.Settle("plain server", func(s Snapshot) bool { return !s.Configured && len(s.Users) == 0 })
	h.Golden(t, "1-plain", w, ht)
	h.wholeAtThePanes(t, "a plain server", "lesson permissions")

	if err := h.srv.Configure(lessonConfig); err != nil {
		t.Fatal(err)
	}
	h.Settle("the lesson's users", func(s Snapshot) bool { return s.Configured && len(s.Users) == 3 })
	h.Golden(t, "2-users", w, ht)
	h.wholeAtThePanes(t, "the lesson's users", `not orders\.internal\.>`)

	// A client with no user is turned away at the door.
	if nc, err := h.srv.ConnectAs("nobody", broker.Credentials{}); err == nil {
		nc.Close()
		t.Fatal("a client without a user got in")
	}
	h.Settle("login refused", func(s Snapshot) bool { return s.Logins == 1 })

	// audit may publish nothing: the server refuses its publish.
	nc, err := h.srv.ConnectAs("audit", broker.Credentials{User: "audit", Password: "audit-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish("orders.new", []byte("fake order")); err != nil {
		t.Fatal(err)
	}
	h.Settle("publish refused", func(s Snapshot) bool {
		r := s.Refusals[len(s.Refusals)-1]
		return s.Total == 2 && r.What == "publish" && r.User == "audit" && r.Subject == "orders.new"
	})
	view := h.View(w, ht)
	if !strings.Contains(view, "✗ #2 audit publishing to orders.new") {
		t.Fatalf("the refused publish is not on screen:\n%s", view)
	}
	h.Golden(t, "3-publish-refused", w, ht)

	// billing may read orders, but not the internal ones.
	bc, err := h.srv.ConnectAs("billing", broker.Credentials{User: "billing", Password: "billing-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	if _, err := bc.SubscribeSync("orders.internal.>"); err != nil {
		t.Fatal(err)
	}
	h.Settle("subscription refused", func(s Snapshot) bool {
		r := s.Refusals[len(s.Refusals)-1]
		return s.Total == 3 && r.What == "subscribe" && r.User == "billing" && r.Subject == "orders.internal.>"
	})
	h.Golden(t, "4-subscription-refused", w, ht)
	h.Clock.Advance(3 * time.Second)
	h.Golden(t, "5-settled", w, ht)
	h.wholeAtThePanes(t, "three refusals", `not orders\.internal\.>`, `#3 billing.* orders\.internal\.>`)

	h.GoldenSizes(t,
		kittest.Size{Name: "118x20", W: 118, H: 20},
		kittest.Size{Name: "44x7-beside-the-lesson-at-80x24", W: 44, H: 7},
		kittest.Size{Name: "50x6", W: 50, H: 6},
		kittest.Size{Name: "40x3-compact", W: 40, H: 3},
		kittest.Size{Name: "30x1-line", W: 30, H: 1},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)

	h.Do("clear")
	h.Settle("cleared", func(s Snapshot) bool { return s.Total == 0 && len(s.Refusals) == 0 })
}

// wholeAtThePanes fails where the scene, at a size the lab's scene pane
// has at 80x24 or beside the lesson at 100x30, leaves out any of musts, or
// ends a row with " …" (musts are regular expressions): the table drops no word of a permission (billing's
// "not orders.internal.>" is what lesson 25 is about), and the newest
// refusal names its subject.
func (h *harness) wholeAtThePanes(t *testing.T, stage string, musts ...string) {
	t.Helper()
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.View(sz.W, sz.H)
		for _, m := range musts {
			if !regexp.MustCompile(m).MatchString(v) {
				t.Errorf("%s at %dx%d: %q is not on screen:\n%s", stage, sz.W, sz.H, m, v)
			}
		}
		if strings.Contains(v, " …") {
			t.Errorf("%s at %dx%d: words left out (\" …\"):\n%s", stage, sz.W, sz.H, v)
		}
	}
}

// Users of accounts are named with their account; the server restarts for
// them, and the scene reads the new configuration all the same.
func TestAccountsUsers(t *testing.T) {
	h := newHarness(t)
	if err := h.srv.Configure(lessonConfig); err != nil {
		t.Fatal(err)
	}
	h.Settle("the lesson's users", func(s Snapshot) bool { return len(s.Users) == 3 })
	if err := h.srv.Configure("accounts {\n  SHOP: { users: [ {user: shop, password: shop-pw} ] }\n  AUDIT: { users: [ {user: audit, password: audit-pw, permissions: {publish: {deny: \">\"}}} ] }\n}\n"); err != nil {
		t.Fatal(err)
	}
	h.Settle("the accounts' users", func(s Snapshot) bool {
		return len(s.Users) == 2 && s.Users[0].Account == "AUDIT" && s.Users[1].Account == "SHOP"
	})
	if view := h.View(80, 8); !strings.Contains(view, "audit (AUDIT)  nothing") {
		t.Fatalf("the account's user is not on screen:\n%s", view)
	}
}
