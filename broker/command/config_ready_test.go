package command_test

import (
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// accountsLine gives the server accounts of its own: nats-server does not
// move clients between accounts on reload, so the lab restarts its server
// for it, and every connection drops and comes back (as the no-auth user,
// into account SHOP).
const accountsLine = `config add accounts { SHOP: { users: [ {user: shop, password: shop-pw} ] } }; no_auth_user: shop`

// A subscriber running as a job has its own connection: config reload
// waits for it to be back too (here, a reload that restarts the server),
// so a core publish straight after it reaches the job.
func TestConfigReloadWaitsForJobsConnections(t *testing.T) {
	l := newLab(t)
	l.must(accountsLine)
	subJobHearsEachPublishAfter(t, l, "config reload")
}

// After a reload that restarts the server, the next JetStream line works
// the first time: the verb returns once JetStream answers again.
func TestConfigReloadReturnsReadyForJetStream(t *testing.T) {
	l := newLab(t)
	l.must(`config add accounts { SHOP: { jetstream: enabled, users: [ {user: shop, password: shop-pw} ] } }; no_auth_user: shop`)
	l.must(`stream add EVENTS --subjects "events.>" --defaults`)
	jetStreamLinesWorkAfter(t, l, "config reload")
}

// A reload in place keeps the clients it still lets in, with its changes
// in effect once it returns: the verb does not wait for them to reconnect
// (they do not), and a publish straight after it is mapped.
func TestConfigReloadKeepsTheClientsItLetsIn(t *testing.T) {
	l := newLab(t)
	j, out := l.background(`sub 'hello.*'`)
	waitReady(t, j)
	r := l.must(`config add mappings {"greet.*": "hello.{{wildcard(1)}}"}`)
	if !strings.Contains(r.out, "Reloaded server configuration") {
		t.Fatalf("config add should print the server's reload lines:\n%s", r.all())
	}
	l.must("pub greet.ann hi")
	l.await("the sub job receiving the mapped publish", func() bool { return j.Received() == 1 })
	if !strings.Contains(out.String(), `Received on "hello.ann"`) {
		t.Fatalf("the publish to greet.ann should arrive on hello.ann:\n%s", out.String())
	}
}

// A client the new configuration no longer lets in (here the lab's own
// clients, which present no user) is disconnected, and nats.go gives up on
// it once the server refuses it again: the verb waits for that and says
// the lab is ready, not that the connection failed to come back.
//
// In-process (--listen none) as over TCP: the pipe has a send buffer like
// a socket, so nats.go reads the server's refusal instead of hanging on a
// CONNECT the server never reads.
func TestConfigReloadOfClientsNoLongerLetIn(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []brokertest.Option
	}{{"tcp", nil}, {"in-process", []brokertest.Option{brokertest.InProcessOnly()}}} {
		t.Run(mode.name, func(t *testing.T) {
			l := newLab(t, mode.opts...)
			j, _ := l.background(`sub 'orders.*'`)
			waitReady(t, j)
			l.must(`config add authorization { users: [ {user: alice, password: alice-pw} ] }`)
			l.fails("pub orders.new hi", "nats: Authorization Violation")
		})
	}
}
