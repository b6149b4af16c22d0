package contrast

import (
	"fmt"

	"github.com/nats-io/nats.go"

	"natslab/scenes/kit"
)

// The tap counts every message on events.>, and counts as lost those that
// came while the core app was unsubscribed. Whether the app was subscribed
// has to be judged in the order the server routed things, not in the
// order goroutines happen to run: so the tap and a private marker
// subscription share one channel on one connection, and a control that
// changes the app's state sends a mark through the server behind it. The
// tap reads messages and marks in the order the server sent them.
const tapBuffer = 16 * 1024

// Marks.
const (
	markOffline = "offline" // count from here as lost
	markOnline  = "online"  // count from here as reaching the app
	markReset   = "reset"   // start the tap's counts again
)

func (d *driver) startTap() error {
	ch := make(chan *nats.Msg, tapBuffer)
	var err error
	if d.tap, err = d.sceneNC.ChanSubscribe(Watch, ch); err != nil {
		return fmt.Errorf("cannot watch %s: %w", Watch, err)
	}
	d.marker = d.sceneNC.NewInbox()
	if _, err := d.sceneNC.ChanSubscribe(d.marker, ch); err != nil {
		return fmt.Errorf("cannot watch %s: %w", Watch, err)
	}
	d.wg.Add(1)
	go d.runTap(ch)
	return nil
}

// mark sends a mark through the server to the tap, behind everything the
// server routed to it so far.
func (d *driver) mark(what string) error {
	if err := d.sceneNC.Publish(d.marker, []byte(what)); err != nil {
		return fmt.Errorf("the scene cannot reach the server: %w", err)
	}
	return d.sceneNC.Flush()
}

func (d *driver) runTap(ch chan *nats.Msg) {
	defer d.wg.Done()
	lost := false
	var dropped uint64
	for {
		var m *nats.Msg
		select {
		case <-d.ctx.Done():
			return
		case m = <-ch:
		}
		if m.Subject == d.marker {
			switch string(m.Data) {
			case markOffline:
				lost = true
			case markOnline:
				lost = false
			case markReset:
				d.published.Store(0)
				d.coreLost.Store(0)
			}
			continue
		}
		d.published.Add(1)
		kind := kit.Published
		if lost {
			d.coreLost.Add(1)
			kind = kit.Lost
		}
		d.feed.Send(kit.Event{Kind: kind, Subject: m.Subject, Client: coreApp})
		d.kickPoll()
		if len(ch) == 0 {
			// Messages the channel had no room for were still published:
			// count them (as lost too if the app was away), so the counts
			// stay exact under a flood even though the animation samples.
			if n, err := d.tap.Dropped(); err == nil && uint64(n) > dropped {
				more := uint64(n) - dropped
				dropped = uint64(n)
				d.published.Add(more)
				if lost {
					d.coreLost.Add(more)
				}
			}
		}
	}
}
