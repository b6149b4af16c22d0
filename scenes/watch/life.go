// Package watch is what every scene's driver (its NATS side) is built
// from: a lifetime that ends when the scene closes (its context, its
// goroutines, its connections), the connections named so that lessons and
// `nats server report connections` can tell them, following the embedded
// server through restarts, kicks that ask for a look, a polling loop that
// never looks more often than it should, a loop for a driver whose state
// changes on one goroutine (Loop: news, kicks, looks and a test's Sync
// taken in turn), taps on a set of subjects, and the bounded looks a
// server going down cuts short.
//
// It imports broker only, never lab.
package watch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
)

// ErrUnreachable is what a control says when the server is restarting.
var ErrUnreachable = errors.New("the server is not reachable right now (restarting?): try again in a moment")

// Life is a driver's lifetime: a context that ends when the scene closes,
// the goroutines the driver started, and its connections. Drivers embed
// it; End is their close.
type Life struct {
	Ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns []*nats.Conn
}

// NewLife begins a driver's lifetime.
func NewLife() *Life {
	ctx, cancel := context.WithCancel(context.Background())
	return &Life{Ctx: ctx, cancel: cancel}
}

// Go runs f on a goroutine of the driver's, which End waits for: f
// returns once Ctx is done.
func (l *Life) Go(f func()) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f()
	}()
}

// Connect opens a connection to dep named name, which End closes.
// onServer, when given, hears the server go away (false) and the
// connection come back (true). On the lab's cluster a node stopping while
// another runs is not the server going away (Moving): onServer hears
// only the connection come back.
func (l *Life) Connect(dep broker.Deployment, name string, onServer func(up bool), opts ...nats.Option) (*nats.Conn, error) {
	if onServer != nil {
		opts = append(opts,
			nats.DisconnectErrHandler(func(*nats.Conn, error) {
				if !Moving(dep) {
					onServer(false)
				}
			}),
			nats.ReconnectHandler(func(*nats.Conn) { onServer(true) }))
	}
	nc, err := dep.Connect(name, opts...)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns = append(l.conns, nc)
	l.mu.Unlock()
	return nc, nil
}

// Moving reports whether a connection of dep that lost its server is only
// moving to another: on the lab's cluster, while any node runs, the
// connection fails over to one and the cluster runs on with what its
// running nodes hold, so one node stopping is not the server going down.
// A single server, or every node stopped, is.
func Moving(dep broker.Deployment) bool { return dep.Cluster() != nil && dep.Running() }

// End ends the context, closes the connections (so nothing waits on the
// network) and waits for the driver's goroutines.
func (l *Life) End() {
	l.cancel()
	l.mu.Lock()
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, nc := range conns {
		nc.Close()
	}
	l.wg.Wait()
}

// Sleep waits d, or until the scene closes; it reports false on close.
func (l *Life) Sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.Ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// AwaitConnected gives a connection that is reconnecting (the server just
// restarted: a lesson switching its store area takes milliseconds) up to
// limit to come back. It reports false when it has not, or when the scene
// closed meanwhile (Ctx.Err says which).
func (l *Life) AwaitConnected(nc *nats.Conn, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !nc.IsConnected() {
		if time.Now().After(deadline) || !l.Sleep(20*time.Millisecond) {
			return false
		}
	}
	return true
}

// FollowServer calls changed each time the lab's server stops, starts or
// restarts, which a connection may notice late, until the scene closes. An
// external deployment never says, so changed is never called for one.
func (l *Life) FollowServer(s broker.Deployment, changed func()) {
	l.Go(func() {
		for {
			ch := s.Changed()
			select {
			case <-l.Ctx.Done():
				return
			case <-ch:
			}
			changed()
		}
	})
}

// Each hands every message from ch to f, in order, until the scene closes.
func (l *Life) Each(ch <-chan *nats.Msg, f func(m *nats.Msg)) {
	l.Go(func() {
		for {
			select {
			case <-l.Ctx.Done():
				return
			case m := <-ch:
				f(m)
			}
		}
	})
}

// Sync is a test's barrier on a driver that handles its news on one loop:
// it returns once that loop has taken in everything the server sent nc
// before the call and looked at the broker since. A round trip to the
// server puts the server's news in the driver's channels; asks hands the
// loop a channel to close after it has taken what waits there and looked.
// It reports false when that took longer than limit.
func Sync(nc *nats.Conn, asks chan<- chan struct{}, limit time.Duration) bool {
	if err := nc.FlushTimeout(limit); err != nil {
		return false
	}
	done := make(chan struct{})
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case asks <- done:
	case <-t.C:
		return false
	}
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
