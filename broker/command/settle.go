package command

import (
	"context"
	"errors"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Settling: a job that receives (sub, reply, kv watch, consumer next) can
// say when everything the server had routed to it before a given moment
// has been handled and shown. A script waits on that before a lesson's
// check and before it stops its jobs, instead of waiting for the jobs to
// look quiet.

// ErrCannotSettle is what Job.Settle returns for a job that cannot tell
// (a line the real CLI runs in a process of its own, a job that receives
// nothing): there is nothing of it to wait for.
var ErrCannotSettle = errors.New("this job cannot tell when it has caught up")

// Settle returns once everything the server had routed to the job when it
// was called (what the session published before, and what its streams
// held for it) has been handled and shown by the job, or when ctx ends
// (its error), or the job ends (nil). What the session itself published
// must have reached the server first (Session.Sync).
func (j *Job) Settle(ctx context.Context) error {
	j.mu.Lock()
	f := j.settle
	j.mu.Unlock()
	if f == nil {
		return ErrCannotSettle
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-j.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := f(ctx)
	select {
	case <-j.done:
		return nil // it ended: nothing more comes to it
	default:
	}
	return err
}

// settleWith gives the call's job its barrier (see Job.Settle).
func (c *Call) settleWith(f func(ctx context.Context) error) {
	c.Job.mu.Lock()
	c.Job.settle = f
	c.Job.mu.Unlock()
}

// moved is closed the next time the job handles a message (see moves).
func (j *Job) moved() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.move == nil {
		j.move = make(chan struct{})
	}
	return j.move
}

// moves wakes whoever waits for the job to handle a message. Called with
// j.mu held.
func (j *Job) moves() {
	if j.move != nil {
		close(j.move)
		j.move = nil
	}
}

// handled tells the job's barrier that a message was gone through without
// being counted as received (a key's delete passed over, an ignored
// subject).
func (c *Call) handled() {
	c.Job.mu.Lock()
	c.Job.moves()
	c.Job.mu.Unlock()
}

// settleWhen waits until done says so, looking again each time the job
// handles a message; done's error ends the wait.
func (c *Call) settleWhen(ctx context.Context, done func(context.Context) (bool, error)) error {
	for {
		moved := c.Job.moved()
		ok, err := done(ctx)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-moved:
		}
	}
}

// connBarrier returns once what the server had queued to nc before the
// call has been handed to nc's subscription callbacks and they returned:
// the PONG to a PING comes after everything the server queued to the
// connection before it, and nats.go's barrier runs after every async
// subscription's callback has returned for what it held then.
func connBarrier(ctx context.Context, nc *nats.Conn) error {
	if err := nc.FlushWithContext(ctx); err != nil {
		return err
	}
	through := make(chan struct{})
	if err := nc.Barrier(func() { close(through) }); err != nil {
		return err
	}
	select {
	case <-through:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// consumerBarrier returns once the consumer (info asks the server about
// it) has nothing left to deliver and the last message it delivered, if
// any, has been handled here (upTo: the highest stream sequence handled,
// or the consumer's last delivery when the job started).
func (c *Call) consumerBarrier(ctx context.Context, info func(context.Context) (*jetstream.ConsumerInfo, error), upTo func() uint64) error {
	return c.settleWhen(ctx, func(ctx context.Context) (bool, error) {
		ci, err := info(ctx)
		if err != nil {
			return false, err
		}
		return ci.NumPending == 0 && (ci.Delivered.Consumer == 0 || upTo() >= ci.Delivered.Stream), nil
	})
}

// consumedSeqs keeps, per consumer, the highest stream sequence any of
// the session's commands handled through it: readers sharing a pull
// consumer (two consumer next jobs, a foreground one) each see that the
// other took the last message.
type consumedSeqs struct {
	mu   sync.Mutex
	seqs map[[2]string]uint64
}

func (s *Session) consumed(stream, consumer string, seq uint64) {
	s.consumedSeqs.mu.Lock()
	defer s.consumedSeqs.mu.Unlock()
	if s.consumedSeqs.seqs == nil {
		s.consumedSeqs.seqs = map[[2]string]uint64{}
	}
	k := [2]string{stream, consumer}
	s.consumedSeqs.seqs[k] = max(s.consumedSeqs.seqs[k], seq)
}

func (s *Session) consumedUpTo(stream, consumer string) uint64 {
	s.consumedSeqs.mu.Lock()
	defer s.consumedSeqs.mu.Unlock()
	return s.consumedSeqs.seqs[[2]string{stream, consumer}]
}
