package command

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
)

// Jobs' connections (sub, reply, kv watch) behave as the real CLI's do.
// natscli connects with nats.IgnoreAuthErrorAbort: a client the server
// stops letting in (a configuration change that removes or changes its
// user, or starts requiring one) is not given up on after two refusals, as
// nats.go would by default, but keeps trying, further and further apart,
// and carries on once the server lets it in again. It says each step on
// stderr in its own words:
//
//	15:04:05 >>> Disconnected due to: EOF, will attempt reconnect
//	15:04:05 >>> Unexpected NATS error: nats: authorization violation
//
// and nothing when it is back (natscli says "Reconnected" only with
// --trace). The lab prints the same lines and says in notes what they
// mean. The session's shared connection keeps nats.go's default: the next
// line connects it again.

// jobConn follows one job connection's refusals by the server.
type jobConn struct {
	c  *Call
	nc *nats.Conn // set once connected

	mu        sync.Mutex
	refusals  uint64          // refusals for authentication so far
	lockedOut bool            // refused since it was last connected
	changed   chan struct{}   // closed and replaced at each refusal
	violated  map[string]bool // the permissions violations printed
}

// refusalBackoff is natscli's reconnect schedule (its DefaultBackoff,
// without the jitter), in milliseconds: how far apart a refused client
// tries again, so the refusals come as often as the real CLI's do.
var refusalBackoff = []int{
	500, 750, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000,
	5500, 5750, 6000, 6500, 7000, 7500, 8000, 8500, 9000, 9500, 10000,
	10500, 10750, 11000, 11500, 12000, 12500, 13000, 13500, 14000, 14500, 15000,
	15500, 15750, 16000, 16500, 17000, 17500, 18000, 18500, 19000, 19500, 20000,
}

// connectJob opens a connection of its own for a long-running command,
// so a slow subscriber never holds up the rest of the lab, with the real
// CLI's reconnect behaviour. A restart or reload waits for it too.
//
// The session's connections are a client's, as the real CLI's are: they
// present what natslab's clients must (its --token or --user), not the
// lab's own user, so a lesson's users and permissions hold for them too.
func (c *Call) connectJob(name string) (*nats.Conn, error) {
	w := &jobConn{c: c, changed: make(chan struct{})}
	nc, err := c.S.dep.ConnectAs(name, c.S.dep.Credentials(),
		nats.IgnoreAuthErrorAbort(),
		nats.CustomReconnectDelay(w.delay),
		nats.DisconnectErrHandler(w.disconnected),
		nats.ReconnectHandler(w.reconnected),
		nats.ErrorHandler(w.asyncError),
	)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.nc = nc
	w.mu.Unlock()
	c.S.connMu.Lock()
	c.S.jobConns[nc] = w
	c.S.connMu.Unlock()
	return nc, nil
}

// closeJob closes a job's own connection once the server has taken every
// unsubscribe the job sent on it: the job's subscriptions are unsubscribed
// first (deferred after connectJob, so they run before this), and the
// round trip here makes sure the server has dropped them before the job
// reports its end. A close alone leaves with the connection's last write,
// and the server notices it a moment later: a lesson's check or a scene
// reading the server right after the stop would still see the subscriber.
// A leaf node hears of the server's subscriptions, and of their end, a
// moment later still: the job ends once the leaf has forgotten them too,
// so that what is published on the leaf right after finds nobody.
// (The real CLI's process exits, and its connection with it.)
func (c *Call) closeJob(nc *nats.Conn) {
	if nc.IsConnected() && nc.FlushTimeout(c.timeout) == nil {
		c.awaitAcksTaken()
	}
	nc.Close()
	if leaf := c.S.dep.Leaf(); leaf != nil {
		subject, _ := c.Job.Listening()
		leaf.Forgets(strings.Fields(subject), c.timeout)
	}
}

// awaitAcksTaken waits until the lab's servers' consumers have taken in
// the acknowledgements sent to them (a flushed connection's are in their
// queues by then): the real CLI's next command, a process started later,
// never finds a message its sub acknowledged still waiting for the ack;
// the lab's next line may come at once.
func (c *Call) awaitAcksTaken() {
	c.awaitDrained((*broker.Monitor).AckIngest)
}

// delay is how long the connection waits before its next try: the lab's
// own short wait after a restart (the server is back in moments), natscli's
// schedule while the server refuses it.
func (w *jobConn) delay(attempts int) time.Duration {
	w.mu.Lock()
	locked, nc := w.lockedOut, w.nc
	w.mu.Unlock()
	if locked {
		return time.Duration(refusalBackoff[min(attempts, len(refusalBackoff)-1)]) * time.Millisecond
	}
	if nc != nil {
		return nc.Opts.ReconnectWait
	}
	return 50 * time.Millisecond
}

func (w *jobConn) disconnected(_ *nats.Conn, err error) {
	if err != nil {
		w.c.Statusf(">>> Disconnected due to: %s, will attempt reconnect", err)
	}
}

// asyncError prints a refusal or a permissions violation as natscli's
// error handler does, and says once per lockout what it means. The job's own handler (see
// onAsyncError) takes every other error, as before.
func (w *jobConn) asyncError(_ *nats.Conn, _ *nats.Subscription, err error) {
	if errors.Is(err, nats.ErrPermissionViolation) {
		// As natscli's handler prints it (see asyncerr.go), while the job
		// waits: a refused subscription is the job's error instead, as it
		// is the real CLI's, which ends before its handler prints.
		if !strings.Contains(err.Error(), "Violation for Subscription") {
			w.violation(err)
		}
		return
	}
	if !isAuthRefusal(err) {
		return
	}
	w.c.Statusf(">>> Unexpected NATS error: %s", err)
	w.mu.Lock()
	first := !w.lockedOut
	w.lockedOut = true
	w.refusals++
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	if first {
		w.c.Notef("the server's new configuration refuses this job's client (its user is gone or changed, or a user is now required): like the nats CLI, it keeps retrying, less and less often, and carries on once let in%s", stopHint(w.c))
	}
}

// violation prints a permissions violation as natscli's error handler
// does, once: the handler runs on a goroutine of its own, and a job that
// ends on the same error (Call.endOnViolation) prints it first, so that
// it comes before the job's error line.
func (w *jobConn) violation(err error) {
	w.mu.Lock()
	seen := w.violated[err.Error()]
	if w.violated == nil {
		w.violated = map[string]bool{}
	}
	w.violated[err.Error()] = true
	w.mu.Unlock()
	if !seen {
		w.c.Statusf(">>> Unexpected NATS error: %s", err)
	}
}

// endOnViolation is natscli's last step before a subscription waits:
// a round trip, then the connection's last error, which ends the command.
// A pull the server refuses the user ends a stream read there, with the
// violation printed by the handler and as the error.
func (c *Call) endOnViolation(nc *nats.Conn) error {
	if err := nc.FlushTimeout(c.timeout); err != nil {
		return err
	}
	err := nc.LastError()
	if err == nil {
		return nil
	}
	if errors.Is(err, nats.ErrPermissionViolation) {
		if w := c.S.jobConn(nc); w != nil {
			w.violation(err)
		}
	}
	return err
}

func (w *jobConn) reconnected(*nats.Conn) {
	w.mu.Lock()
	was := w.lockedOut
	w.lockedOut = false
	w.mu.Unlock()
	if was {
		w.c.Notef("the server lets this job's client in again: it has reconnected and listens again")
	}
}

// refusedSince reports whether the server has refused the connection
// since it had mark refusals, and a channel closed at the next refusal.
func (w *jobConn) refusedSince(mark uint64) (bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refusals > mark, w.changed
}

func (w *jobConn) refusalCount() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refusals
}

func (w *jobConn) isLockedOut() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lockedOut
}

// isAuthRefusal reports whether err is the server refusing the client's
// credentials, as nats.go reports it (processAuthError).
func isAuthRefusal(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) ||
		errors.Is(err, nats.ErrAuthRevoked) || errors.Is(err, nats.ErrAccountAuthExpired)
}

// onAsyncError hands nc's asynchronous errors to handle as well as to the
// handler it has (a job connection's, which prints refusals).
func onAsyncError(nc *nats.Conn, handle nats.ErrHandler) {
	prev := nc.ErrorHandler()
	nc.SetErrorHandler(func(nc *nats.Conn, sub *nats.Subscription, err error) {
		if prev != nil {
			prev(nc, sub, err)
		}
		handle(nc, sub, err)
	})
}

// onReconnect calls handle when nc reconnects, as well as the handler it
// has.
func onReconnect(nc *nats.Conn, handle nats.ConnHandler) {
	prev := nc.ReconnectHandler()
	nc.SetReconnectHandler(func(nc *nats.Conn) {
		if prev != nil {
			prev(nc)
		}
		handle(nc)
	})
}

// refusalWatch reads what the real CLI, run for a line that names its own
// user (sub --user …), prints on stderr, and says once in a note what its
// first refusal means. The real CLI keeps trying on its own schedule, which
// the lab cannot hurry: a reload that lets the user back in has it
// listening only at its next try.
type refusalWatch struct {
	c    *Call
	mu   sync.Mutex
	line []byte // the line being written
	said bool
}

// refusalLine ends the line natscli prints when the server refuses it.
var refusalLine = ">>> Unexpected NATS error: " + nats.ErrAuthorization.Error()

func (r *refusalWatch) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.said {
		return len(p), nil
	}
	r.line = append(r.line, p...)
	for !r.said {
		i := bytes.IndexByte(r.line, '\n')
		if i < 0 {
			break
		}
		if strings.HasSuffix(string(r.line[:i]), refusalLine) {
			r.said = true
			r.c.Notef("the server's new configuration refuses this client's user (gone or changed, or a user is now required): the nats CLI keeps retrying, less and less often (up to every 20s), and carries on once let in, which may take that long%s", stopHint(r.c))
		}
		r.line = r.line[i+1:]
	}
	if r.said || len(r.line) > 4096 {
		r.line = nil
	}
	return len(p), nil
}

// stopHint says how to end the call's job, where it has a number.
func stopHint(c *Call) string {
	if c.Job.ID > 0 {
		return fmt.Sprintf("; stop %d ends it", c.Job.ID)
	}
	return ""
}
