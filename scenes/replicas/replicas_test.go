package replicas

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/scenes"
)

func TestSceneIsRegisteredAndNeedsTheCluster(t *testing.T) {
	f, ok := scenes.Lookup("replicas")
	if !ok || f.Summary == "" {
		t.Fatal("the replicas scene should be registered")
	}
	single := brokertest.Start(t, brokertest.InProcessOnly())
	if _, err := f.New(scenes.Env{Deployment: single}); !errors.Is(err, ErrNoCluster) {
		t.Fatalf("on a single server the scene should say how to start a cluster, got %v", err)
	}
}

// The story of the episode, with the real cluster: publish, stop the
// leader, publish on, start the node again and watch it catch up.
func TestPublishFailoverAndCatchUp(t *testing.T) {
	h := newHarness(t)
	if v := h.View(100, 14); !strings.Contains(v, "no stream yet") {
		t.Fatalf("before any stream the scene says how to make one:\n%s", v)
	}
	h.NeverCut(t, "no stream yet")
	// How to make one reads to its end beside the lesson: the nodes, up
	// and nothing more, share a row.
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.View(sz.W, sz.H)
		if !strings.Contains(strings.Join(strings.Fields(v), " "), "stream add ORDERS --subjects 'orders.>' --replicas 3 --defaults") {
			t.Errorf("at %dx%d the caption does not say how to make a stream whole:\n%s", sz.W, sz.H, v)
		}
	}
	out := h.Do("publish", "3")
	if !strings.Contains(out, "created stream ORDERS") || !strings.Contains(out, "every one acknowledged") {
		t.Fatalf("publish: %s", out)
	}
	h.Settle("three copies at 3", func(s Snapshot) bool { return allAt(s, "ORDERS", 3) })
	if sn := h.Scene.snap; sn.Published != 3 || sn.Acked != 3 || sn.Focus != "ORDERS" {
		t.Fatalf("counts: %+v", sn)
	}
	h.Clock.Advance(400 * time.Millisecond)
	v := h.View(100, 14)
	if strings.Count(v, "◆ 3") != 1 || !strings.Contains(v, "leader "+h.Scene.snap.Leader("ORDERS")) {
		t.Fatalf("one copy is the leader's, marked:\n%s", v)
	}
	if !strings.Contains(v, "●") {
		t.Fatalf("the publishes should be on their way:\n%s", v)
	}

	old := h.Scene.snap.Leader("ORDERS")
	if out := h.Do("stop", "leader"); !strings.Contains(out, "stopped "+old+", the leader of ORDERS") {
		t.Fatalf("stop leader: %s", out)
	}
	h.Settle("a new leader", func(s Snapshot) bool { l := s.Leader("ORDERS"); return l != "" && l != old })
	h.Do("publish", "2")
	h.Settle("the survivors at 5", func(s Snapshot) bool { return allAt(s, "ORDERS", 5) })
	if c, _ := copyOf(h.Scene.snap, old, "ORDERS"); !c.Stale || c.Seq != 3 {
		t.Fatalf("the stopped node shows what it held: %+v", c)
	}
	h.Clock.Advance(5 * time.Second)
	v = h.View(100, 14)
	if !strings.Contains(v, "down") || !strings.Contains(v, "2 of 3 nodes up") {
		t.Fatalf("the stopped node is drawn down:\n%s", v)
	}

	h.Do("start", old)
	h.Settle(old+" caught up", func(s Snapshot) bool {
		c, ok := copyOf(s, old, "ORDERS")
		return ok && c.Seq == 5 && !c.Behind && strings.HasPrefix(s.Story, old+" caught up")
	})
	if sn := h.Scene.snap; sn.Published != 5 || sn.Acked != 5 || sn.Failed != 0 {
		t.Fatalf("no acknowledged message is lost: %+v", sn)
	}
}

// A stream with one replica lives on one node: stopped, it is unavailable,
// and publishing to it says why; started, it comes back with what it held.
func TestR1StreamGoesUnavailableAndComesBack(t *testing.T) {
	h := newHarness(t)
	h.createStream("SOLO", "solo.>", 1)
	h.Settle("SOLO seen", func(s Snapshot) bool { return s.Leader("SOLO") != "" })
	h.Do("focus", "SOLO")
	h.Do("publish")
	h.Settle("SOLO at 1", func(s Snapshot) bool { return allAt(s, "SOLO", 1) })
	home := h.Scene.snap.Leader("SOLO")
	others := 0
	for _, n := range h.Scene.snap.Nodes {
		if _, ok := n.Copies["SOLO"]; ok && n.Name != home {
			others++
		}
	}
	if others != 0 {
		t.Fatalf("an R1 stream has one copy: %+v", h.Scene.snap.Nodes)
	}
	h.Do("stop", home)
	h.Settle("SOLO unavailable", func(s Snapshot) bool { return len(s.Unavailable()) == 1 })
	if v := h.View(100, 14); !strings.Contains(v, "SOLO is unavailable: its only copy is on "+home+", which is down") {
		t.Fatalf("the scene should say SOLO is unavailable:\n%s", v)
	}
	if _, err := h.Scene.Do("publish", nil); err == nil || !strings.Contains(err.Error(), "every copy of SOLO is on a stopped node") {
		t.Fatalf("publishing to SOLO now should say why it fails: %v", err)
	}
	h.Do("start", home)
	h.Settle("SOLO back", func(s Snapshot) bool { return len(s.Unavailable()) == 0 && s.Leader("SOLO") == home })
	// Its one copy caught up with no one: the node leads it.
	h.Settle(home+" leads SOLO", func(s Snapshot) bool { return s.Story == home+" is back and leads SOLO" })
	if out := h.Do("publish"); !strings.Contains(out, "every one acknowledged") {
		t.Fatalf("after the node is back: %s", out)
	}
	h.Settle("SOLO at 2", func(s Snapshot) bool { return allAt(s, "SOLO", 2) })
	if sn := h.Scene.snap; sn.Failed != 1 || sn.Acked != 2 {
		t.Fatalf("counts: %+v", sn)
	}
}

func TestControlErrorsSayWhatToType(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		control string
		args    []string
		want    string
	}{
		{"publish", []string{"0"}, "whole number from 1"},
		{"publish", []string{"1", "2"}, "one count"},
		{"stop", nil, "n1, n2, n3"},
		{"stop", []string{"n9"}, "n1, n2, n3"},
		{"stop", []string{"leader"}, "no stream yet"},
		{"focus", []string{"NOPE"}, "none yet"},
		{"jump", nil, "publish, stop, start, toggle, focus"},
		{"start", []string{"n1"}, "already running"},
	} {
		if _, err := h.Scene.Do(c.control, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: want an error with %q, got %v", c.control, c.args, c.want, err)
		}
	}
}

// Goldens of each settled stage, on a manual clock, with the leaders placed
// (elections pick at random). Update with -update.
func TestGoldenStages(t *testing.T) {
	h := newHarness(t)
	g := func(name string, w, ht int) { t.Helper(); h.Golden(t, name, w, ht) }
	h.createStream("ORDERS", "orders.>", 3)
	h.lead("ORDERS", "n2")
	h.lead("ORDERS", "n1")
	h.Settle("n1 leads", func(s Snapshot) bool { return s.Leader("ORDERS") == "n1" && s.Story == "n1 now leads ORDERS" })
	g("1-empty", 100, 12)

	h.Do("publish", "3")
	h.Settle("three copies at 3", func(s Snapshot) bool { return allAt(s, "ORDERS", 3) })
	h.Clock.Advance(5 * time.Second)
	g("2-three-copies", 100, 12)
	g("2-three-copies-60x12", 60, 12)
	g("2-three-copies-40x6", 40, 6)
	h.GoldenPanes(t, "2-three-copies")
	// The caption is what the pane is about: the notes under the picture
	// give way to it (at 80x24 the legend took the rows its leader and
	// count needed).
	for _, sz := range slices.Concat(scenes.SmallestPanes, scenes.LessonPanes) {
		v := h.View(sz.W, sz.H)
		for _, part := range []string{"3 of 3 nodes up", "ORDERS", "3 replicas", "leader n1", "3 messages"} {
			if !strings.Contains(v, part) {
				t.Errorf("at %dx%d the caption lacks %q:\n%s", sz.W, sz.H, part, v)
			}
		}
	}

	h.Do("stop", "n1")
	h.Settle("a new leader", func(s Snapshot) bool { l := s.Leader("ORDERS"); return l != "" && l != "n1" })
	h.lead("ORDERS", "n2")
	h.Settle("n2 leads", func(s Snapshot) bool { return s.Leader("ORDERS") == "n2" && s.Story == "n2 now leads ORDERS" })
	h.Do("publish", "2")
	h.Settle("the survivors at 5", func(s Snapshot) bool { return allAt(s, "ORDERS", 5) })
	h.Clock.Advance(5 * time.Second)
	g("3-leader-stopped-publishing-on", 100, 12)

	h.Do("start", "n1")
	h.Settle("n1 caught up", func(s Snapshot) bool { return strings.HasPrefix(s.Story, "n1 caught up") })
	h.Clock.Advance(5 * time.Second)
	g("4-caught-up", 100, 12)
}
