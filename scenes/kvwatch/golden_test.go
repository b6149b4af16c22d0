package kvwatch

import (
	"testing"
	"time"
)

// Goldens of the scene at each stage of the key-value episode, drawn on a
// manual clock (ANSI stripped). Update with -update. The commands are the
// episode's own, typed one at a time as a learner would.

func (h *harness) still() { h.clock.Advance(3 * time.Second) }

// last is the newest write the scene heard.
func last(s Snapshot) Change {
	if n := len(s.Changes); n > 0 {
		return s.Changes[n-1]
	}
	return Change{}
}

func TestGoldenEpisode(t *testing.T) {
	h := newHarness(t)
	const w, ht = 100, 16
	h.golden(t, "1-no-bucket", w, ht)

	h.run("kv add profiles")
	h.settle("bucket", func(s Snapshot) bool { return s.Bucket == "profiles" })
	h.still()
	h.golden(t, "2-empty-bucket", w, ht)

	h.run("kv put profiles sue.color blue")
	h.settle("blue", func(s Snapshot) bool { return last(s).Rev == 1 })
	h.clock.Advance(200 * time.Millisecond)
	h.golden(t, "3-put-arriving", w, ht)
	h.still()
	h.golden(t, "4-blue-at-rev-1", w, ht)

	h.start("kv watch profiles")
	h.run("kv put profiles sue.color green")
	h.settle("green", func(s Snapshot) bool { return last(s).Rev == 2 && s.Watchers == 1 })
	h.still()
	h.golden(t, "5-green-watched", w, ht)

	_, _ = h.try("kv update profiles sue.color red 1")
	h.settle("refused", func(s Snapshot) bool { return last(s).Refused })
	h.clock.Advance(550 * time.Millisecond)
	h.golden(t, "6-stale-update-bouncing", w, ht)
	h.still()
	h.golden(t, "7-stale-update-refused", w, ht)

	h.run("kv update profiles sue.color red 2")
	h.settle("red", func(s Snapshot) bool { return last(s).Rev == 3 })
	h.still()
	h.golden(t, "8-update-at-current-revision", w, ht)

	h.run("kv del profiles sue.color -f")
	h.settle("deleted", func(s Snapshot) bool { return last(s).Rev == 4 })
	h.still()
	h.golden(t, "9-deleted-marker", w, ht)
}

func TestGoldenSizes(t *testing.T) {
	h := newHarness(t, "kv add config --history 5", "kv put config app.color blue", "kv put config app.color green",
		"kv put config app.mode dark", "kv put config db.url nats://127.0.0.1:4222")
	h.settle("keys", func(s Snapshot) bool { return len(s.Keys) == 3 })
	h.run("kv put config app.mode light")
	h.settle("light", func(s Snapshot) bool { return last(s).Rev == 5 })
	h.still()
	for _, sz := range []struct {
		name string
		w, h int
	}{
		{"200x24", 200, 24},
		{"120x16", 120, 16},
		{"80x12", 80, 12},
		{"60x8", 60, 8},
		{"40x6", 40, 6},
		{"39x6-one-line", 39, 6},
		{"1x1", 1, 1},
	} {
		h.golden(t, sz.name, sz.w, sz.h)
	}
}
