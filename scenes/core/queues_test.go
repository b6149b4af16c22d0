package core

import (
	"strings"
	"testing"

	"natslab/broker/command"
)

// memberCounts are the queue group members' counts on screen, in order.
func memberCounts(s Snapshot, queue string) []uint64 {
	var out []uint64
	for _, sub := range s.Subs {
		if sub.Queue == queue {
			out = append(out, sub.Msgs)
		}
	}
	return out
}

func sum(ns []uint64) uint64 {
	var t uint64
	for _, n := range ns {
		t += n
	}
	return t
}

// Two workers share six tasks: each task to exactly one of them, the
// counts on screen what each job received. A third worker with a typo in
// its group's name is a second group: it gets all six again.
func TestQueueGroupSplitsAndATypoDoubles(t *testing.T) {
	h := newHarness(t, Queues)
	w1 := h.Start("sub tasks --queue workers")
	w2 := h.Start("sub tasks --queue workers")
	h.Settle("two members", subsOn("tasks", 2))

	h.Run(`pub tasks "task {{Count}}" --count 6`)
	h.Settle("six delivered", func(s Snapshot) bool { return s.Published == 6 && s.Delivered() == 6 })
	got := memberCounts(h.Scene.snap, "workers")
	if len(got) != 2 || sum(got) != 6 {
		t.Fatalf("members on screen: %v, want two summing to 6", got)
	}
	byJob := map[string]uint64{}
	for _, j := range []*command.Job{w1, w2} {
		byJob[jobConn(t, h, j)] = j.Received()
	}
	for _, s := range h.Scene.snap.Subs {
		if byJob[s.Key] != s.Msgs {
			t.Errorf("%s: %d on screen, its job received %d", s.Key, s.Msgs, byJob[s.Key])
		}
	}
	if w1.Received()+w2.Received() != 6 {
		t.Errorf("the workers received %d and %d: six tasks, none twice", w1.Received(), w2.Received())
	}
	if v := h.settled(120, 12); !strings.Contains(v, "each message: 1 copy") || !strings.Contains(v, "workers") {
		t.Errorf("one group, one copy:\n%s", v)
	}

	w3 := h.Start("sub tasks --queue worker")
	h.Settle("a second group", subsOn("tasks", 3))
	h.Do("reset")
	h.Run(`pub tasks "task {{Count}}" --count 6`)
	h.Settle("twelve delivered", func(s Snapshot) bool { return s.Published == 6 && s.Delivered() == 12 })
	if got := memberCounts(h.Scene.snap, "worker"); len(got) != 1 || got[0] != 6 {
		t.Errorf("the typo's group: %v, want [6]", got)
	}
	if got := memberCounts(h.Scene.snap, "workers"); sum(got) != 6 {
		t.Errorf("workers: %v, want 6 between them", got)
	}
	if w3.Received() != 6 || w1.Received()+w2.Received() != 12 {
		t.Errorf("received: workers %d+%d (12 over both batches), worker %d (6)", w1.Received(), w2.Received(), w3.Received())
	}
	if v := h.settled(120, 12); !strings.Contains(v, "each message: 2 copies") || !strings.Contains(v, "delivered 12") {
		t.Errorf("two groups, two copies:\n%s", v)
	}
}

// jobConn finds the subscription key of a job's connection: the job whose
// count matches, among the subscriptions the scene shows.
func jobConn(t *testing.T, h *harness, j *command.Job) string {
	t.Helper()
	// The lab's sub connects as "natslab sub tasks", one connection per
	// job, in the order the jobs started: so do the scene's rows.
	idx := -1
	for i, x := range h.Jobs() {
		if x == j {
			idx = i
		}
	}
	if idx < 0 || idx >= len(h.Scene.snap.Subs) {
		t.Fatalf("job %d not on screen", idx)
	}
	return h.Scene.snap.Subs[idx].Key
}
