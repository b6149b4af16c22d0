package script

import (
	"fmt"
	"time"

	"natslab/broker/command"
)

// MaxSleep bounds one sleep line.
const MaxSleep = time.Minute

// Sleep is the script line `sleep DURATION`: it waits, for an ack wait, a
// max age or a TTL to run out, instead of a command misused as a clock.
// Run adds it to the session it runs a script in.
var Sleep = command.Verb{
	Name:    "sleep",
	Usage:   "sleep DURATION",
	Summary: "Wait, for example for an ack wait or a max age to pass (sleep 3s)",
	Run: func(c *command.Call, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("sleep takes one duration, for example sleep 3s")
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 0 {
			return fmt.Errorf("sleep wants a duration with a unit, like 500ms or 3s, got %q", args[0])
		}
		if d > MaxSleep {
			return fmt.Errorf("sleep waits at most %s, got %s", MaxSleep, d)
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-c.Ctx.Done():
			return c.Ctx.Err()
		}
	},
}
