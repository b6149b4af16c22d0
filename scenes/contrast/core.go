package contrast

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The core side. Exactly one subscription on events.> exists at a time:
// the core app's own while it is online (what it receives is what was
// published), and the scene's tap while the app is offline (what the tap
// sees is what the app lost). One subscription rather than two halves
// what a flood costs the broker. The price is a moment at each switch
// when a message racing it is counted neither received nor lost, never
// both.

// tapBuffer bounds the tap's channel: past it nats.go drops (and counts)
// rather than block the connection, and the drops are added to the counts.
const tapBuffer = 16 * 1024

// Subscriptions queue at most this much in nats.go before dropping (and
// counting): memory stays bounded whatever a flood does.
const (
	pendingMsgs  = 512 * 1024
	pendingBytes = 32 << 20
)

// drops are messages nats.go dropped for want of room: the app's because
// it was too slow (a real slow consumer), the tap's because its channel
// was full. They were published all the same, so they are counted.
type drops struct {
	app, tap         uint64 // from subscriptions that are gone, since the last reset
	appBase, tapBase uint64 // what the live subscriptions had dropped at the last reset
}

// dropped is the app's and the tap's drops since the last reset.
func (d *driver) dropped() (app, tap uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.drops.app + watch.Dropped(d.coreSub) - d.drops.appBase, d.drops.tap + watch.Dropped(d.tap) - d.drops.tapBase
}

// zeroDrops starts the drop counts again (reset).
func (d *driver) zeroDrops() {
	d.mu.Lock()
	d.drops = drops{appBase: watch.Dropped(d.coreSub), tapBase: watch.Dropped(d.tap)}
	d.mu.Unlock()
}

func (d *driver) startCore() error {
	d.tapCh = make(chan *nats.Msg, tapBuffer)
	d.tapSync = make(chan struct{})
	d.sentinel = &nats.Msg{}
	d.Go(d.runTap)
	return d.coreUp()
}

// onApp is the core app receiving a message.
func (d *driver) onApp(m *nats.Msg) {
	d.feed.Send(kit.Event{Kind: kit.Published, Subject: m.Subject, Client: coreApp})
	d.published.Add(1)
	d.coreReceived.Add(1)
	d.kickPoll()
}

// runTap counts what the tap sees while the core app is offline: published,
// and lost.
func (d *driver) runTap() {
	for {
		var m *nats.Msg
		select {
		case <-d.Ctx.Done():
			return
		case m = <-d.tapCh:
		}
		if m == d.sentinel {
			select {
			case d.tapSync <- struct{}{}:
			case <-d.Ctx.Done():
				return
			}
			continue
		}
		d.feed.Send(kit.Event{Kind: kit.Lost, Subject: m.Subject, Client: coreApp})
		d.published.Add(1)
		d.coreLost.Add(1)
		d.kickPoll()
	}
}

// syncTap returns once the tap has counted everything in its channel.
func (d *driver) syncTap() {
	select {
	case d.tapCh <- d.sentinel:
	case <-d.Ctx.Done():
		return
	}
	select {
	case <-d.tapSync:
	case <-d.Ctx.Done():
	}
}

// coreUp brings the core app online: the tap goes (what it already had
// is counted as lost), then the app subscribes.
func (d *driver) coreUp() error {
	d.mu.Lock()
	tap := d.tap
	if tap != nil {
		d.drops.tap += watch.Dropped(tap) - d.drops.tapBase
		d.drops.tapBase = 0
	}
	d.tap = nil
	d.mu.Unlock()
	if tap != nil {
		_ = tap.Unsubscribe()
		_ = d.sceneNC.Flush() // whatever was routed to the tap is in its channel now
		d.syncTap()
	}
	sub, err := d.coreNC.Subscribe(Watch, d.onApp)
	if err != nil {
		return fmt.Errorf("the core app cannot subscribe to %s: %w", Watch, err)
	}
	_ = sub.SetPendingLimits(pendingMsgs, pendingBytes)
	if err := d.coreNC.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return fmt.Errorf("the core app cannot reach the server: %w", err)
	}
	d.mu.Lock()
	d.coreSub = sub
	d.mu.Unlock()
	d.feed.Send(kit.Event{Kind: kit.ClientUp, Client: coreApp})
	d.coreOnline.Store(true)
	return nil
}

// coreDown takes the core app offline: its subscription drains (what the
// client already has is still received) and goes; the tap takes over and
// counts what comes from now on as lost.
func (d *driver) coreDown() error {
	d.mu.Lock()
	sub := d.coreSub
	d.coreSub = nil
	if sub != nil {
		d.drops.app += watch.Dropped(sub) - d.drops.appBase
		d.drops.appBase = 0
	}
	d.mu.Unlock()
	d.feed.Send(kit.Event{Kind: kit.ClientDown, Client: coreApp})
	d.coreOnline.Store(false)
	if sub != nil {
		if err := sub.Drain(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
			_ = sub.Unsubscribe()
		}
		for deadline := time.Now().Add(5 * time.Second); sub.IsValid() && time.Now().Before(deadline); {
			if !d.Sleep(2 * time.Millisecond) {
				break
			}
		}
	}
	tap, err := d.sceneNC.ChanSubscribe(Watch, d.tapCh)
	if err != nil {
		return fmt.Errorf("the scene cannot watch %s: %w", Watch, err)
	}
	if err := d.sceneNC.Flush(); err != nil {
		return fmt.Errorf("the scene cannot reach the server: %w", err)
	}
	d.mu.Lock()
	d.tap = tap
	d.mu.Unlock()
	return nil
}
