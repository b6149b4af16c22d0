package kit

import (
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"natslab/scenes"
)

// Feed carries events from NATS callbacks (any goroutine) into a Bubble Tea
// model. Sending never blocks: the channel is bounded and an event that
// does not fit is dropped and counted, so a flood costs the broker nothing
// and memory stays flat. Animation samples; counters must therefore be read
// from the scene's exact state, never summed from events.
//
// The model arms Wait once in Init and again after each FeedMsg it handles:
// a Cmd that waits on the channel, so nothing polls.
//
// Events and pokes are counted, so a test can wait until a model has
// applied everything a driver told it up to some moment (Sent and Poked,
// then FeedMsg.Through and FeedMsg.Pokes) instead of waiting a while. For
// that to cover a change of the scene's state, a driver sends the event
// about a change before the change can be read (before, or under the lock
// its snapshot takes), and pokes after: whoever sees the new state also
// finds its event counted in Sent.
type Feed struct {
	events    chan Event
	wake      chan struct{}
	done      chan struct{}
	once      sync.Once
	sendMu    sync.Mutex    // queues and numbers an event as one step
	sent      atomic.Uint64 // events queued
	delivered atomic.Uint64 // events taken off the queue into a FeedMsg
	poked     atomic.Uint64 // pokes
	dropped   atomic.Uint64
	minGap    time.Duration
	last      atomic.Int64 // unix nanos of the last delivery
	batch     int
}

// FeedMsg is what Wait and Next deliver: the events since the last one
// (possibly none, when the scene was only poked to re-read its state, or
// when it is a frame).
type FeedMsg struct {
	feed   *Feed
	Events []Event
	Frame  bool // a frame: time passed for what moves
	// Poked says a poke was taken with this message: the driver's state
	// changed since the last one, even when Events is empty.
	Poked bool
	// Through is how many events the feed had delivered once this
	// message's were taken: a model that applied it has applied the
	// first Through events ever sent.
	Through uint64
	// Pokes is how many pokes came before this message was made: a model
	// that applied it has read the state they were about.
	Pokes uint64
}

// For reports whether the message came from f (a lab may host several
// scenes over time; a stale scene's message must not reach a new one).
func (m FeedMsg) For(f *Feed) bool { return m.feed == f }

// News reports whether the driver's state may have changed since the last
// message: events came, or a poke, or it is not a bare frame. A model
// re-reads the state on news; on a bare frame only time moved. A poke that
// lands while a scene animates arrives inside a frame, so a model that
// looked at Frame alone would leave the state it announced unread until
// the next poke.
func (m FeedMsg) News() bool { return len(m.Events) > 0 || m.Poked || !m.Frame }

// NewFeed makes a feed holding at most size undelivered events and
// delivering at most rate batches a second (0: no limit).
func NewFeed(size, rate int) *Feed {
	f := &Feed{
		events: make(chan Event, size),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		batch:  size,
	}
	if rate > 0 {
		f.minGap = time.Second / time.Duration(rate)
	}
	return f
}

// Send offers an event; it reports false (and counts a drop) when the feed
// is full or closed.
func (f *Feed) Send(e Event) bool {
	f.sendMu.Lock()
	defer f.sendMu.Unlock()
	select {
	case f.events <- e:
		f.sent.Add(1)
		return true
	default:
		f.dropped.Add(1)
		return false
	}
}

// Sent is how many events the feed has queued: once a model has applied a
// FeedMsg whose Through is at least this, it has applied every one of
// them.
func (f *Feed) Sent() uint64 { return f.sent.Load() }

// Poke wakes the model to re-read the scene's state without an event to
// animate. Pokes coalesce.
func (f *Feed) Poke() {
	f.poked.Add(1)
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Poked is how many times the feed was poked: once a model has applied a
// FeedMsg whose Pokes is at least this, it has read the state as it was at
// the last of them.
func (f *Feed) Poked() uint64 { return f.poked.Load() }

// Dropped is how many events did not fit.
func (f *Feed) Dropped() uint64 { return f.dropped.Load() }

// Close ends the feed; a pending Wait returns nil.
func (f *Feed) Close() { f.once.Do(func() { close(f.done) }) }

// Wait is the Cmd that delivers the next FeedMsg. Batches are spaced at
// least 1/rate apart: under a flood the model updates a bounded number of
// times a second, whatever the broker does.
func (f *Feed) Wait() tea.Cmd {
	return func() tea.Msg {
		var first []Event
		poked := false
		select {
		case <-f.done:
			return nil
		case e := <-f.events:
			first = append(first, e)
		case <-f.wake:
			poked = true
		}
		if gap := f.gap(time.Now()); gap > 0 {
			t := time.NewTimer(gap)
			select {
			case <-f.done:
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		f.last.Store(time.Now().UnixNano())
		evs, drained := f.drain(first)
		return f.msg(evs, false, poked || drained)
	}
}

// gap is how long a batch due at now waits so that it comes at least
// 1/rate after the last one.
func (f *Feed) gap(now time.Time) time.Duration {
	if f.minGap <= 0 {
		return 0
	}
	return max(f.minGap-time.Duration(now.UnixNano()-f.last.Load()), 0)
}

// Next is a scene's one heartbeat. With frame > 0 (something moves) it
// delivers a frame after that long, carrying whatever events came in the
// meantime; with 0 it is Wait. A scene arms Next once in Init and again
// after each FeedMsg, so events and frames share one chain of updates:
// a host that redraws after every message redraws once per frame while
// things move, and only on news while nothing does. A wait longer than a
// frame (the next step of a fade, the end of a flash) is cut short by
// news, as Wait is, so news never waits for it.
func (f *Feed) Next(frame time.Duration) tea.Cmd {
	if frame <= 0 {
		return f.Wait()
	}
	return func() tea.Msg {
		t := time.NewTimer(frame)
		defer t.Stop()
		var events <-chan Event
		var wake <-chan struct{}
		if frame > scenes.FrameInterval {
			events, wake = f.events, f.wake
		}
		var first []Event
		fired, poked := false, false
		select {
		case <-f.done:
			return nil
		case <-t.C:
			fired = true
		case e := <-events:
			first = append(first, e)
		case <-wake:
			poked = true
		}
		if gap := f.gap(time.Now()); !fired && gap > 0 {
			t.Reset(gap)
			select {
			case <-f.done:
				return nil
			case <-t.C:
			}
		}
		f.last.Store(time.Now().UnixNano())
		evs, drained := f.drain(first)
		return f.msg(evs, fired, poked || drained)
	}
}

// msg delivers evs, the events just taken off the queue. It counts the
// pokes after the wake-up was taken: a poke counts itself before it wakes,
// so every poke whose wake-up this message took is in its count, and a
// poke not counted still has its wake-up waiting for the next message.
// The model reads the state after this, so it reads what every counted
// poke was about.
func (f *Feed) msg(evs []Event, frame, poked bool) FeedMsg {
	return FeedMsg{feed: f, Events: evs, Frame: frame, Poked: poked, Through: f.delivered.Add(uint64(len(evs))), Pokes: f.poked.Load()}
}

// drain takes what is waiting, up to a batch, without blocking, and any
// pending poke with it (poked says there was one): the message it goes
// into answers that poke.
func (f *Feed) drain(evs []Event) (_ []Event, poked bool) {
	for len(evs) < f.batch {
		select {
		case e := <-f.events:
			evs = append(evs, e)
		default:
			select {
			case <-f.wake:
				return evs, true
			default:
			}
			return evs, false
		}
	}
	return evs, false
}

// Server announces the server going down or coming back when up is news
// to shown (the state the driver's snapshot holds), and sets shown: the
// event goes before the change can be read, so the caller holds the lock
// its snapshot takes.
func (f *Feed) Server(shown *bool, up bool) {
	if *shown != up {
		f.Send(ServerEvent(up))
	}
	*shown = up
}
