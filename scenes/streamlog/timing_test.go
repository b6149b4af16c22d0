package streamlog

import (
	"testing"
	"time"
)

// What changes a stream without a publish (rmm, purge, an edit) is news
// through the API advisories, not something for the next idle look, even
// while the scene animates.
func TestChangesAreNews(t *testing.T) {
	withoutIdleLooks(t)
	h := newHarness(t, Options{})
	h.add(`stream add ORDERS --subjects "orders.>" --defaults`, "ORDERS")
	h.Run(`pub orders.new "order {{Count}}" --count 5 --jetstream`)
	h.Settle("five", func(s Snapshot) bool { return orders(s).Msgs == 5 })
	for _, c := range []struct {
		line string
		done func(Lane) bool
	}{
		{`stream rmm ORDERS 3 -f`, func(l Lane) bool { return l.Msgs == 4 && !l.Holds(3) }},
		{`stream edit ORDERS --max-msgs 2 -f`, func(l Lane) bool { return l.Msgs == 2 && l.MaxMsgs == 2 }},
		{`stream purge ORDERS -f`, func(l Lane) bool { return l.Msgs == 0 }},
	} {
		h.Run(c.line)
		h.Until(c.line, func(s Snapshot) bool { return c.done(orders(s)) })
	}
}

// withoutIdleLooks leaves the scene no looks but those news brings: none
// while idle, and none in the moment after news.
func withoutIdleLooks(t *testing.T) {
	idle, busy := idlePoll, busyFor
	idlePoll, busyFor = time.Hour, 0
	t.Cleanup(func() { idlePoll, busyFor = idle, busy })
}
