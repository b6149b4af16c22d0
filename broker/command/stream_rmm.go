package command

import (
	"fmt"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
)

func (s *streamCmd) buildRmm(rmm *fisk.CmdClause, c *Call) {
	rmm.Action(act(c, s.rmm))
	rmm.Arg("stream", "The stream").StringVar(&s.stream)
	rmm.Arg("id", "The sequence of the message to remove").Int64Var(&s.seq)
	rmm.Flag("force", "Remove without asking").Short('f').UnNegatableBoolVar(&s.force)
}

// rmm is natscli's rmMsgAction; like the real CLI it prints nothing when it
// worked.
func (s *streamCmd) rmm(c *Call) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if s.seq == -1 {
		return wouldPrompt(errNoPrompt, "which message to remove", fmt.Sprintf("its sequence: stream rmm %s SEQUENCE --force", s.stream))
	}
	if st, err = s.loadStream(c, mgr, st, "could not load Stream %s", s.stream); err != nil {
		return err
	}
	if jsm.IsKVBucketStream(s.stream) {
		if err := s.kvAbstractionWarn(c); err != nil {
			return err
		}
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

// kvAbstractionWarn is natscli's warning before touching a bucket's stream
// with stream commands; it then asks, and without a terminal refuses.
func (s *streamCmd) kvAbstractionWarn(c *Call) error {
	fmt.Fprintln(c.Out, "WARNING: Operating on the underlying stream of a Key-Value bucket is dangerous.")
	fmt.Fprintln(c.Out)
	fmt.Fprintln(c.Out, "Key-Value stores are an abstraction above JetStream streams and as such require particular")
	fmt.Fprintln(c.Out, "configuration to be set. Interacting with KV buckets outside of the 'nats kv' subcommand can lead")
	fmt.Fprintln(c.Out, "unexpected outcomes, data loss and, technically, will mean your KV bucket is no longer a KV bucket.")
	fmt.Fprintln(c.Out)
	fmt.Fprintln(c.Out, "Continuing this operation is an unsupported action.")
	fmt.Fprintln(c.Out)
	hint := fmt.Sprintf("%s is the stream of a KV bucket: use the kv commands on it (kv purge, kv del, kv rm)", s.stream)
	if c.S.confirm == nil {
		return explain(errNoConfirm, "%s", hint)
	}
	if !c.S.confirm("Really operate on the KV stream?") {
		return fmt.Errorf("aborting Key-Value store operation")
	}
	return nil
}
