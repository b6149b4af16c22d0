package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NotReadyError says that the server restarted or reloaded its
// configuration but the lab was not ready for the next line within the
// session's timeout: a connection had not reconnected, or JetStream did not
// answer.
type NotReadyError struct {
	Change  string // what the server did: "the server restarted" where empty
	What    string // what was not ready
	Timeout time.Duration
	Err     error // JetStream's failure, if that was it
}

func (e *NotReadyError) Error() string {
	change := e.Change
	if change == "" {
		change = "the server restarted"
	}
	s := fmt.Sprintf("%s, but %s after %s", change, e.What, e.Timeout)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + "; try the next line again in a moment"
}

func (e *NotReadyError) Unwrap() error { return e.Err }

// Reconnecting runs restart (which restarts the server: a restart, a store
// area switched) and returns once the lab is ready for the next line:
// every open connection of the session (the shared one, jobs' own) has
// reconnected, told by nats.go's status events, and the server has read
// its subscriptions again (a round trip), and, with JetStream on,
// JetStream has answered an account info on the shared connection. A line
// typed at once then neither fails on a connection still reconnecting nor
// has a job miss what it publishes. The waits together take at most the
// session's timeout; past it, a NotReadyError says what was not ready.
func (s *Session) Reconnecting(restart func() error) error {
	return s.readyAfter(restart, "the server restarted", func(string) bool { return true })
}

// Reloading runs reload (a change of the server's configuration, which
// nats-server reloads in place, or, where the lab cannot rely on a reload,
// restarts for) and returns once the lab is ready for the next line, as
// Reconnecting does. A reload keeps the clients the new configuration
// still lets in, with its permissions and mappings applied before the
// reload returns: a round trip on such a connection shows the server has
// it. A client it no longer lets in (or would move to another account) is
// disconnected: its connection is waited for until it is back, refused
// (a job's, which keeps trying as the real CLI's does) or closed for good
// (the shared one: nats.go gives up on a server that refuses it twice). A
// job's connection refused before the change tries again at once, so one
// the change lets in again is back when the lab is ready. A restart, told
// by a new server ID, drops them all, and JetStream, which a reload leaves
// running, is asked too.
func (s *Session) Reloading(reload func() error) error {
	before := s.serverID()
	return s.readyAfter(reload, "the server reloaded its configuration", func(after string) bool { return after != before })
}

// readyAfter runs change and waits for the session's connections to be
// ready, then, where restarted says the server started anew (given its ID
// after the change) and JetStream is on, for JetStream to answer.
func (s *Session) readyAfter(change func() error, said string, restarted func(id string) bool) error {
	conns := s.openConns()
	back := make([]chan nats.Status, len(conns))
	marks := make([]uint64, len(conns))
	lockedOut := make([]bool, len(conns))
	for i, nc := range conns {
		// Registered before the change, so no reconnect can come unseen.
		back[i] = nc.StatusChanged(nats.CONNECTED, nats.CLOSED)
		defer nc.RemoveStatusListener(back[i])
		if w := s.jobConn(nc); w != nil {
			marks[i] = w.refusalCount()
			lockedOut[i] = w.isLockedOut()
		}
	}
	if err := change(); err != nil {
		return err
	}
	for i, nc := range conns {
		// Refused before the change: only a refusal from now on says the
		// change refuses it too. One the change itself refuses is left to
		// its own disconnect, which says why (a reconnect forced now
		// would say nothing).
		if w := s.jobConn(nc); w != nil && lockedOut[i] {
			marks[i] = w.refusalCount()
			_ = nc.ForceReconnect()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	for i, nc := range conns {
		var refused func() (bool, <-chan struct{})
		if w := s.jobConn(nc); w != nil {
			mark := marks[i]
			refused = func() (bool, <-chan struct{}) { return w.refusedSince(mark) }
		}
		if back, err := awaitBack(ctx, nc, back[i], refused); !back {
			return &NotReadyError{Change: said, What: connName(nc, s) + " had not reconnected", Timeout: s.timeout, Err: err}
		}
	}
	s.connMu.Lock()
	nc := s.nc
	s.connMu.Unlock()
	if nc == nil || nc.IsClosed() || !s.dep.JetStream() || !restarted(s.serverID()) {
		return nil
	}
	if err := jetStreamAnswers(ctx, nc); err != nil {
		return &NotReadyError{Change: said, What: "JetStream had not answered", Timeout: s.timeout, Err: err}
	}
	return nil
}

// awaitBack returns once nc answers a round trip, which the server that
// runs now can only answer once it has read everything nc sent before,
// its subscriptions included (a reconnected client sends them again
// first), once nc is closed for good (a stopped job's, or one the server
// no longer lets in), or, for a job's connection, once refused says the
// server refused it (it keeps trying, but nothing is left to wait for). A
// round trip that fails, on a connection the server dropped, waits for
// nats.go's next status event (back) or refusal and asks again; so does a
// connection not connected now. The ping is never sent while nc
// reconnects: nats.go would answer it with the reconnect's own. Past ctx,
// it says nc is not back, with the round trip's failure if that was the
// last thing tried.
func awaitBack(ctx context.Context, nc *nats.Conn, statuses <-chan nats.Status, refused func() (bool, <-chan struct{})) (back bool, err error) {
	for !nc.IsClosed() {
		if nc.IsConnected() {
			err = nc.FlushWithContext(ctx)
			if err == nil || nc.IsClosed() {
				return true, nil
			}
			if ctx.Err() != nil {
				return false, err
			}
		}
		var again <-chan struct{}
		if refused != nil {
			var out bool
			if out, again = refused(); out {
				return true, nil
			}
		}
		select {
		case <-statuses: // reconnected or closed: look again
		case <-again: // refused: look again
		case <-ctx.Done():
			return false, nil
		}
	}
	return true, nil
}

// jobConn is how the job connection nc follows its refusals; nil for the
// shared connection.
func (s *Session) jobConn(nc *nats.Conn) *jobConn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return s.jobConns[nc]
}

// serverID identifies the running server: it changes at every start; ""
// while it is stopped.
func (s *Session) serverID() string {
	if m := s.dep.Monitor(); m != nil {
		return m.ID()
	}
	return ""
}

// openConns are the session's connections open now, the shared one first;
// closed ones are forgotten.
func (s *Session) openConns() []*nats.Conn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	var conns []*nats.Conn
	if s.nc != nil && !s.nc.IsClosed() {
		conns = append(conns, s.nc)
	}
	for nc := range s.jobConns {
		if nc.IsClosed() {
			delete(s.jobConns, nc)
			continue
		}
		conns = append(conns, nc)
	}
	return conns
}

func connName(nc *nats.Conn, s *Session) string {
	s.connMu.Lock()
	shared := nc == s.nc
	s.connMu.Unlock()
	if shared || nc.Opts.Name == "" {
		return "the lab's connection"
	}
	return fmt.Sprintf("the connection %q", nc.Opts.Name)
}

// jetStreamAnswers asks JetStream for the account's info: any answer means
// JetStream is up, including that the account has no JetStream (a
// lesson's configuration may say so: the server answers an account
// without it by no responders, which nats.go reports as
// ErrJetStreamNotEnabled); no answer within ctx means it is not.
func jetStreamAnswers(ctx context.Context, nc *nats.Conn) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	_, err = js.AccountInfo(ctx)
	var apiErr *jetstream.APIError
	if err == nil || errors.As(err, &apiErr) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
		return nil
	}
	return err
}
