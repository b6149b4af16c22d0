package broker_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"natslab/broker"
	"natslab/broker/brokertest"
)

const usersConf = `authorization {
  users: [
    {user: alice, password: alice-pw, permissions: {publish: "orders.>", subscribe: "_INBOX.>"}}
    {user: bob, password: bob-pw, permissions: {publish: {deny: ">"}, subscribe: "orders.>"}}
  ]
}
`

// asyncErrors collects a connection's asynchronous errors (permission
// violations arrive that way).
func asyncErrors() (nats.Option, chan error) {
	ch := make(chan error, 16)
	return nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case ch <- err:
		default:
		}
	}), ch
}

func TestConfigureUsersAndPermissionsAreTheServersOwn(t *testing.T) {
	s := brokertest.Start(t)
	if err := s.Configure(usersConf); err != nil {
		t.Fatal(err)
	}

	// The lab's own connection gets in: its nkey user.
	lab := brokertest.Connect(t, s, "lab")
	if !lab.IsConnected() {
		t.Fatal("the lab's own connection should get in")
	}

	// A client presenting nothing, or a wrong password, is refused.
	if _, err := s.ConnectAs("nobody", broker.Credentials{}); err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Fatalf("no credentials: want Authorization Violation, got %v", err)
	}
	if _, err := s.ConnectAs("wrong", broker.Credentials{User: "alice", Password: "nope"}); err == nil || !strings.Contains(err.Error(), "Authorization Violation") {
		t.Fatalf("wrong password: want Authorization Violation, got %v", err)
	}

	// bob may read orders.> but publish nothing; alice may publish orders.>.
	bobErrs, bobCh := asyncErrors()
	bob, err := s.ConnectAs("bob", broker.Credentials{User: "bob", Password: "bob-pw"}, bobErrs)
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	sub, err := bob.SubscribeSync("orders.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := bob.Flush(); err != nil {
		t.Fatal(err)
	}
	aliceErrs, aliceCh := asyncErrors()
	alice, err := s.ConnectAs("alice", broker.Credentials{User: "alice", Password: "alice-pw"}, aliceErrs)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	if err := alice.Publish("orders.new", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(5 * time.Second); err != nil || string(m.Data) != "1" {
		t.Fatalf("bob should read alice's order: %v", err)
	}

	// What a client sees of a refusal is an asynchronous error.
	if err := alice.Publish("billing.x", nil); err != nil {
		t.Fatal(err)
	}
	alice.Flush()
	select {
	case err := <-aliceCh:
		if !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), `Permissions Violation for Publish to "billing.x"`) {
			t.Fatalf("alice publishing billing.x: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("alice got no permissions violation for billing.x")
	}
	if err := bob.Publish("orders.new", nil); err != nil {
		t.Fatal(err)
	}
	bob.Flush()
	select {
	case err := <-bobCh:
		if !strings.Contains(err.Error(), `Permissions Violation for Publish to "orders.new"`) {
			t.Fatalf("bob publishing: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("bob got no permissions violation")
	}

	// The configuration shown is the file, and discloses the lab's user
	// by its public key only.
	path, text := s.Config()
	if !strings.HasSuffix(path, "nats.conf") || !strings.Contains(text, "alice-pw") || !strings.Contains(text, `include "lab.conf"`) {
		t.Fatalf("Config() = %q:\n%s", path, text)
	}
	if !strings.Contains(text, "natslab adds one user of its own") || !strings.Contains(text, "nkey: U") {
		t.Fatalf("the lab's own user is not disclosed:\n%s", text)
	}
	if seeds := seedsIn(text); len(seeds) > 0 {
		t.Fatalf("the configuration shows a seed %q:\n%s", seeds, text)
	}
}

// seedsIn returns the words of text that are nkey seeds: the words nkeys
// itself decodes as one (the right prefix, length and checksum), so a
// public key that happens to contain "SU" is not taken for a seed.
func seedsIn(text string) []string {
	var seeds []string
	for _, word := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7')
	}) {
		if _, err := nkeys.FromSeed([]byte(word)); err == nil {
			seeds = append(seeds, word)
		}
	}
	return seeds
}

// TestSeedsInFindsASeedAndNothingElse checks the check above: a user's
// seed in a configuration is found, its public key and the words around
// it are not.
func TestSeedsInFindsASeedAndNothingElse(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := user.Seed()
	public, _ := user.PublicKey()
	text := "# only natslab holds its seed:\n#   nkey: " + public + "\n"
	if got := seedsIn(text); len(got) != 0 {
		t.Fatalf("seedsIn(%q) = %q, want none", text, got)
	}
	text += "    {nkey: " + public + ", seed: \"" + string(seed) + "\"}\n"
	if got := seedsIn(text); len(got) != 1 || got[0] != string(seed) {
		t.Fatalf("seedsIn(%q) = %q, want the seed %s", text, got, seed)
	}
}

// reconnected returns a channel that gets a value each time nc reconnects.
func reconnected(nc *nats.Conn) chan struct{} {
	ch := make(chan struct{}, 4)
	nc.SetReconnectHandler(func(*nats.Conn) { ch <- struct{}{} })
	return ch
}

func waitReconnect(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not reconnect")
	}
}

func TestConfigureReloadsMappingsOnTheRunningServer(t *testing.T) {
	s := brokertest.Start(t)
	nc := brokertest.Connect(t, s, "client")
	back := reconnected(nc)
	boot := s.Monitor().ID()
	if err := s.Configure(`mappings: {"greet.*": "hello.{{wildcard(1)}}"}`); err != nil {
		t.Fatal(err)
	}
	// The lab's own connections present an nkey that a server requiring
	// no users does not know: a reload that rebuilds the global account
	// takes them for clients moved to another account and closes them,
	// and they reconnect. (Clients presenting nothing stay connected.)
	waitReconnect(t, back)
	maps, err := s.Monitor().Mappings()
	if err != nil {
		t.Fatal(err)
	}
	if d := maps["greet.*"]; len(d) != 1 || d[0].Subject != "hello.{{wildcard(1)}}" || d[0].Weight != 100 {
		t.Fatalf("the server's mappings: %+v", maps)
	}
	sub, err := nc.SubscribeSync("hello.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("greet.joe", nil); err != nil {
		t.Fatal(err)
	}
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil || m.Subject != "hello.joe" {
		t.Fatalf("greet.joe should arrive as hello.joe: %v %v", m, err)
	}

	// A changed mapping is a reload of the same server, not a restart.
	if err := s.Configure(`mappings: {"greet.*": "hello.{{wildcard(1)}}.again"}`); err != nil {
		t.Fatal(err)
	}
	waitReconnect(t, back)
	if s.Monitor().ID() != boot {
		t.Fatal("a reload should not restart the server")
	}
	if err := nc.Publish("greet.ann", nil); err != nil {
		t.Fatal(err)
	}
	if m, err = sub.NextMsg(5 * time.Second); err != nil || m.Subject != "hello.ann.again" {
		t.Fatalf("after reload greet.ann should arrive as hello.ann.again: %v %v", m, err)
	}

	// Without the configuration, the subject stays as published: the lab
	// starts its plain server again (nats-server's reload of a file without
	// mappings would keep the global account's old ones).
	if err := s.Configure(""); err != nil {
		t.Fatal(err)
	}
	waitReconnect(t, back)
	if path, text := s.Config(); path != "" || strings.Contains(text, "mappings") {
		t.Fatalf("back to plain, Config() = %q, %q", path, text)
	}
	direct, err := nc.SubscribeSync("greet.>")
	if err != nil {
		t.Fatal(err)
	}
	nc.Publish("greet.bo", nil)
	if m, err = direct.NextMsg(5 * time.Second); err != nil || m.Subject != "greet.bo" {
		t.Fatalf("unmapped, greet.bo should stay greet.bo: %v %v", m, err)
	}
}

func TestConfigureRefusesWhatDoesNotParseAndChangesNothing(t *testing.T) {
	s := brokertest.Start(t)
	if err := s.Configure(`mappings: {"greet.*": "hello.{{wildcard(1)}}"}`); err != nil {
		t.Fatal(err)
	}
	_, before := s.Config()
	err := s.Configure("authorization {\n  users: [ {user: alice password: \n")
	if err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Fatalf("want a parse error, got %v", err)
	}
	if _, after := s.Config(); after != before {
		t.Fatalf("a refused configuration changed it:\n%s", after)
	}
	if err := s.ReloadConfig(); err != nil {
		t.Fatalf("the file on disk should be the previous one: %v", err)
	}
}

func TestConfigureKeepsNatslabsTokenWhenTheLessonNamesNoUsers(t *testing.T) {
	s := brokertest.Start(t, brokertest.WithToken("lab-token"))
	if err := s.Configure(`mappings: {"a": "b"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ConnectAs("stranger", broker.Credentials{}); err == nil {
		t.Fatal("a lab started with --token should stay closed to clients without it")
	}
	nc, err := s.ConnectAs("client", s.Credentials())
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	brokertest.Connect(t, s, "lab")
	if _, text := s.Config(); strings.Contains(text, "lab-token") {
		t.Fatalf("the configuration shows natslab's token:\n%s", text)
	}
}

func TestEachAreaKeepsItsOwnConfiguration(t *testing.T) {
	s := brokertest.Start(t)
	if err := s.Configure(usersConf); err != nil {
		t.Fatal(err)
	}
	if err := s.UseArea("other", true, true); err != nil {
		t.Fatal(err)
	}
	nc, err := s.ConnectAs("anyone", broker.Credentials{})
	if err != nil {
		t.Fatalf("another area runs the lab's plain server: %v", err)
	}
	nc.Close()

	// Back in the first area, its file is read again, as a nats-server
	// started with it would.
	if err := s.UseArea("", true, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ConnectAs("anyone", broker.Credentials{}); err == nil {
		t.Fatal("back in the configured area, a client without credentials should be refused")
	}
	if path, _ := s.Config(); path == "" {
		t.Fatal("the area's configuration file should be back")
	}
}

func TestConfigureAccountsIsolateAndCount(t *testing.T) {
	s := brokertest.Start(t)
	boot := s.Monitor().ID()
	if err := s.Configure(`accounts { SHOP: { users: [ {user: shop, password: shop-pw} ] }, AUDIT: { users: [ {user: audit, password: audit-pw} ] } }`); err != nil {
		t.Fatal(err)
	}
	if s.Monitor().ID() == boot {
		t.Fatal("accounts added should restart the server")
	}
	audit, err := s.ConnectAs("audit", broker.Credentials{User: "audit", Password: "audit-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	sub, err := audit.SubscribeSync("orders.>")
	if err != nil {
		t.Fatal(err)
	}
	audit.Flush()
	shop, err := s.ConnectAs("shop", broker.Credentials{User: "shop", Password: "shop-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer shop.Close()
	shop.Publish("orders.new", nil)
	shop.Flush()
	if st, ok, err := s.Monitor().Account("SHOP"); err != nil || !ok || st.Published != 1 || st.Conns != 1 {
		t.Fatalf("SHOP: %+v %v %v", st, ok, err)
	}
	if _, ok, _ := s.Monitor().Account("NOPE"); ok {
		t.Fatal("an account that does not exist was found")
	}
	if _, err := sub.NextMsg(100 * time.Millisecond); err == nil {
		t.Fatal("a message crossed from SHOP to AUDIT without an export")
	}
}
