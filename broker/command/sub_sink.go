package command

import (
	"bufio"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// subOutputBuffer is how much output a subscription gathers before writing:
// a replay writes in large blocks instead of once per line.
const subOutputBuffer = 64 * 1024

// subFlushDelay is how long printed output may wait in the buffer. Output
// is flushed this soon after the first unwritten line: nobody sees the
// delay, and a burst becomes a few large writes.
const subFlushDelay = 15 * time.Millisecond

// subSink receives every message of one sub, from whichever goroutine the
// client library delivers on: it counts, prints, acknowledges, tells the
// session (Call.received) and decides when the subscription has what it
// wanted (--count, -T, --wait).
type subSink struct {
	c   *Call
	cmd *subCmd
	p   *msgPrinter

	mu       sync.Mutex
	counter  uint // the [#n] printed, including messages the client dropped
	received uint // messages handled, for --count
	dropped  map[*nats.Subscription]int
	upTo     uint64 // the highest stream sequence gone through (a barrier waits for it)
	consumer string // the named consumer read (--durable), told to the session
	ignore   []string
	stopped  bool
	err      error
	armed    bool // a flush is scheduled
	flusher  *time.Timer
	waiter   *time.Timer // --wait
	done     chan struct{}
	doneOnce sync.Once
}

func newSubSink(c *Call, s *subCmd) *subSink {
	p := &msgPrinter{
		w: bufio.NewWriterSize(c.Out, subOutputBuffer), ctx: c.Ctx,
		raw: s.raw, headersOnly: s.headersOnly, subjectsOnly: s.subjectsOnly, dump: s.dump,
		start: c.Now(), now: c.Now, status: c.Statusf, note: c.Notef,
	}
	switch {
	case s.timestamps:
		p.stamps = 't'
	case s.delta:
		p.stamps = 'd'
	}
	if s.translate != "" {
		p.translate = newTranslator(s.translate, c.timeout)
	}
	sk := &subSink{c: c, cmd: s, p: p, dropped: map[*nats.Subscription]int{}, ignore: s.ignoreSubjects(), done: make(chan struct{})}
	sk.flusher = time.AfterFunc(time.Hour, sk.flushNow)
	sk.flusher.Stop()
	if s.wait > 0 {
		sk.waiter = time.AfterFunc(s.wait, func() { sk.finish(nil) })
	}
	return sk
}

// finish ends the subscription; err is what the command returns.
func (sk *subSink) finish(err error) {
	sk.doneOnce.Do(func() {
		sk.err = err
		close(sk.done)
	})
}

// failure is the error the subscription ended with, once done is closed.
func (sk *subSink) failure() error { return sk.err }

// close stops every further message and writes out what is buffered.
func (sk *subSink) close() {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	sk.stopped = true
	sk.flusher.Stop()
	if sk.waiter != nil {
		sk.waiter.Stop()
	}
	sk.p.w.Flush()
}

func (sk *subSink) flushNow() {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	sk.armed = false
	if !sk.stopped {
		sk.p.w.Flush()
	}
}

// printed schedules a flush of what was just printed. Called with mu held.
func (sk *subSink) printed() {
	if !sk.armed {
		sk.armed = true
		sk.flusher.Reset(subFlushDelay)
	}
}

// idle flushes at once when no further message waits in the client for
// sub: one message typed in another pane shows without delay, while a
// burst still goes out in large writes. Called with mu held.
func (sk *subSink) idle(sub *nats.Subscription) {
	if sub == nil || sk.stopped {
		return
	}
	// In a callback nats.go still counts the message being handled.
	if n, _, err := sub.Pending(); err == nil && n <= 1 {
		sk.p.w.Flush()
	}
}

// admit counts a message about to be printed; false means drop it (the
// sink is stopped, or the subject is ignored). Called with mu held.
func (sk *subSink) admit(subject string) bool {
	if sk.stopped {
		return false
	}
	for _, ig := range sk.ignore {
		if server.SubjectsCollide(subject, ig) {
			return false
		}
	}
	sk.counter++
	sk.received++
	return true
}

// after finishes a printed message: --count reached, or -T at the end.
// Called with mu held.
func (sk *subSink) after(atEnd bool) {
	sk.printed()
	if sk.p.failed != nil {
		sk.stopped = true
		sk.finish(sk.p.failed)
		return
	}
	if (sk.cmd.count > 0 && sk.received >= sk.cmd.count) || (sk.cmd.terminate && atEnd) {
		sk.stopped = true
		sk.finish(nil)
		return
	}
	if sk.waiter != nil {
		sk.waiter.Reset(sk.cmd.wait)
	}
}

// core handles a message of a core subscription.
func (sk *subSink) core(m *nats.Msg) {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	if m.Sub != nil {
		// The printed number counts what the client had to drop, as the real CLI does.
		if d, err := m.Sub.Dropped(); err == nil && d != sk.dropped[m.Sub] {
			sk.counter += uint(d - sk.dropped[m.Sub])
			sk.dropped[m.Sub] = d
		}
	}
	if meta, ok := parseAckSubject(m.Reply); ok {
		// A push consumer's delivery: its barrier (pushedThrough) waits
		// for the last one to have been gone through.
		sk.c.S.consumed(meta.stream, meta.consumer, meta.seq)
		defer sk.c.handled()
	}
	if !sk.admit(m.Subject) {
		return
	}
	sk.p.core(sk.counter, m)
	via := ""
	if len(sk.cmd.subjects) > 1 && m.Sub != nil {
		via = m.Sub.Subject
	}
	sk.c.receivedVia(m.Subject, "", 0, via)
	if sk.cmd.ack && strings.HasPrefix(m.Reply, "$JS.ACK.") {
		if err := m.Respond(nil); err != nil && sk.cmd.dump == "" && !sk.cmd.raw {
			sk.c.Statusf("Acknowledging message via subject %s failed: %s", m.Reply, err)
		}
	}
	sk.after(false)
	sk.idle(m.Sub)
}

// pulled handles a message pulled from a consumer; it acknowledges it when
// the consumer wants acknowledgements.
func (sk *subSink) pulled(m jetstream.Msg, ack bool) {
	if ack && !sk.active() {
		// Fetched ahead but never shown (--count reached, or stopped): hand
		// it back now rather than after the ack wait, so the next reader
		// with this consumer starts with it.
		m.Nak()
		return
	}
	var acker func() error
	if ack {
		acker = m.Ack
	}
	sk.jetStreamMsg(m.Subject(), m.Reply(), m.Headers(), m.Data(), acker)
}

// jetStreamMsg prints a consumer's message.
func (sk *subSink) jetStreamMsg(subject, reply string, hdr nats.Header, data []byte, ack func() error) {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	meta, ok := parseAckSubject(reply)
	if !ok {
		// Not a stream message (a status the library passed on): nothing to show.
		return
	}
	// Gone through once this returns (a barrier reads it under mu).
	sk.upTo = max(sk.upTo, meta.seq)
	if sk.consumer != "" {
		sk.c.S.consumed(meta.stream, sk.consumer, meta.seq)
	}
	defer sk.c.handled()
	if !sk.admit(subject) {
		if !sk.stopped && sk.cmd.terminate && meta.pending == 0 {
			// The stream's last message is one the user ignores (-I): still the end.
			sk.stopped = true
			sk.finish(nil)
		}
		return
	}
	sk.p.jetStream(sk.counter, subject, reply, hdr, data, meta)
	sk.c.received(subject, meta.stream, meta.seq)
	if ack != nil {
		if err := ack(); err != nil && sk.cmd.dump == "" && !sk.cmd.raw {
			sk.c.Statusf("Acknowledging message via subject %s failed: %s", reply, err)
		}
	}
	sk.after(meta.pending == 0)
}

// direct handles a message read by a direct get; it reports whether to go on.
func (sk *subSink) direct(m *jetstream.RawStreamMsg, stream string, atEnd bool) bool {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	if sk.stopped {
		return false
	}
	if !sk.admit(m.Subject) {
		if sk.cmd.terminate && atEnd {
			sk.stopped = true
			sk.finish(nil)
			return false
		}
		return true
	}
	sk.p.direct(sk.counter, m, stream)
	sk.c.received(m.Subject, stream, m.Sequence)
	sk.after(atEnd)
	return !sk.stopped
}

// through is the highest stream sequence gone through; it waits for the
// message being handled, if any.
func (sk *subSink) through() uint64 {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return sk.upTo
}

// floor says what a named consumer had delivered before this sub read
// it: a barrier does not wait for those.
func (sk *subSink) floor(seq uint64) {
	sk.mu.Lock()
	sk.upTo = max(sk.upTo, seq)
	sk.mu.Unlock()
}

// settled is the barrier of a sub reading through a consumer (info asks
// the server about it): the consumer has nothing left to deliver, and the
// last message it delivered has been gone through here (or, for a named
// consumer, by any reader of the session) and printed.
func (sk *subSink) settled(ctx context.Context, info func(context.Context) (*jetstream.ConsumerInfo, error)) error {
	upTo := sk.through
	if sk.consumer != "" {
		upTo = func() uint64 {
			return max(sk.through(), sk.c.S.consumedUpTo(sk.cmd.stream, sk.consumer))
		}
	}
	if err := sk.c.consumerBarrier(ctx, info, upTo); err != nil {
		return err
	}
	sk.flushNow()
	return nil
}

// stop refuses every further message; what is printed stays buffered until close.
func (sk *subSink) stop() {
	sk.mu.Lock()
	sk.stopped = true
	sk.mu.Unlock()
}

// active reports whether the sink still wants messages.
func (sk *subSink) active() bool {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return !sk.stopped
}
