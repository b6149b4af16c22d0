package command

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/choria-io/fisk"
)

func (s *streamCmd) buildRm(rm *fisk.CmdClause, c *Call) {
	rm.Action(act(c, s.rm))
	rm.Arg("stream", "The stream to delete").StringVar(&s.stream)
	rm.Flag("force", "Delete without asking").Short('f').UnNegatableBoolVar(&s.force)
}

// rm deletes a stream. Without --force the lab asks (in the TUI) or, in a
// script, refuses and says to add --force. Like the real CLI it prints
// nothing when it worked.
func (s *streamCmd) rm(c *Call) error {
	if err := s.needStream(c, "stream rm"); err != nil {
		return err
	}
	mgr, err := c.streamManager()
	if err != nil {
		return err
	}
	if !s.force {
		if _, err := s.load(c); err != nil {
			return err
		}
		hint := fmt.Sprintf("stream rm deletes %s and all its messages: add --force to do it without asking (stream rm %s --force)", s.stream, s.stream)
		ok, err := c.confirm(false, fmt.Sprintf("Really delete Stream %s", s.stream), hint)
		if err != nil || !ok {
			return err
		}
	}
	c.streamFilesGone(s.stream)
	if err := mgr.DeleteStream(s.stream); err != nil {
		return c.streamAPIError(err, s.stream, "could not remove Stream")
	}
	c.streamFilesGone(s.stream)
	return nil
}

// streamFilesGone waits (briefly) until the embedded server has finished
// removing a deleted stream's files. nats-server renames a deleted stream's
// directory to ".NAME" and removes it in the background; deleting a
// stream of the same name again before that is done leaves its files in
// place, and a stream created next under that name brings the old
// messages back (seen with 2.15.3 on a busy machine).
func (c *Call) streamFilesGone(name string) {
	if !c.S.dep.Own() {
		return
	}
	dir := filepath.Join(c.S.dep.JetStreamDir(), "$G", "streams", "."+name)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
