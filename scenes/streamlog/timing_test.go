package streamlog

import (
	"testing"
	"time"
)

// What changes a stream without a publish (rmm, purge, an edit) is news at
// once through the API advisories, even while the scene animates.
func TestChangesShowWithinAMoment(t *testing.T) {
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
		start := time.Now()
		h.Run(c.line)
		h.Until(c.line, func(s Snapshot) bool { return c.done(orders(s)) })
		if el := time.Since(start); el > 2500*time.Millisecond { // well short of the 5 s idle look, with room for a loaded machine
			t.Fatalf("%s: shown after %v", c.line, el)
		}
	}
}
