package retention

import (
	"testing"

	"natslab/scenes/kit"
)

// benchScene has three streams with consumers and acknowledgements in
// flight at 118x18.
func benchScene(b *testing.B) *harness {
	h := newHarness(b, Options{})
	h.Scene.Styles = kit.NewStyles(true)
	h.makeStreams()
	for _, line := range []string{
		`consumer add INTEREST a --pull --defaults`, `consumer add INTEREST b --pull --defaults`,
		`consumer add WORK w --pull --defaults`, `consumer add LIMITS l --pull --defaults`,
	} {
		h.Run(line)
	}
	h.Do("publish", "10")
	for _, line := range []string{`consumer next INTEREST a --count 5`, `consumer next WORK w --count 5`, `consumer next LIMITS l --count 5`} {
		h.Run(line)
	}
	h.Settle("acked", func(s Snapshot) bool { return col(s, "workqueue").Msgs == 5 && col(s, "limits").Acks == 5 })
	h.Scene.SetSize(118, 18)
	return h
}

// Drawing a frame mid-animation: what each frame costs.
func BenchmarkViewAnimating(b *testing.B) { benchScene(b).BenchAnimating(b) }

// Drawing when nothing moved costs nothing: the cached frame.
func BenchmarkViewIdle(b *testing.B) { benchScene(b).BenchIdle(b) }
