package kvwatch

import (
	"testing"
	"time"

	"natslab/scenes/kit/kittest"
)

// Goldens of the scene at each stage of the key-value episode, drawn on a
// manual clock (ANSI stripped). Update with -update. The commands are the
// episode's own, typed one at a time as a learner would.

func (h *harness) still() { h.Clock.Advance(3 * time.Second) }

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
	h.Golden(t, "1-no-bucket", w, ht)

	h.Run("kv add profiles")
	h.Settle("bucket", func(s Snapshot) bool { return s.Bucket == "profiles" })
	h.still()
	h.Golden(t, "2-empty-bucket", w, ht)

	h.Run("kv put profiles sue.color blue")
	h.Settle("blue", func(s Snapshot) bool { return last(s).Rev == 1 })
	h.Clock.Advance(200 * time.Millisecond)
	h.Golden(t, "3-put-arriving", w, ht)
	h.still()
	h.Golden(t, "4-blue-at-rev-1", w, ht)

	h.Start("kv watch profiles")
	h.Run("kv put profiles sue.color green")
	h.Settle("green", func(s Snapshot) bool { return last(s).Rev == 2 && s.Watchers == 1 })
	h.still()
	h.Golden(t, "5-green-watched", w, ht)
	h.GoldenPanes(t, "5-green-watched")

	_, _ = h.Try("kv update profiles sue.color red 1")
	h.Settle("refused", func(s Snapshot) bool { return last(s).Refused })
	h.Clock.Advance(550 * time.Millisecond)
	h.Golden(t, "6-stale-update-bouncing", w, ht)
	h.still()
	h.Golden(t, "7-stale-update-refused", w, ht)
	h.GoldenPanes(t, "7-stale-update-refused")

	h.Run("kv update profiles sue.color red 2")
	h.Settle("red", func(s Snapshot) bool { return last(s).Rev == 3 })
	h.still()
	h.Golden(t, "8-update-at-current-revision", w, ht)

	h.Run("kv del profiles sue.color -f")
	h.Settle("deleted", func(s Snapshot) bool { return last(s).Rev == 4 })
	h.still()
	h.Golden(t, "9-deleted-marker", w, ht)
	h.GoldenPanes(t, "9-deleted-marker")
}

func TestGoldenSizes(t *testing.T) {
	h := newHarness(t, "kv add config --history 5", "kv put config app.color blue", "kv put config app.color green",
		"kv put config app.mode dark", "kv put config db.url nats://127.0.0.1:4222")
	h.Settle("keys", func(s Snapshot) bool { return len(s.Keys) == 3 })
	h.Run("kv put config app.mode light")
	h.Settle("light", func(s Snapshot) bool { return last(s).Rev == 5 })
	h.still()
	h.GoldenSizes(t,
		kittest.Size{Name: "200x24", W: 200, H: 24},
		kittest.Size{Name: "120x16", W: 120, H: 16},
		kittest.Size{Name: "80x12", W: 80, H: 12},
		kittest.Size{Name: "60x8", W: 60, H: 8},
		kittest.Size{Name: "40x6", W: 40, H: 6},
		kittest.Size{Name: "39x6-one-line", W: 39, H: 6},
		kittest.Size{Name: "1x1", W: 1, H: 1},
	)
}
