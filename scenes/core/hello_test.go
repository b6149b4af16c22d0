package core

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// tcpSub subscribes from a client of the test's own over TCP, named as the
// real nats CLI names itself: what a `nats sub` in another terminal is to
// the server.
func tcpSub(t *testing.T, url, subject string) *atomic.Int64 {
	t.Helper()
	nc, err := nats.Connect(url, nats.Name("NATS CLI Version 0.5.0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var n atomic.Int64
	if _, err := nc.Subscribe(subject, func(*nats.Msg) { n.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &n
}

// The subscribers on screen are the server's: a lab sub and a client over
// TCP both show up, with their names, and their counts are exactly what
// each received, whoever published (the pane, the scene).
func TestHelloDiscoversSubscribersAndCountsExactly(t *testing.T) {
	h := newHarness(t, Hello)
	if s := h.Scene.snap; !s.Listed || len(s.Subs) != 0 || s.Watch != "greet" {
		t.Fatalf("a fresh scene: %+v", s)
	}
	job := h.Start("sub greet")
	other := tcpSub(t, h.Srv.ClientURL(), "greet")
	h.Start("sub greeting") // not greet: not on screen
	h.Settle("two subscribers on greet", subsOn("greet", 2))
	names := map[string]bool{}
	for _, s := range h.Scene.snap.Subs {
		names[s.Name] = true
	}
	if !names["natslab sub greet"] || !names["NATS CLI Version 0.5.0"] || len(h.Scene.snap.Subs) != 2 {
		t.Fatalf("subscribers on screen: %+v", h.Scene.snap.Subs)
	}

	h.Run(`pub greet "Hello NATS!" --count 3`)
	h.Do("publish", "2")
	h.Settle("5 each", func(s Snapshot) bool { return s.Published == 5 && counts(s)["greet"] == 10 })
	for _, s := range h.Scene.snap.Subs {
		if s.Msgs != 5 {
			t.Errorf("%s: %d on screen, want 5", s.Name, s.Msgs)
		}
	}
	if job.Received() != 5 || other.Load() != 5 {
		t.Errorf("received: lab sub %d, tcp sub %d; want 5 each", job.Received(), other.Load())
	}
	if s := h.Scene.snap; s.Unheard != 0 || s.Delivered() != 10 {
		t.Errorf("unheard %d, delivered %d; want 0 and 10", s.Unheard, s.Delivered())
	}
	v := h.settled(120, 12)
	for _, want := range []string{"natslab sub greet", "NATS CLI Version 0.5.0", "published 5", "delivered 10", "no one listening 0"} {
		if !strings.Contains(v, want) {
			t.Errorf("the picture lacks %q:\n%s", want, v)
		}
	}
}

// Two subscribers of one name (lesson 1's `sub greet &` typed twice) are
// told apart by their connections beside the lesson: "conn 8", whole,
// where "conn 8 · natslab sub greet" has no room ("conn 8 · …" twice said
// no more), in the subject's place where even that has none (at 80x24
// both rows read "greet").
func TestHelloTellsSubscribersOfOneNameApart(t *testing.T) {
	h := newHarness(t, Hello)
	h.Start("sub greet")
	h.Start("sub greet")
	h.Settle("two subscribers on greet", subsOn("greet", 2))
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.settled(sz.W, sz.H)
		for _, sub := range h.Scene.snap.Subs {
			if id := fmt.Sprintf("conn %d", sub.Cid); !strings.Contains(v, id) || strings.Contains(v, id+" · …") {
				t.Errorf("at %dx%d %s is not shown whole:\n%s", sz.W, sz.H, id, v)
			}
		}
	}
}

// With nobody subscribed, a message still reaches the server: it is counted
// as published and as heard by no one, and nothing is delivered.
func TestHelloNobodyListening(t *testing.T) {
	h := newHarness(t, Hello)
	job := h.Start("sub greet")
	h.Settle("subscribed", subsOn("greet", 1))
	h.Run(`pub greet "Hello NATS!"`)
	h.Settle("delivered", func(s Snapshot) bool { return s.Delivered() == 1 })
	h.Stop(job)
	h.Settle("nobody", func(s Snapshot) bool { return len(s.Subs) == 0 })
	h.Run(`pub greet "Is anyone there?"`)
	h.Do("publish")
	h.Settle("two unheard", func(s Snapshot) bool { return s.Unheard == 2 && s.Published == 3 })
	if s := h.Scene.snap; s.Delivered() != 0 {
		t.Errorf("delivered %d to nobody", s.Delivered())
	}
	if v := h.settled(100, 10); !strings.Contains(v, "nobody subscribes to greet") || !strings.Contains(v, "no one listening 2") {
		t.Errorf("the picture must say nobody listens:\n%s", v)
	}
	// A subscriber elsewhere (a wildcard) hears greet: not unheard.
	h.Start("sub '>'")
	h.Settle("a > subscriber", subsOn(">", 1))
	h.Do("publish")
	h.Settle("heard by >", func(s Snapshot) bool { return s.Published == 4 && s.Delivered() == 1 })
	if h.Scene.snap.Unheard != 2 {
		t.Errorf("unheard %d, want still 2", h.Scene.snap.Unheard)
	}
}

// Controls: watch other subjects, publish where told, reset, and one clear
// error for each mistake.
func TestHelloControls(t *testing.T) {
	h := newHarness(t, Hello)
	for _, c := range []struct {
		control string
		args    []string
		want    string
	}{
		{"publish", []string{"0"}, "whole number"},
		{"publish", []string{"2", "3"}, "one count"},
		{"publish", []string{"a", "b"}, "one subject"},
		{"publish", []string{"greet.*"}, "wildcard"},
		{"publish", []string{"orders.us created"}, "space"},
		{"watch", nil, "one subject"},
		{"watch", []string{"a..b"}, "empty token"},
		{"watch", []string{"a.>.b"}, "comes last"},
		{"reset", []string{"x"}, "no arguments"},
		{"offline", nil, "knows watch, publish, reset"},
	} {
		_, err := h.Scene.Do(c.control, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error saying %q", c.control, c.args, err, c.want)
		}
	}

	h.Start("sub 'greet.*'")
	out := h.Do("watch", "greet.>")
	if !strings.Contains(out, "watching greet.>") {
		t.Errorf("watch said %q", out)
	}
	h.Settle("greet.* on screen", subsOn("greet.*", 1))
	if _, err := h.Scene.Do("publish", nil); err == nil || !strings.Contains(err.Error(), "publish greet.") {
		t.Errorf("publish without a subject on a wildcard watch: %v", err)
	}
	h.Do("publish", "3", "greet.sue")
	h.Settle("3 delivered", func(s Snapshot) bool { return s.Published == 3 && s.Delivered() == 3 })
	if out := h.Do("publish", "elsewhere"); !strings.Contains(out, "does not show them") {
		t.Errorf("publishing outside the watch must say so: %q", out)
	}
	h.Do("reset")
	h.Settle("reset", func(s Snapshot) bool { return s.Published == 0 && s.Delivered() == 0 })
	h.Do("publish", "greet.bob")
	h.Settle("counting again", func(s Snapshot) bool { return s.Published == 1 && s.Delivered() == 1 })
}

// Against a deployment that is not the lab's own, the subscriber list
// cannot be asked for: the scene says so, and still counts publishes.
func TestHelloExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	ext := kittest.External(t, srv)
	h := newHarnessOn(t, srv, ext, Hello)
	h.Do("publish", "2")
	h.Settle("2 published", func(s Snapshot) bool { return s.Published == 2 })
	if snap := h.Scene.snap; snap.Listed || snap.Unheard != 0 {
		t.Errorf("an external deployment: %+v", snap)
	}
	if v := h.settled(120, 10); !strings.Contains(v, "lab's own server") || strings.Contains(v, "no one listening") {
		t.Errorf("the picture must say where the subscribers come from:\n%s", v)
	}
}

// On the lab's three-node cluster, subscribers on any node show up, and a
// message heard on another node is not counted as heard by no one.
func TestHelloOnACluster(t *testing.T) {
	srv := brokertest.Start(t, brokertest.Clustered(), brokertest.WithoutJetStream())
	h := newHarnessOn(t, srv, srv, Hello)
	urls := strings.Split(srv.ClientURL(), ",")
	var subs []*atomic.Int64
	for _, u := range urls {
		subs = append(subs, tcpSub(t, u, "greet")) // one on each node
	}
	h.Settle("three subscribers", subsOn("greet", len(urls)))
	// Each node learns of the others' subscribers over its routes after
	// they subscribed: the scene publishes once every node knows all.
	for _, n := range srv.Nodes() {
		ns := srv.Node(n.Name)
		if !broker.WaitFor(10*time.Second, func() bool { return ns.GlobalAccount().Interest("greet") >= len(urls) }) {
			t.Fatalf("node %s knows of %d subscribers on greet, want %d", n.Name, ns.GlobalAccount().Interest("greet"), len(urls))
		}
	}
	h.Do("publish", "4")
	h.Settle("four each", func(s Snapshot) bool { return s.Published == 4 && s.Delivered() == uint64(4*len(urls)) })
	for i, n := range subs {
		if n.Load() != 4 {
			t.Errorf("the subscriber on node %d received %d, want 4", i+1, n.Load())
		}
	}
	if h.Scene.snap.Unheard != 0 {
		t.Errorf("unheard %d: every message had listeners", h.Scene.snap.Unheard)
	}
}
