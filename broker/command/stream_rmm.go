package command

import (
	"fmt"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
)

func (s *streamCmd) buildRmm(rmm *fisk.CmdClause, c *Call) {
	rmm.Action(act(c, s.rmm))
	rmm.Arg("stream", "The stream").StringVar(&s.stream)
	rmm.Arg("id", "The sequence of the message to remove").IsSetByUser(&s.seqIsSet).Int64Var(&s.seq)
	rmm.Flag("force", "Remove without asking").Short('f').UnNegatableBoolVar(&s.force)
}

// rmm removes one message; like the real CLI it prints nothing when it worked.
func (s *streamCmd) rmm(c *Call) error {
	if err := s.needStream(c, "stream rmm"); err != nil {
		return err
	}
	st, err := s.load(c)
	if err != nil {
		return err
	}
	if !s.seqIsSet {
		return usageErrorf("stream rmm needs the sequence of the message to remove (%s), for example: stream rmm %s %d --force", streamHolds(st), s.stream, streamFirst(st))
	}
	if s.seq < 1 {
		return usageErrorf("message sequences start at 1, got %d", s.seq)
	}
	hint := fmt.Sprintf("stream rmm removes message %d from %s for good: add --force to do it without asking (stream rmm %s %d --force)", s.seq, s.stream, s.stream, s.seq)
	ok, err := c.confirm(s.force, fmt.Sprintf("Really remove message %d from Stream %s", s.seq, s.stream), hint)
	if err != nil || !ok {
		return err
	}
	if err := st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{Seq: uint64(s.seq)}); err != nil {
		return s.msgError(c, st, err)
	}
	return nil
}
