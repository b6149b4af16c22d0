package command

import (
	"errors"
	"fmt"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
)

func (s *streamCmd) buildPurge(p *fisk.CmdClause, c *Call) {
	p.Action(act(c, s.purge))
	p.Arg("stream", "The stream").StringVar(&s.stream)
	p.Flag("json", "Print the stream information as JSON").Short('j').UnNegatableBoolVar(&s.json)
	p.Flag("force", "Purge without asking").Short('f').UnNegatableBoolVar(&s.force)
	p.Flag("subject", "Only messages on this subject").PlaceHolder("SUBJECT").StringVar(&s.purgeSubject)
	p.Flag("seq", "Only messages before this sequence").PlaceHolder("SEQUENCE").Uint64Var(&s.purgeSeq)
	p.Flag("keep", "Keep this many of the newest messages").PlaceHolder("MESSAGES").Uint64Var(&s.purgeKeep)
}

// purge is natscli's purgeAction: it removes messages and shows the state
// after it, asking first (in the pane) or refusing (in a script) unless
// --force.
func (s *streamCmd) purge(c *Call) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if !s.force {
		what := "every message"
		switch {
		case s.purgeSubject != "":
			what = "the messages on " + s.purgeSubject
		case s.purgeSeq > 0:
			what = fmt.Sprintf("the messages before sequence %d", s.purgeSeq)
		}
		hint := fmt.Sprintf("stream purge removes %s from %s: add --force to do it without asking (stream purge %s --force)", what, s.stream, s.stream)
		ok, err := c.confirm(false, fmt.Sprintf("Really purge Stream %s", s.stream), hint)
		if err != nil || !ok {
			return err
		}
	}
	if jsm.IsKVBucketStream(s.stream) {
		if err := s.kvAbstractionWarn(c); err != nil {
			return err
		}
	}
	if st, err = s.loadStream(c, mgr, st, "could not purge Stream"); err != nil {
		return err
	}
	var req *api.JSApiStreamPurgeRequest
	if s.purgeKeep > 0 || s.purgeSubject != "" || s.purgeSeq > 0 {
		if s.purgeSeq > 0 && s.purgeKeep > 0 {
			return explain(errors.New("sequence and keep cannot be combined when purging"), "purge up to a sequence with --seq, or keep the newest messages with --keep, not both")
		}
		req = &api.JSApiStreamPurgeRequest{Sequence: s.purgeSeq, Subject: s.purgeSubject, Keep: s.purgeKeep}
	}
	resp, err := st.PurgeExt(req)
	if err != nil {
		return c.explainAPI(fatalIf(err, "could not purge Stream"))
	}
	fmt.Fprintf(c.Out, "Purged %d messages from %s\n\n", resp.Purged, st.Name())
	_ = st.Reset()
	s.stateOnly = true
	return s.showStream(c, st)
}
