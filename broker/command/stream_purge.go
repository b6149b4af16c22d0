package command

import (
	"fmt"

	"github.com/choria-io/fisk"
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

// purge removes messages and shows the state after it. Without --force the
// lab asks (in the TUI) or, in a script, refuses and says to add --force.
func (s *streamCmd) purge(c *Call) error {
	if err := s.needStream(c, "stream purge"); err != nil {
		return err
	}
	if s.purgeSeq > 0 && s.purgeKeep > 0 {
		return usageErrorf("--seq and --keep cannot be combined: purge up to a sequence, or keep the newest messages")
	}
	if s.purgeSubject != "" {
		if err := validateSubject(s.purgeSubject, true); err != nil {
			return err
		}
	}
	st, err := s.load(c)
	if err != nil {
		return err
	}
	what := "every message"
	switch {
	case s.purgeSubject != "":
		what = "the messages on " + s.purgeSubject
	case s.purgeSeq > 0:
		what = fmt.Sprintf("the messages before sequence %d", s.purgeSeq)
	}
	hint := fmt.Sprintf("stream purge removes %s from %s: add --force to do it without asking (stream purge %s --force)", what, s.stream, s.stream)
	ok, err := c.confirm(s.force, fmt.Sprintf("Really purge Stream %s", s.stream), hint)
	if err != nil || !ok {
		return err
	}
	var req *api.JSApiStreamPurgeRequest
	if s.purgeKeep > 0 || s.purgeSubject != "" || s.purgeSeq > 0 {
		req = &api.JSApiStreamPurgeRequest{Sequence: s.purgeSeq, Subject: s.purgeSubject, Keep: s.purgeKeep}
	}
	resp, err := st.PurgeExt(req)
	if err != nil {
		return c.streamAPIError(err, s.stream, "could not purge Stream")
	}
	fmt.Fprintf(c.Out, "Purged %d messages from %s\n\n", resp.Purged, s.stream)
	if err := st.Reset(); err != nil {
		return c.streamAPIError(err, s.stream, "")
	}
	info, err := st.LatestInformation()
	if err != nil {
		return c.streamAPIError(err, s.stream, "")
	}
	s.stateOnly = true
	return s.show(c, info)
}
