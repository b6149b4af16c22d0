package episode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Claims of Part VIII that the lab's commands cannot show.

func TestClaimTokenAndUsersListAreRefusedTogether(t *testing.T) {
	claimIn(t, "permissions", "nats-server refuses a token and a users list in the same block.")
	conf := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(conf, []byte("authorization {\n  token: s3cret\n  users: [ {user: a, password: b} ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := server.ProcessConfigFile(conf)
	if err == nil || !strings.Contains(err.Error(), "Can not have a token and a users array") {
		t.Fatalf("want nats-server's refusal, got %v", err)
	}
}

func TestClaimAPermissionsViolationKeepsTheConnection(t *testing.T) {
	claimIn(t, "permissions", "The connection stays open: a client that ignores its errors never learns its messages went nowhere.")
	s := startNATS(t, func(o *server.Options) {
		o.Users = []*server.User{{Username: "audit", Password: "audit-pw", Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Deny: []string{">"}},
			Subscribe: &server.SubjectPermission{Allow: []string{"orders.>"}},
		}}, {Username: "shop", Password: "shop-pw"}}
	})
	violations := make(chan error, 4)
	nc := connect(t, s, nats.UserInfo("audit", "audit-pw"), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		violations <- err
	}))
	sub, err := nc.SubscribeSync("orders.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("orders.new", []byte("fake order")); err != nil {
		t.Fatalf("the publish itself returns no error: %v", err)
	}
	select {
	case err := <-violations:
		if !strings.Contains(err.Error(), `Permissions Violation for Publish to "orders.new"`) {
			t.Fatalf("violation: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no permissions violation came")
	}
	if err := nc.Flush(); err != nil || !nc.IsConnected() {
		t.Fatalf("the connection should stay open: %v", err)
	}
	// The flush above returned once the server had dealt with the refused
	// publish, so a sentinel shop publishes now comes after anything it
	// could have delivered.
	shop := connect(t, s, nats.UserInfo("shop", "shop-pw"))
	if got := before(t, shop, sub, "orders.sentinel"); len(got) > 0 {
		t.Fatalf("the refused message reached a subscriber: %v", got)
	}
}

func TestClaimAMappingReloadKeepsClientsConnected(t *testing.T) {
	claimIn(t, "subject-mapping", "Connected clients stay connected, and the mapping applies to what they publish from now on.")
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	write := func(text string) {
		if err := os.WriteFile(conf, []byte("host: 127.0.0.1\nport: -1\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoSigs = true
	s := startNATS(t, func(o *server.Options) { *o = *opts })
	nc := connect(t, s)
	sub, err := nc.SubscribeSync("jobs.>")
	if err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	write(`mappings { "jobs.*": "jobs.{{partition(3,1)}}.{{wildcard(1)}}" }` + "\n")
	if err := s.Reload(); err != nil { // nats-server --signal reload
		t.Fatal(err)
	}
	if err := nc.Publish("jobs.7", nil); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(5 * time.Second); err != nil || m.Subject != "jobs.0.7" {
		t.Fatalf("after the reload: %v %v", m, err)
	}
	if st := nc.Stats(); st.Reconnects != 0 {
		t.Fatalf("the client reconnected %d times", st.Reconnects)
	}
}
