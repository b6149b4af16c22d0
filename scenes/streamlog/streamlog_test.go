package streamlog

import (
	"slices"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

func orders(s Snapshot) Lane { l, _ := laneOf(s, "ORDERS"); return l }

// add makes a stream and waits until the scene shows it, its taps on: a
// person typing the next command is never faster than that.
func (h *harness) add(line, stream string) {
	h.T.Helper()
	h.Run(line)
	h.Settle(stream, func(s Snapshot) bool { _, ok := laneOf(s, stream); return ok })
}

// Episode 7: JetStream switched on, a file log made, a plain publish stored
// and a --jetstream one acknowledged with its sequence.
func TestEpisodeStreamLog(t *testing.T) {
	h := newHarness(t, Options{}, brokertest.WithoutJetStream())
	h.Settle("JetStream off", func(s Snapshot) bool { return strings.Contains(s.Problem, "nats-server -js") })
	if v := h.View(80, 12); !strings.Contains(v, "JetStream is off") {
		t.Fatalf("the scene must say JetStream is off:\n%s", v)
	}
	h.Run(`nats-server -js`)
	h.Settle("no stream yet", func(s Snapshot) bool { return strings.Contains(s.Problem, "no stream yet") })
	h.add(`stream add ORDERS --subjects "orders.>" --storage file --retention limits --defaults`, "ORDERS")
	if l := orders(h.Scene.snap); l.Storage != "file" || l.Retain != "limits" || l.Last != 0 {
		t.Fatalf("ORDERS as the scene shows it: %+v", l)
	}

	h.Run(`pub orders.created "order 1"`)
	h.Settle("stored by a plain publish", func(s Snapshot) bool {
		l := orders(s)
		return l.Msgs == 1 && l.Last == 1 && l.Seen.Published == 1
	})
	if l := orders(h.Scene.snap); l.Seen.Acked != 0 {
		t.Fatalf("a plain publish hears nothing back, yet the scene counts %d acks", l.Seen.Acked)
	}
	out := h.Run(`pub orders.created "order 2" --jetstream`)
	if !strings.Contains(out, "Sequence: 2") {
		t.Fatalf("pub --jetstream: %s", out)
	}
	h.Settle("acknowledged", func(s Snapshot) bool { l := orders(s); return l.Seen.Acked == 1 && l.Last == 2 })
	if !strings.Contains(h.Scene.snap.Story, "#2") {
		t.Fatalf("story %q", h.Scene.snap.Story)
	}
	h.Clock.Advance(5 * time.Second)
	v := h.View(80, 12)
	for _, want := range []string{"ORDERS", "│ 1", "│ 2", "first #1 · last #2 · messages 2", "acks 1", "publisher"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
}

// Episode 8: the window slides under max-msgs, discard new refuses, per
// subject keeps two, rmm and purge empty cells, max age ages them out.
func TestEpisodeLimits(t *testing.T) {
	withoutIdleLooks(t)
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Run(`pub orders.new "order {{Count}}" --count 10 --jetstream`)
	h.Settle("ten", func(s Snapshot) bool { l := orders(s); return l.Msgs == 10 && l.Seen.Acked == 10 })

	h.Run(`stream edit ORDERS --max-msgs 5 -f`)
	h.Settle("window of five", func(s Snapshot) bool {
		l := orders(s)
		return l.First == 6 && l.Last == 10 && l.Msgs == 5 && l.MaxMsgs == 5
	})
	if st := h.Scene.snap.Story; !strings.Contains(st, "oldest"+text.NoBreak+"5") {
		t.Fatalf("story %q", st)
	}
	h.Clock.Advance(5 * time.Second)
	v := h.View(100, 12)
	if !strings.Contains(v, "│ 6") || strings.Contains(v, "│ 5 ") || !strings.Contains(v, "max msgs 5") {
		t.Fatalf("the window must show 6 to 10:\n%s", v)
	}

	h.Run(`stream edit ORDERS --discard new -f`)
	h.Settle("discard new", func(s Snapshot) bool { return orders(s).Discard == "new" })
	if out, err := h.Try(`pub orders.new "one too many" --jetstream`); err == nil {
		t.Fatalf("a full stream with discard new must refuse: %s", out)
	}
	h.Settle("refused", func(s Snapshot) bool { l := orders(s); return l.Seen.Refused == 1 && l.Discard == "new" })
	if l := orders(h.Scene.snap); l.Last != 10 || l.Msgs != 5 {
		t.Fatalf("a refused publish must not move the log: %+v", l)
	}
	if st := h.Scene.snap.Story; !strings.Contains(st, "maximum messages exceeded") || !strings.Contains(st, "discard new") {
		t.Fatalf("story %q", st)
	}

	h.Run(`stream edit ORDERS --max-msgs-per-subject 2 -f`)
	h.Settle("two per subject", func(s Snapshot) bool { l := orders(s); return l.Msgs == 2 && l.First == 9 })
	h.Run(`stream rmm ORDERS 9 -f`)
	h.Settle("9 removed", func(s Snapshot) bool { l := orders(s); return l.Msgs == 1 && l.First == 10 })
	h.Run(`stream purge ORDERS -f`)
	h.Settle("purged", func(s Snapshot) bool { l := orders(s); return l.Msgs == 0 && l.Last == 10 })
	if st := h.Scene.snap.Story; !strings.Contains(st, "purged") || !strings.Contains(st, "#11") {
		t.Fatalf("story %q", st)
	}
	h.Clock.Advance(5 * time.Second)
	if v := h.View(100, 12); !strings.Contains(v, "empty · the next message gets #11") {
		t.Fatalf("an emptied log says what comes next:\n%s", v)
	}

	h.Run(`stream edit ORDERS --max-age 3s --dupe-window 3s -f`)
	h.Run(`pub orders.new "short-lived" --jetstream`)
	h.Settle("stored", func(s Snapshot) bool { l := orders(s); return l.Msgs == 1 && l.Last == 11 })
	// Nothing publishes now: the scene looks again when the message is due
	// to age out, by itself (the test leaves it no idle looks).
	h.Until("aged out", func(s Snapshot) bool { return orders(s).Msgs == 0 })
	if st := h.Scene.snap.Story; !strings.Contains(st, "aged out") {
		t.Fatalf("story %q", st)
	}
}

// Episode 9: a second publish with the same Nats-Msg-Id is acknowledged as
// a duplicate and the sequence does not move; after the window it is new.
//
// The stream starts with a window of seconds, not the default two
// minutes: nats-server re-arms its timer that forgets IDs when the window
// changes, but may run it before it has taken in the new window, and then
// keeps the IDs for the rest of the old one (the same with the real CLI).
func TestEpisodeDedupe(t *testing.T) {
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --dupe-window 10s --defaults`, "ORDERS")
	h.Run(`pub orders.new "order 1" -H Nats-Msg-Id:ord-1 --jetstream`)
	out := h.Run(`pub orders.new "order 1" -H Nats-Msg-Id:ord-1 --jetstream`)
	if !strings.Contains(out, "Duplicate: true") {
		t.Fatalf("second publish: %s", out)
	}
	h.Settle("one stored, one duplicate", func(s Snapshot) bool {
		l := orders(s)
		return l.Seen.Acked == 1 && l.Seen.Dups == 1 && l.Last == 1 && l.Msgs == 1
	})
	if st := h.Scene.snap.Story; !strings.Contains(st, "ord-1") || !strings.Contains(st, "#1") {
		t.Fatalf("story %q", st)
	}
	h.Run(`pub orders.new "order 2" -H Nats-Msg-Id:ord-2 --jetstream`)
	h.Settle("ord-2", func(s Snapshot) bool { return orders(s).Last == 2 })
	h.Run(`stream edit ORDERS --dupe-window 1s -f`)
	h.Settle("window 1s", func(s Snapshot) bool { return orders(s).Dupes == time.Second })
	// The server forgets IDs on a timer of its own: publish again until it
	// has, and the scene must agree with every answer.
	dups := uint64(1)
	for deadline := time.Now().Add(30 * time.Second); ; {
		out := h.Run(`pub orders.new "order 1" -H Nats-Msg-Id:ord-1 --jetstream`)
		if !strings.Contains(out, "Duplicate: true") {
			break
		}
		dups++
		h.Settle("another duplicate", func(s Snapshot) bool { return orders(s).Seen.Dups == dups })
		if time.Now().After(deadline) {
			t.Fatal("the server never forgot ord-1")
		}
	}
	h.Settle("stored again", func(s Snapshot) bool { l := orders(s); return l.Last == 3 && l.Seen.Acked == 3 })
	if l := orders(h.Scene.snap); l.Seen.Dups != dups {
		t.Fatalf("dups %d, the server said %d", l.Seen.Dups, dups)
	}
}

// Episode 10: after a restart the file stream is back with its messages and
// the memory stream is gone, and the scene says which and why.
func TestEpisodeRestart(t *testing.T) {
	h := newHarness(t, Options{})
	// The lesson makes DISK and RAM: the scene's ORDERS is an example,
	// and where it knows a stream it names that one.
	h.Settle("no stream yet", func(s Snapshot) bool { return strings.Contains(s.Problem, "no stream yet") })
	if p := h.Scene.snap.Problem; !strings.Contains(p, "for example: stream add ORDERS") {
		t.Fatalf("the scene's stream add reads as the lesson's own: %q", p)
	}
	h.add(`stream add DISK --subjects "disk.>" --storage file --defaults`, "DISK")
	if _, err := h.Scene.Do("watch", nil); err == nil || !strings.Contains(err.Error(), "for example: watch DISK") {
		t.Fatalf("watch with no stream named: %v", err)
	}
	h.Run(`pub disk.note "kept {{Count}}" --count 3 --jetstream`)
	h.add(`stream add RAM --subjects "ram.>" --storage memory --defaults`, "RAM")
	h.Run(`pub ram.note "fleeting {{Count}}" --count 3 --jetstream`)
	h.Settle("both", func(s Snapshot) bool {
		d, _ := laneOf(s, "DISK")
		r, _ := laneOf(s, "RAM")
		return d.Msgs == 3 && r.Msgs == 3
	})
	if s := h.Scene.snap; s.Streams[0].Name != "DISK" || s.Streams[1].Name != "RAM" {
		t.Fatalf("lanes in order of creation: %v, %v", s.Streams[0].Name, s.Streams[1].Name)
	}
	h.Run(`restart`)
	h.Settle("after the restart", func(s Snapshot) bool {
		d, _ := laneOf(s, "DISK")
		r, _ := laneOf(s, "RAM")
		return s.ServerUp && d.Msgs == 3 && d.Gone == "" && r.Gone != ""
	})
	r, _ := laneOf(h.Scene.snap, "RAM")
	if !strings.Contains(r.Gone, "memory") || r.Had != 3 {
		t.Fatalf("RAM: %+v", r)
	}
	st := h.Scene.snap.Story
	if !strings.Contains(st, "DISK came back from disk with 3"+text.NoBreak+"messages") || !strings.Contains(st, "RAM is gone") {
		t.Fatalf("story %q", st)
	}
	h.Clock.Advance(5 * time.Second)
	v := h.View(100, 14)
	for _, want := range []string{"DISK", "│ 3", "RAM", "gone in the restart: memory storage", "it held 3 messages"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	// The scene's subject tap on ram.> left with the stream: a --jetstream
	// publish there hears "no responders" again at once.
	// The real CLI's error is nats.go's "no responders"; a timeout would
	// mean something still listens on ram.>.
	if out, err := h.Try(`pub ram.note "anyone?" --jetstream`); err == nil || !strings.Contains(err.Error(), "no responders available for request") {
		t.Fatalf("publish to a gone stream: want no responders: %v\n%s", err, out)
	}
}

// Episode 10 on the lab's cluster: its meta group keeps every stream's
// definition on disk, so the memory stream comes back from a restart,
// without its messages, and the scene says so rather than that it came
// back from disk. A node stopping is no restart: the scene's connection
// moves to another node, and the cluster runs on.
func TestEpisodeRestartOnTheCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	h := newHarness(t, Options{}, brokertest.Clustered())
	h.add(`stream add DISK --subjects "disk.>" --storage file --defaults`, "DISK")
	h.Run(`pub disk.note "kept {{Count}}" --count 3 --jetstream`)
	h.add(`stream add RAM --subjects "ram.>" --storage memory --replicas 3 --defaults`, "RAM")
	h.Run(`pub ram.note "fleeting {{Count}}" --count 3 --jetstream`)
	h.Settle("both", func(s Snapshot) bool {
		d, _ := laneOf(s, "DISK")
		r, _ := laneOf(s, "RAM")
		return d.Msgs == 3 && r.Msgs == 3
	})
	h.Run(`restart`)
	h.Settle("after the restart", func(s Snapshot) bool {
		return s.ServerUp && strings.HasPrefix(s.Story, "after the restart: ")
	})
	st := h.Scene.snap.Story
	if !strings.Contains(st, "DISK came back from disk with 3"+text.NoBreak+"messages") ||
		!strings.Contains(st, "RAM is back without the 3"+text.NoBreak+"messages it held: the cluster keeps a stream's definition on disk, but a memory stream's messages only in memory") ||
		strings.Contains(st, "RAM came back from disk") {
		t.Fatalf("story %q", st)
	}
	if r, _ := laneOf(h.Scene.snap, "RAM"); r.Msgs != 0 || r.Gone != "" {
		t.Fatalf("RAM after the restart: %+v", r)
	}

	// The node the scene's connection is on stops: no restart, and the
	// replicated stream keeps its messages on the other two.
	h.Run(`pub ram.note "replicated {{Count}}" --count 2 --jetstream`)
	h.Settle("RAM holds 2", func(s Snapshot) bool { r, _ := laneOf(s, "RAM"); return r.Msgs == 2 })
	node := h.Scene.d.nc.ConnectedServerName()
	h.Run("node stop " + node)
	h.Run(`pub ram.note "while one is down" --jetstream`)
	h.Settle("RAM holds 3", func(s Snapshot) bool { r, _ := laneOf(s, "RAM"); return r.Msgs == 3 })
	s := h.Scene.snap
	if !s.ServerUp || strings.Contains(s.Story, "the server stopped") || strings.Contains(s.Story, "after the restart") {
		t.Fatalf("with %s stopped the scene says: up %v, %q", node, s.ServerUp, s.Story)
	}
}

// On the lab's cluster a stream whose every copy is on stopped nodes is
// offline: the server lists it with its configuration alone, no messages,
// no leader. The scene shows what it held when last read and says where it
// waits, not an empty log; a scene opened meanwhile knows no numbers.
func TestAStreamOnStoppedNodesIsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node cluster")
	}
	h := newHarness(t, Options{}, brokertest.Clustered())
	h.add(`stream add DISK --subjects "disk.>" --storage file --defaults`, "DISK")
	h.Run(`pub disk.note "kept {{Count}}" --count 3 --jetstream`)
	h.Settle("DISK holds 3", func(s Snapshot) bool { d, _ := laneOf(s, "DISK"); return d.Msgs == 3 })
	node := h.Srv.Cluster().StreamLeader("DISK")
	h.Run("node stop " + node)
	h.Settle("DISK offline", func(s Snapshot) bool { d, _ := laneOf(s, "DISK"); return d.Offline != "" })
	d, _ := laneOf(h.Scene.snap, "DISK")
	if d.Msgs != 3 || d.Last != 3 || d.Offline != "offline: held on "+node+", stopped" {
		t.Fatalf("DISK with %s stopped: %+v", node, d)
	}
	if st := h.Scene.snap.Story; !strings.Contains(st, "DISK is offline: no node that holds it runs (held on "+node+", stopped), and what it holds waits there") {
		t.Fatalf("story %q", st)
	}
	if v := h.View(100, 14); !strings.Contains(v, "offline: held on "+node) || strings.Contains(v, "empty") || !strings.Contains(v, "messages 3") {
		t.Fatalf("with %s stopped:\n%s", node, v)
	}

	// A scene opened now never read it.
	other := newHarnessOn(t, h.Srv, h.Srv, Options{})
	other.Settle("DISK offline", func(s Snapshot) bool { d, _ := laneOf(s, "DISK"); return d.Offline != "" })
	if d, _ := laneOf(other.Scene.snap, "DISK"); !d.Unread {
		t.Fatalf("DISK, never read: %+v", d)
	}
	if v := other.View(100, 14); !strings.Contains(v, "offline · what it holds waits on its nodes") || strings.Contains(v, "empty") || strings.Contains(v, "messages 0") {
		t.Fatalf("a scene opened with %s stopped:\n%s", node, v)
	}

	h.Run("node start " + node)
	h.Settle("DISK online", func(s Snapshot) bool { d, _ := laneOf(s, "DISK"); return d.Offline == "" })
	if st := h.Scene.snap.Story; !strings.Contains(st, "DISK is online again with 3"+text.NoBreak+"messages") {
		t.Fatalf("story %q", st)
	}
}

// A real nats CLI publishing from outside the lab: its acknowledgement is
// seen like the pane's.
func TestRealCLIPublish(t *testing.T) {
	h := newHarness(t, Options{Stream: "ORDERS"})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	res := brokertest.RunRealCLI(t, h.Srv.ClientURL(), "pub", "orders.new", "hi", "--jetstream")
	if res.ExitCode != 0 {
		t.Fatalf("nats pub: %s%s", res.Stdout, res.Stderr)
	}
	h.Settle("acknowledged", func(s Snapshot) bool { l := orders(s); return l.Seen.Acked == 1 && l.Last == 1 })
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
		{"publish", nil, "no stream yet: stream add makes one (for example: stream add ORDERS"},
		{"publish", []string{"0"}, "whole number from 1"},
		{"reset", []string{"x"}, "no arguments"},
		{"fly", nil, `no control "fly"`},
	} {
		_, err := h.Scene.Do(c.control, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.control, c.args, err, c.want)
		}
	}
	h.Run(`stream add ORDERS --subjects "orders.>" --defaults`)
	h.Run(`stream add EVENTS --subjects "events.>" --defaults`)
	if _, err := h.Scene.Do("watch", []string{"NOPE"}); err == nil || !strings.Contains(err.Error(), "streams are EVENTS, ORDERS") {
		t.Fatalf("watch NOPE: %v", err)
	}
	if got := h.Do("watch", "ORDERS"); !strings.Contains(got, "watching ORDERS") {
		t.Fatalf("watch: %q", got)
	}
	h.Settle("one lane", func(s Snapshot) bool { return len(s.Streams) == 1 && s.Streams[0].Name == "ORDERS" })
	if got := h.Do("publish", "3"); !strings.Contains(got, "ORDERS stored #1 to #3") {
		t.Fatalf("publish: %q", got)
	}
	h.Settle("three acks", func(s Snapshot) bool { l := orders(s); return l.Seen.Acked == 3 && l.Msgs == 3 })
	h.Do("reset")
	h.Settle("counts zero", func(s Snapshot) bool { return orders(s).Seen.Acked == 0 })
	h.Do("watch", "all")
	h.Settle("two lanes", func(s Snapshot) bool { return len(s.Streams) == 2 })
}

// Against a deployment the lab does not run (natslab --server URL), the
// log is drawn the same: everything comes over the client protocol.
func TestExternalDeployment(t *testing.T) {
	srv := brokertest.Start(t)
	ext := kittest.External(t, srv)
	h := newHarnessOn(t, srv, ext, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Run(`pub orders.new hi --jetstream`)
	h.Settle("acknowledged", func(s Snapshot) bool { l := orders(s); return l.Seen.Acked == 1 && l.Last == 1 })
}

// With no stream yet and the rows for it (beside the lesson pane at
// 100x30 and at 120x36), the scene lists what to type, each command whole
// on its line; typed, they bring it to life: three messages at #1 to #3.
func TestNoStreamListsWhatBringsItToLife(t *testing.T) {
	h := newHarness(t, Options{})
	h.Settle("no stream", func(s Snapshot) bool { return s.Problem == noStream })
	for _, sz := range append(slices.Clone(scenes.LessonPanes), scenes.PaneSize{W: 68, H: 16}) {
		v := h.View(sz.W, sz.H)
		for _, cmd := range tryStream {
			if !slices.ContainsFunc(strings.Split(v, "\n"), func(l string) bool { return strings.TrimSpace(l) == cmd }) {
				t.Errorf("at %dx%d the scene does not show %q whole on a line:\n%s", sz.W, sz.H, cmd, v)
			}
		}
	}
	h.add(tryStream[0], "ORDERS")
	for _, cmd := range tryStream[1:] {
		h.Run(cmd)
	}
	h.Settle("three stored", func(s Snapshot) bool { l := orders(s); return l.First == 1 && l.Last == 3 && l.Msgs == 3 })
	if v := h.View(68, 16); !strings.Contains(v, "first #1 · last #3 · messages 3") {
		t.Errorf("after the commands the scene does not show the three messages:\n%s", v)
	}
}
