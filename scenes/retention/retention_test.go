package retention

import (
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/scenes/kit/kittest"
)

// makeStreams runs the episode's first step and waits until the scene
// shows the three streams (a person never types faster).
func (h *harness) makeStreams() {
	h.T.Helper()
	h.Run(`stream add LIMITS --subjects "limits.>" --retention limits --defaults`)
	h.Run(`stream add INTEREST --subjects "news.>" --retention interest --defaults`)
	// The story is the last look's: the work queue comes in a look of its
	// own, whatever the scene's looks made of the first two.
	h.Settle("two streams", func(s Snapshot) bool {
		return col(s, "limits").Stream == "LIMITS" && col(s, "interest").Stream == "INTEREST"
	})
	h.Run(`stream add WORK --subjects "work.>" --retention work --defaults`)
	h.Settle("three streams", func(s Snapshot) bool {
		return col(s, "limits").Stream == "LIMITS" && col(s, "interest").Stream == "INTEREST" && col(s, "workqueue").Stream == "WORK"
	})
}

// Episode 15, step by step: interest drops what nobody wants and removes
// what every consumer acknowledged, a work queue removes a message once it
// is acknowledged and refuses a second unfiltered consumer, limits keeps
// what was read.
func TestEpisodeRetention(t *testing.T) {
	h := newHarness(t, Options{})
	h.makeStreams()

	h.Run(`pub news.note "does anyone want this?" --jetstream`)
	h.Settle("dropped at once", func(s Snapshot) bool { c := col(s, "interest"); return c.Last == 1 && c.Msgs == 0 })
	if st := h.Scene.snap.Story; !strings.Contains(st, "no consumer was interested") {
		t.Fatalf("story %q", st)
	}

	h.Run(`consumer add INTEREST a --pull --defaults`)
	h.Run(`consumer add INTEREST b --pull --defaults`)
	h.Run(`pub news.note "for both of you" --jetstream`)
	h.Settle("kept for a and b", func(s Snapshot) bool {
		c := col(s, "interest")
		return c.Msgs == 1 && c.Last == 2 && len(c.Consumers) == 2
	})
	h.Run(`consumer next INTEREST a`)
	h.Settle("a acknowledged, still kept for b", func(s Snapshot) bool {
		c := col(s, "interest")
		return cons(c, "a").AckFloor == 2 && c.Msgs == 1 && c.Acks == 1
	})
	if st := h.Scene.snap.Story; !strings.Contains(st, "keeps #2: b has not acknowledged it") {
		t.Fatalf("story %q", st)
	}
	h.Clock.Advance(5 * time.Second)
	v := h.View(100, 12)
	for _, want := range []string{"INTEREST", "│ 2", "▲a", "a ack floor #2", "b ack floor #1 · 1 to go"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	h.Run(`consumer next INTEREST b`)
	h.Settle("removed", func(s Snapshot) bool { c := col(s, "interest"); return c.Msgs == 0 && cons(c, "b").AckFloor == 2 })
	if st := h.Scene.snap.Story; !strings.Contains(st, "removed #2: every consumer acknowledged it") {
		t.Fatalf("story %q", st)
	}

	h.Run(`consumer add WORK w --pull --defaults`)
	h.Run(`pub work.job "do this once" --jetstream`)
	h.Settle("queued", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 1 })
	h.Run(`consumer next WORK w`)
	h.Settle("done once", func(s Snapshot) bool {
		c := col(s, "workqueue")
		return c.Msgs == 0 && c.Last == 1 && cons(c, "w").AckFloor == 1
	})
	if out, err := h.Try(`consumer add WORK w2 --pull --defaults`); err == nil {
		t.Fatalf("a second unfiltered consumer on a work queue must be refused: %s", out)
	}
	h.Settle("refusal shown", func(s Snapshot) bool { return strings.Contains(col(s, "workqueue").Note, "refused w2") })
	if n := col(h.Scene.snap, "workqueue").Note; !strings.Contains(n, "workqueue") {
		t.Fatalf("note %q", n)
	}

	// One change a look, so that the story is about the last.
	h.Run(`consumer add LIMITS l --pull --defaults`)
	h.Settle("l", func(s Snapshot) bool { return cons(col(s, "limits"), "l").Name == "l" })
	h.Run(`pub limits.note "here to stay" --jetstream`)
	h.Settle("stored", func(s Snapshot) bool { c := col(s, "limits"); return c.Msgs == 1 && c.Last == 1 })
	h.Run(`consumer next LIMITS l`)
	h.Settle("kept after reading", func(s Snapshot) bool {
		c := col(s, "limits")
		return c.Msgs == 1 && cons(c, "l").AckFloor == 1
	})
	if st := h.Scene.snap.Story; !strings.Contains(st, "LIMITS keeps #1 after it was read and acknowledged") {
		t.Fatalf("story %q", st)
	}
}

// A real nats CLI acknowledging from another terminal moves the ack floor
// on screen like the pane does.
func TestRealCLIAck(t *testing.T) {
	h := newHarness(t, Options{})
	h.makeStreams()
	h.Run(`consumer add WORK w --pull --defaults`)
	h.Run(`pub work.job "from the pane" --jetstream`)
	h.Settle("queued", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 1 })
	res := brokertest.RunRealCLI(t, h.Srv.ClientURL(), "consumer", "next", "WORK", "w")
	if res.ExitCode != 0 {
		t.Fatalf("nats consumer next: %s%s", res.Stdout, res.Stderr)
	}
	h.Settle("done", func(s Snapshot) bool { c := col(s, "workqueue"); return c.Msgs == 0 && c.Acks == 1 })
}

func TestJetStreamOff(t *testing.T) {
	h := newHarness(t, Options{}, brokertest.WithoutJetStream())
	h.Settle("off", func(s Snapshot) bool { return strings.Contains(s.Problem, "nats-server -js") })
	if v := h.View(80, 10); !strings.Contains(v, "JetStream is off") {
		t.Fatalf("the screen must say JetStream is off:\n%s", v)
	}
	h.Run(`nats-server -js`)
	h.Settle("on", func(s Snapshot) bool { return s.Problem == "" })
}

func TestControls(t *testing.T) {
	h := newHarness(t, Options{})
	for _, c := range []struct {
		control string
		args    []string
		want    string
	}{
		{"watch", nil, "watch needs a stream's name"},
		{"watch", []string{"NOPE"}, "there is no stream NOPE: there are no streams yet"},
		{"publish", nil, "no stream on screen yet"},
		{"publish", []string{"many"}, "whole number from 1"},
		{"reset", []string{"x"}, "no arguments"},
		{"spin", nil, `no control "spin"`},
	} {
		_, err := h.Scene.Do(c.control, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.control, c.args, err, c.want)
		}
	}
	h.makeStreams()
	h.Run(`stream add NEWS2 --subjects "news2.>" --retention interest --defaults`)
	h.Settle("newest interest stream", func(s Snapshot) bool { return col(s, "interest").Stream == "NEWS2" })
	if got := h.Do("watch", "INTEREST"); !strings.Contains(got, "INTEREST in the interest column") {
		t.Fatalf("watch: %q", got)
	}
	h.Settle("pinned", func(s Snapshot) bool { return col(s, "interest").Stream == "INTEREST" })
	if got := h.Do("publish", "2"); !strings.Contains(got, "LIMITS #1 to #2, INTEREST #1 to #2, WORK #1 to #2") {
		t.Fatalf("publish: %q", got)
	}
	h.Settle("what each kept", func(s Snapshot) bool {
		return col(s, "limits").Msgs == 2 && col(s, "interest").Last == 2 && col(s, "interest").Msgs == 0 && col(s, "workqueue").Msgs == 2
	})
	h.Do("reset")
	h.Settle("newest again", func(s Snapshot) bool { return col(s, "interest").Stream == "NEWS2" })
}

// Against a deployment the lab does not run, the columns are drawn the same.
func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	ext := kittest.External(t, srv)
	h := newHarnessOn(t, srv, ext, Options{})
	h.makeStreams()
	h.Run(`pub news.note hi --jetstream`)
	h.Settle("dropped", func(s Snapshot) bool { c := col(s, "interest"); return c.Last == 1 && c.Msgs == 0 })
}

// On the lab's cluster a consumer whose every copy is on a stopped node is
// listed by the server with its configuration alone: the scene names it
// offline, with no numbers, rather than a nameless consumer at ack floor
// 0; the story says when it goes and comes back.
func TestAConsumerOnAStoppedNodeIsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	h := newHarness(t, Options{}, brokertest.Clustered())
	h.Run(`stream add LIMITS --subjects "limits.>" --retention limits --replicas 3 --defaults`)
	h.Run(`consumer add LIMITS solo --pull --replicas 1 --defaults`)
	h.Run(`pub limits.note "for solo" --jetstream`)
	h.Settle("for solo", func(s Snapshot) bool { c := col(s, "limits"); return c.Msgs == 1 && cons(c, "solo").Pending == 1 })
	home := h.Srv.Cluster().StreamLeader("LIMITS")
	for _, line := range strings.Split(h.Run("consumer info LIMITS solo"), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "Leader:" {
			home = f[1]
		}
	}
	h.Run("node stop " + home)
	h.Settle("solo offline", func(s Snapshot) bool { return cons(col(s, "limits"), "solo").Offline })
	c := col(h.Scene.snap, "limits")
	for _, k := range c.Consumers {
		if k.Name == "" {
			t.Fatalf("a consumer with no name: %+v", c.Consumers)
		}
	}
	if st := h.Scene.snap.Story; !strings.Contains(st, "solo is offline: every copy of it is on a stopped node") {
		t.Fatalf("story %q", st)
	}
	h.Clock.Advance(5 * time.Second)
	if v := h.View(100, 12); !strings.Contains(v, "solo offline") || strings.Contains(v, "solo ack floor") {
		t.Fatalf("with %s stopped:\n%s", home, v)
	}
	h.Run("node start " + home)
	h.Settle("solo online", func(s Snapshot) bool { k := cons(col(s, "limits"), "solo"); return !k.Offline && k.Pending == 1 })
	if st := h.Scene.snap.Story; !strings.Contains(st, "solo is online again") {
		t.Fatalf("story %q", st)
	}
}
