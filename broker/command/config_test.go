package command_test

import (
	"strings"
	"testing"
)

const usersLine = `config add authorization { users: [ {user: alice, password: alice-pw, permissions: {publish: "orders.>", subscribe: "_INBOX.>"}}, {user: bob, password: bob-pw, permissions: {publish: {deny: ">"}, subscribe: "orders.>"}} ] }`

func TestConfigShowsAddsAndReloadsLikeNatsServer(t *testing.T) {
	l := newLab(t)
	plain := l.must("config")
	if !strings.Contains(plain.out, "no configuration file") || !strings.Contains(plain.out, "jetstream {") {
		t.Fatalf("config before any lesson config:\n%s", plain.out)
	}
	added := l.must(usersLine)
	if !strings.Contains(added.out, "[INF] Reloaded server configuration") {
		t.Fatalf("config add should print the server's reload lines:\n%s", added.all())
	}
	shown := l.must("config")
	if !strings.Contains(shown.out, "nats.conf\n") || !strings.Contains(shown.out, "user: alice") || !strings.Contains(shown.out, "nkey: U") {
		t.Fatalf("config after add:\n%s", shown.out)
	}

	// The session is a client like any other: without credentials, the
	// real CLI's error line.
	l.fails("pub orders.new hi", "nats: Authorization Violation")
	// With them, the real CLI runs as that user.
	if r := l.must("pub --user alice --password alice-pw orders.new hi"); !strings.Contains(r.all(), `Published 2 bytes to "orders.new"`) {
		t.Fatalf("alice publishing orders.new:\n%s", r.all())
	}
	r := l.run("pub --user bob --password bob-pw orders.new hi")
	if r.e == nil || !strings.Contains(r.all(), `Permissions Violation for Publish to "orders.new"`) {
		t.Fatalf("bob publishing orders.new should be refused:\n%s", r.all())
	}

	// A mistake in the text changes nothing, and says where it is.
	l.fails(`config add mappings { "a": `, "does not parse")
	if again := l.must("config"); again.out != shown.out {
		t.Fatalf("a refused add changed the configuration:\n%s", again.out)
	}
	l.must("config reload")
	l.fails("config frob", "config takes reload, add TEXT")
}
