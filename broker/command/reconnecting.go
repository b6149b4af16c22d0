package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NotReadyError says that the server restarted but the lab was not ready
// for the next line within the session's timeout: a connection had not
// reconnected, or JetStream did not answer.
type NotReadyError struct {
	What    string // what was not ready
	Timeout time.Duration
	Err     error // JetStream's failure, if that was it
}

func (e *NotReadyError) Error() string {
	s := fmt.Sprintf("the server restarted, but %s after %s", e.What, e.Timeout)
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
	conns := s.openConns()
	back := make([]chan nats.Status, len(conns))
	for i, nc := range conns {
		// Registered before the restart, so no reconnect can come unseen.
		back[i] = nc.StatusChanged(nats.CONNECTED, nats.CLOSED)
		defer nc.RemoveStatusListener(back[i])
	}
	if err := restart(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	for i, nc := range conns {
		select {
		case <-back[i]: // reconnected, or closed: a stopped job's
		case <-ctx.Done():
			return &NotReadyError{What: connName(nc, s) + " had not reconnected", Timeout: s.timeout}
		}
		// A reconnected client has sent its subscriptions again, but the
		// server may not have read them yet: past a round trip it has, so
		// a publish from another connection finds them.
		if err := nc.FlushWithContext(ctx); err != nil && !nc.IsClosed() {
			return &NotReadyError{What: connName(nc, s) + " had not reconnected", Timeout: s.timeout, Err: err}
		}
	}
	s.connMu.Lock()
	nc := s.nc
	s.connMu.Unlock()
	if nc == nil || nc.IsClosed() || !s.dep.JetStream() {
		return nil
	}
	if err := jetStreamAnswers(ctx, nc); err != nil {
		return &NotReadyError{What: "JetStream had not answered", Timeout: s.timeout, Err: err}
	}
	return nil
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
