package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"

	"natslab/broker"
)

func (s *streamCmd) buildRm(rm *fisk.CmdClause, c *Call) {
	rm.Action(act(c, s.rm))
	rm.Arg("stream", "The stream to delete").StringVar(&s.stream)
	rm.Flag("force", "Delete without asking").Short('f').UnNegatableBoolVar(&s.force)
}

// rm is natscli's rmAction: with --force it deletes the stream named;
// without, it picks the stream and asks first (in the pane) or refuses (in
// a script). Like the real CLI it prints nothing when it worked.
func (s *streamCmd) rm(c *Call) error {
	if s.force {
		if s.stream == "" {
			return explain(errors.New("--force requires a stream name"), "name the stream to delete: stream rm NAME --force")
		}
		mgr, err := c.manager()
		if err != nil {
			return fatalIf(err, "setup failed")
		}
		c.awaitStreamRemoved(s.stream) // a delete of the same name may still be finishing
		if err := mgr.DeleteStream(s.stream); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				fmt.Fprintln(c.Out, "Delete failed due to timeout, the stream might not exist or be in an unmanageable state")
			}
			return s.rmError(c, mgr, err)
		}
		c.awaitStreamRemoved(s.stream)
		return nil
	}
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	hint := fmt.Sprintf("stream rm deletes %s and all its messages: add --force to do it without asking (stream rm %s --force)", s.stream, s.stream)
	ok, err := c.confirm(false, fmt.Sprintf("Really delete Stream %s", s.stream), hint)
	if err != nil || !ok {
		return err
	}
	if st, err = s.loadStream(c, mgr, st, "could not remove Stream"); err != nil {
		return err
	}
	c.awaitStreamRemoved(s.stream)
	if err := st.Delete(); err != nil {
		return c.explainAPI(fatalIf(err, "could not remove Stream"))
	}
	c.awaitStreamRemoved(s.stream)
	return nil
}

// rmError adds the lab's note to a failed delete: which streams exist.
func (s *streamCmd) rmError(c *Call, mgr *jsm.Manager, err error) error {
	if api.IsNatsError(err, streamErrCodeStreamNotFound) {
		if names, lerr := mgr.StreamNames(nil); lerr == nil {
			return explain(err, "%s", streamChoiceNote(s.stream, names))
		}
	}
	return c.explainAPI(err)
}

// awaitStreamRemoved waits until the lab's own server has removed a deleted
// stream's files, so that a stream created or deleted next under the same
// name starts clean (see broker.AwaitStreamRemoved).
func (c *Call) awaitStreamRemoved(name string) {
	broker.AwaitStreamRemoved(c.S.dep, name, 3*time.Second)
}
