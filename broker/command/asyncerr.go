package command

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// The real CLI's error handler prints what the server says out of turn on
// its connection as it comes ("15:04:05 >>> Unexpected NATS error: …"),
// a permissions violation among them: a request to a subject the user may
// not publish to, a JetStream API call it may not make. Each real command
// has a connection of its own; the lab's commands share the session's, so
// the session hands a violation to the command on it that began last.

// sharedCalls are the calls running on the session's shared connection.
type sharedCalls struct {
	mu    sync.Mutex
	calls []*Call
	told  map[*Call][]string // the violations each was told of
	quiet map[*Call]int      // how many of the lab's own questions each is asking (see labAsks)
	ahead map[*Call][]string // violations each printed before the handler came to them (see printViolation)
}

// labAsks marks what c asks the server until done is called as the lab's
// own questions, for a note, which the real CLI never asks: a violation
// they meet is no line of the real CLI's, and is not printed.
func (c *Call) labAsks() (done func()) {
	sh := &c.S.shared
	sh.mu.Lock()
	if sh.quiet == nil {
		sh.quiet = map[*Call]int{}
	}
	sh.quiet[c]++
	sh.mu.Unlock()
	return func() {
		sh.mu.Lock()
		if sh.quiet[c]--; sh.quiet[c] <= 0 {
			delete(sh.quiet, c)
		}
		sh.mu.Unlock()
	}
}

// onShared marks c as running on the shared connection until the
// returned func is called.
func (s *Session) onShared(c *Call) (done func()) {
	s.shared.mu.Lock()
	s.shared.calls = append(s.shared.calls, c)
	s.shared.mu.Unlock()
	return func() {
		s.shared.mu.Lock()
		s.shared.calls = slices.DeleteFunc(s.shared.calls, func(x *Call) bool { return x == c })
		delete(s.shared.told, c)
		delete(s.shared.ahead, c)
		s.shared.mu.Unlock()
	}
}

// sharedAsyncError is the shared connection's error handler: a
// permissions violation is printed as natscli prints it, on the newest
// call's stream, while that call runs.
func (s *Session) sharedAsyncError(_ *nats.Conn, _ *nats.Subscription, err error) {
	if !errors.Is(err, nats.ErrPermissionViolation) {
		return
	}
	s.shared.mu.Lock()
	defer s.shared.mu.Unlock()
	if n := len(s.shared.calls); n > 0 {
		c := s.shared.calls[n-1]
		if i := slices.Index(s.shared.ahead[c], err.Error()); i >= 0 {
			// Printed already, and told (printViolation).
			s.shared.ahead[c] = slices.Delete(s.shared.ahead[c], i, i+1)
			return
		}
		if s.shared.told == nil {
			s.shared.told = map[*Call][]string{}
		}
		s.shared.told[c] = append(s.shared.told[c], err.Error())
		if s.shared.quiet[c] == 0 {
			c.Statusf(">>> Unexpected NATS error: %s", err)
		}
	}
}

// printViolation prints err, a permissions violation the connection
// reported to c (its LastError), as natscli's error handler prints it,
// unless the handler has printed it already. The handler runs on a
// goroutine of its own, and a command that ends on the violation (pub)
// may end before it comes to it; natscli's handler mostly gets its line
// in before the process exits.
func (c *Call) printViolation(err error) {
	sh := &c.S.shared
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if slices.Contains(sh.told[c], err.Error()) {
		return
	}
	if sh.told == nil {
		sh.told = map[*Call][]string{}
	}
	if sh.ahead == nil {
		sh.ahead = map[*Call][]string{}
	}
	sh.told[c] = append(sh.told[c], err.Error())
	sh.ahead[c] = append(sh.ahead[c], err.Error())
	c.Statusf(">>> Unexpected NATS error: %s", err)
}

// refusedPublish reports whether c was told that the server refused its
// user a publish to subject (printed or, for the lab's own questions, not).
func (c *Call) refusedPublish(subject string) bool {
	want := fmt.Sprintf("Permissions Violation for Publish to %q", subject)
	c.S.shared.mu.Lock()
	defer c.S.shared.mu.Unlock()
	return slices.ContainsFunc(c.S.shared.told[c], func(e string) bool { return strings.HasSuffix(e, want) })
}
