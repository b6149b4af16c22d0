package reqreply

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// Episode 3 as a learner types it: a responder, a request answered with its
// round trip and inbox on screen, then the responder stopped and the next
// request bounced at once, as the real server does with nobody listening.
func TestEpisodeRoundTripThenNoResponders(t *testing.T) {
	h := newHarness(t, Options{})
	if v := h.View(100, 12); !strings.Contains(v, "nobody") {
		t.Fatalf("before a responder the scene shows nobody on time:\n%s", v)
	}
	rep := h.Start(`reply time "it is {{Time}}"`)
	h.Settle("one responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if r := h.Scene.snap.Responders[0]; r.Name != "natslab reply time" || r.Queue != "NATS-RPLY-22" {
		t.Fatalf("the responder is %+v, want the reply job's connection in NATS-RPLY-22", r)
	}

	out, err := h.Try(`request time "" --timeout 2s`)
	if err != nil || !strings.Contains(out, "it is ") {
		t.Fatalf("request: %v\n%s", err, out)
	}
	h.Settle("the round trip", func(s Snapshot) bool { return s.Requests == 1 && s.Replies == 1 })
	s := h.Scene.snap
	if s.LastRTT <= 0 || !strings.HasPrefix(s.LastInbox, "_INBOX.") || s.LastRequester != "natslab" {
		t.Fatalf("round trip %v, inbox %q, requester %q", s.LastRTT, s.LastInbox, s.LastRequester)
	}
	h.Until("the responder's count from the server", func(s Snapshot) bool {
		return len(s.Responders) == 1 && s.Responders[0].Msgs == 1
	})
	h.Clock.Advance(5 * time.Second)
	v := h.View(110, 12)
	for _, want := range []string{"requests 1", "replies 1", "last round trip RTT", "reply subject _INBOX.", "natslab reply time"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}

	rep.Stop()
	<-rep.Done()
	h.Settle("no responder, taps off", func(s Snapshot) bool { return len(s.Responders) == 0 && !s.Watching })
	// A bounce, not a timeout: nothing still listens on time (the scene's
	// tap would take the request and leave it unanswered).
	out, err = h.Try(`request time "" --timeout 2s`)
	if err != nil || !strings.Contains(out, "No responders are available") {
		t.Fatalf("with nobody listening the request must bounce: %v\n%s", err, out)
	}
	// The scene's subscriptions never count as a responder: the server
	// itself says nobody subscribes to time.
	cz, err := h.Srv.Monitor().Connz(connzOpts(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cz.Conns {
		for _, sd := range c.SubsDetail {
			if sd.Subject == "time" || sd.Subject == ">" {
				t.Errorf("%s still subscribes to %s", c.Name, sd.Subject)
			}
		}
	}

	// The scene's own ask shows the bounce.
	if got := h.Do("ask"); !strings.Contains(got, "no responders") {
		t.Fatalf("ask with nobody listening: %q", got)
	}
	h.Settle("bounced", func(s Snapshot) bool { return s.Bounced == 1 })
	h.Clock.Advance(450 * time.Millisecond)
	if v := h.View(110, 12); !strings.Contains(v, "no responders") || !strings.Contains(v, "bounced 1") {
		t.Fatalf("the bounce is not on screen:\n%s", v)
	}
}

// Two responders in one queue group share the requests; the server's own
// counts show which one each request went to.
func TestQueueGroupSharesRequests(t *testing.T) {
	h := newHarness(t, Options{})
	h.Start(`reply time one`)
	h.Start(`reply time two`)
	h.Settle("two responders", func(s Snapshot) bool { return len(s.Responders) == 2 && s.Watching })
	out, err := h.Try(`request time "" --count 6`)
	if err != nil || strings.Count(out, "\n") < 6 {
		t.Fatalf("requests: %v\n%s", err, out)
	}
	h.Until("six served", func(s Snapshot) bool {
		var n int64
		for _, r := range s.Responders {
			n += r.Msgs
		}
		return n == 6 && s.Replies == 6
	})
	if g := groups(h.Scene.snap.Responders); g != "queue NATS-RPLY-22" {
		t.Fatalf("groups %q", g)
	}
	// Both are "natslab reply time": the learner tells them apart by
	// their client ids, wherever the box has their names.
	for _, sz := range slices.Concat(scenes.LessonPanes, []scenes.PaneSize{{W: 118, H: 12}}) {
		v := h.View(sz.W, sz.H)
		for _, r := range h.Scene.snap.Responders {
			if id := fmt.Sprintf("conn %d", r.Cid); !strings.Contains(v, id) {
				t.Errorf("at %dx%d the responders look alike: %s is not shown:\n%s", sz.W, sz.H, id, v)
			}
		}
	}
}

// The scene's own ask with a responder: a real round trip.
func TestAskAnswered(t *testing.T) {
	h := newHarness(t, Options{Subject: "svc.echo"})
	h.Start(`reply svc.echo --echo`)
	h.Settle("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if got := h.Do("ask", "hello"); !strings.Contains(got, "reply after") || !strings.Contains(got, "hello") {
		t.Fatalf("ask: %q", got)
	}
	h.Settle("answered", func(s Snapshot) bool { return s.Replies == 1 && s.Requests == 1 })
}

// A real nats CLI from another terminal: its request is seen like any other.
func TestRealCLIRequest(t *testing.T) {
	h := newHarness(t, Options{})
	h.Start(`reply time "it is {{Time}}"`)
	h.Settle("responder", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	res := brokertest.RunRealCLI(t, h.Srv.ClientURL(), "request", "time", "", "--timeout", "2s")
	if res.ExitCode != 0 {
		t.Fatalf("nats request: %s%s", res.Stdout, res.Stderr)
	}
	h.Settle("round trip", func(s Snapshot) bool { return s.Replies == 1 })
	if n := h.Scene.snap.LastRequester; !strings.Contains(n, "NATS CLI") {
		t.Fatalf("the requester is %q, want the real CLI's connection", n)
	}
}

// A requester that had its answer and closed before the scene looked is
// still named: the server remembers a closed connection's subscriptions.
func TestAClosedRequesterIsStillNamed(t *testing.T) {
	h := newHarness(t, Options{})
	nc, err := nats.Connect(h.Srv.ClientURL(), nats.Name("NATS CLI Version test"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.SubscribeSync("_INBOX.gone.*"); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	cid, err := nc.GetClientID()
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	// The server hears the close on its own time, and says so to no one.
	gone := broker.WaitFor(5*time.Second, func() bool {
		cz, err := h.Srv.Monitor().Connz(&server.ConnzOptions{State: server.ConnClosed, CID: cid})
		return err == nil && len(cz.Conns) == 1
	})
	if !gone {
		t.Fatal("the server never listed the connection as closed")
	}
	if got := h.Scene.d.requesterName("time", "_INBOX.gone.1"); got != "NATS CLI Version test" {
		t.Fatalf("the requester that closed is named %q", got)
	}
}

func TestControlsSayWhatToType(t *testing.T) {
	h := newHarness(t, Options{})
	for _, c := range []struct {
		control string
		args    []string
		want    string
	}{
		{"watch", nil, "watch needs one subject"},
		{"watch", []string{"svc.*"}, "without wildcards"},
		{"reset", []string{"now"}, "no arguments"},
		{"dance", nil, "no control \"dance\""},
	} {
		_, err := h.Scene.Do(c.control, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.control, c.args, err, c.want)
		}
	}
	if got := h.Do("watch", "svc.time"); !strings.Contains(got, "nobody subscribes") {
		t.Fatalf("watch: %q", got)
	}
	h.Until("watching svc.time", func(s Snapshot) bool { return s.Subject == "svc.time" })
}

// Pointed at a deployment the lab does not run, the scene says it needs
// the lab's own server rather than draw a picture it cannot know.
func TestExternalDeploymentIsRefused(t *testing.T) {
	srv := brokertest.Start(t)
	ext := kittest.External(t, srv)
	if _, err := New(scenes.Env{Deployment: ext}, Options{}); err != ErrExternal {
		t.Fatalf("got %v", err)
	}
}

// The tap on the subject must never turn a bounce into a timeout: once
// the last responder has gone, the scene's tap goes too (it counts the
// subject's interest every few milliseconds while tapping), and the next
// request bounces with the server's "no responders".
func TestTapLeavesBeforeTheNextRequest(t *testing.T) {
	h := newHarness(t, Options{})
	for i := 0; i < 5; i++ {
		rep := h.Start(`reply time "it is {{Time}}"`)
		h.Until("tapping", func(s Snapshot) bool { return s.Watching && len(s.Responders) == 1 })
		rep.Stop()
		<-rep.Done()
		h.Until("the tap gone", func(s Snapshot) bool { return !s.Watching })
		out, err := h.Try(`request time "" --timeout 2s`)
		if err != nil || !strings.Contains(out, "No responders are available") {
			t.Fatalf("round %d: the request after the responder left must bounce: %v\n%s", i, err, out)
		}
	}
}

// A request that times out shows only that something listens and no
// answer came back in time: not that the listener got it and kept quiet
// (a lost reply, or one the responder may not publish, looks the same).
func TestUnansweredAskClaimsNoMoreThanATimeout(t *testing.T) {
	h := newHarness(t, Options{})
	h.Start(`sub time`)
	h.Settle("a listener", func(s Snapshot) bool { return len(s.Responders) == 1 })
	out := h.Do("ask")
	h.Settle("unanswered", func(s Snapshot) bool { return s.Unanswered == 1 })
	for _, said := range []string{out, h.Scene.snap.Story} {
		if !strings.Contains(said, "no answer came back") || strings.Contains(said, "did not answer") || strings.Contains(said, "got the request") {
			t.Errorf("a timeout claims more than it shows: %q", said)
		}
	}
}

// A stream that captures the watched subject (shop.> over
// shop.price.widget, lesson 19) is one more subscription a request
// reaches, and a wildcard above the subject: the taps stay on beside the
// responder, and the request is drawn with the reply that answered it.
func TestAStreamAboveTheSubjectLeavesTheTapsOn(t *testing.T) {
	srv := brokertest.Start(t)
	h := newHarnessOn(t, srv, srv, Options{})
	if out, err := h.Try(`stream add SHOP --subjects "shop.>" --defaults`); err != nil {
		t.Fatalf("stream add: %v\n%s", err, out)
	}
	h.Do("watch", "shop.price.widget")
	h.Start(`reply shop.price.widget "9.99"`)
	h.Settle("one responder, taps on", func(s Snapshot) bool { return len(s.Responders) == 1 && s.Watching })
	if out, err := h.Try(`request shop.price.widget "" --timeout 2s`); err != nil {
		t.Fatalf("request: %v\n%s", err, out)
	}
	h.Settle("the request and a reply", func(s Snapshot) bool { return s.Requests == 1 && s.Replies == 1 })
}

// On the lab's cluster one node stopping is not the server going down: the
// scene's connection moves to another node and the cluster runs on, so
// the scene does not say requests cannot reach anyone.
func TestANodeStoppingIsNotTheServerDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	srv := brokertest.Start(t, brokertest.Clustered(), brokertest.WithoutJetStream())
	h := newHarnessOn(t, srv, srv, Options{})
	nc := h.Scene.d.nc
	node := nc.ConnectedServerName()
	h.Run("node stop " + node)
	if !broker.WaitFor(20*time.Second, func() bool { return nc.IsConnected() && nc.ConnectedServerName() != node }) {
		t.Fatalf("the scene's connection did not move off %s", node)
	}
	h.Settle("on another node", func(s Snapshot) bool { return s.ServerUp })
	if s := h.Scene.snap; strings.Contains(s.Story, "the server is down") {
		t.Fatalf("with %s stopped the scene says %q", node, s.Story)
	}
	if v := h.View(100, 12); strings.Contains(v, "server is down") {
		t.Fatalf("with %s stopped:\n%s", node, v)
	}
}
