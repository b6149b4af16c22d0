package command_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/brokertest"
)

// The leaf verb: start and stop the lab's leaf node, and run nats commands
// as its clients with the real CLI; messages cross between the leaf's
// clients and the lab's server's.
func TestLeafVerbStartsRunsAndStops(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.fails("leaf", "leaf needs a sub-command")
	l.fails("leaf sub greet", "the leaf node is not running")
	if out := l.must("leaf status").out; !strings.Contains(out, "Leaf node leaf is not running") {
		t.Errorf("leaf status before start:\n%s", out)
	}
	r := l.must("leaf start")
	wantLines(t, "leaf start", r.out, "The lab's server restarted to accept leaf nodes on 127.0.0.1:", "Leaf node leaf joined the lab's server")
	wantLines(t, "leaf start notes", r.note, "leafnodes { port: … }", "leaf COMMAND runs a nats command there")
	if r := l.must("leaf status"); !strings.Contains(r.out, "running and joined") || !strings.Contains(r.out, "Clients connect to nats://127.0.0.1:") {
		t.Errorf("leaf status:\n%s", r.out)
	}
	l.fails("leaf start", "running already")
	l.fails("leaf sub greet --server nats://127.0.0.1:4222", "drop --server")
	l.fails("leaf bogus", `"bogus" is none`)

	sub, subOut := l.background("leaf sub greet")
	l.await("the leaf's subscriber", func() bool { return strings.Contains(subOut.String(), "Subscribing on greet") })
	eventually(t, "the leaf's interest on the lab's server", func() bool { return l.srv.Monitor().Interest("greet") > 0 })
	l.must(`pub greet "hello leaf"`)
	l.await("the message on the leaf", func() bool { return strings.Contains(subOut.String(), "hello leaf") })

	hub, hubOut := l.background(`sub "hub.>"`)
	l.await("the hub's subscriber", func() bool { return strings.Contains(hubOut.String(), "Subscribing on hub.>") })
	eventually(t, "the hub's interest on the leaf", func() bool { m := l.srv.Leaf().Monitor(); return m != nil && m.Interest("hub.news") > 0 })
	if r := l.must(`leaf pub hub.news "from the leaf"`); !strings.Contains(r.err+r.out, `Published 13 bytes to "hub.news"`) {
		t.Errorf("leaf pub:\n%s", r.all())
	}
	l.await("the leaf's message on the lab's server", func() bool { return strings.Contains(hubOut.String(), "from the leaf") })

	r = l.must("leaf stop")
	wantLines(t, "leaf stop", r.out, "Leaf node leaf stopped: it left the lab's server")
	wantLines(t, "leaf stop notes", r.note, "1 client of the leaf lost its server")
	l.fails("leaf stop", "not running")
	r = l.must("leaf start")
	if strings.Contains(r.out, "restarted") {
		t.Errorf("a second leaf start restarted the lab's server:\n%s", r.out)
	}
	wantLines(t, "leaf start again", r.out, "1 client of the leaf reconnected")
	// Back, the leaf's subscriber is known to the lab's server again by
	// the time leaf start returns: a pub there reaches it at once.
	if lz, err := l.srv.Monitor().Leafz(&server.LeafzOptions{Subscriptions: true}); err != nil || len(lz.Leafs) != 1 || !slices.Contains(lz.Leafs[0].Subs, "greet") {
		t.Errorf("leaf start returned before the lab's server knew of the leaf's subscriber again: %v", err)
	}
	sub.Stop()
	hub.Stop()
	<-sub.Done()
	<-hub.Done()
}

// Without the lab's own single server there is no leaf node.
func TestLeafVerbNeedsTheSingleEmbeddedServer(t *testing.T) {
	l := newLab(t, brokertest.Clustered())
	l.fails("leaf start", "start natslab without --cluster")
}

// leaf sub and leaf reply are in place (a script's next line runs) only
// once the lab's server knows of the subscription: a pub or a request
// there right after reaches the leaf's client. Several subjects, each looked at the moment its
// job is in place, so that a job ready too early is caught.
func TestLeafSubIsInPlaceOnceTheLabsServerKnowsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	l.must("leaf start")
	for i := range 6 {
		subject := fmt.Sprintf("greet.%d", i)
		line := "leaf sub " + subject
		if i%2 == 1 {
			line = "leaf reply " + subject + " hello"
		}
		j, out := l.background(line)
		<-j.Ready()
		lz, err := l.srv.Monitor().Leafz(&server.LeafzOptions{Subscriptions: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(lz.Leafs) != 1 || !slices.Contains(lz.Leafs[0].Subs, subject) {
			t.Fatalf("leaf sub %s is in place, and the lab's server does not know of it yet: %+v", subject, lz.Leafs)
		}
		if i%2 == 1 {
			if r := l.must("request " + subject + " ''"); !strings.Contains(r.out, "hello") {
				t.Fatalf("the leaf's responder did not answer:\n%s", r.all())
			}
		} else {
			l.must("pub " + subject + " hello")
			l.await("the message on the leaf", func() bool { return strings.Contains(out.String(), "hello") })
		}
		j.Stop()
		<-j.Done()
	}
}

// leaf start's first run restarts the lab's server: it returns once the
// session's connections are back, so a line run right after (pasted with
// it) reaches the server instead of failing on a connection still
// reconnecting.
func TestALineRightAfterLeafStartReachesTheServer(t *testing.T) {
	l := newLab(t)
	l.must("pub warm up") // the session's connection, open before the restart
	l.must("leaf start")
	r := l.run("req greet hello --timeout 1s")
	if !strings.Contains(r.err, "No responders are available") {
		t.Errorf("a request right after leaf start:\n%s", r.all())
	}
}
