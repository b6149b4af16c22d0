package command

import (
	"errors"
	"fmt"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
)

// streamViewMaxPage is the real CLI's largest page.
const streamViewMaxPage = 25

func (s *streamCmd) buildView(v *fisk.CmdClause, c *Call) {
	v.Action(act(c, s.view))
	v.Arg("stream", "The stream").StringVar(&s.stream)
	v.Arg("size", "Messages per page, up to 25").Default("10").IntVar(&s.pageSize)
	v.Flag("id", "Start at this sequence").IntVar(&s.startID)
	v.Flag("since", "Start with messages this recent, like 5m or 1d3h").PlaceHolder("DURATION").DurationVar(&s.since)
	v.Flag("raw", "Print only the bodies").UnNegatableBoolVar(&s.viewRaw)
	v.Flag("subject", "Only messages on this subject or filter").StringVar(&s.viewSubj)
}

// view pages through a stream's messages. The real CLI needs a terminal to
// page in and refuses without one (a script): so does the lab. In the pane
// it pages, asking before each next page as the real CLI does; it reads
// message by message with the stream's get API, where the real CLI leaves
// a consumer behind.
func (s *streamCmd) view(c *Call) error {
	if c.S.confirm == nil {
		return explain(errors.New("interactive stream paging requires a valid terminal"), "stream view pages through a stream in a terminal; in a script, stream get %s SEQUENCE shows one message, sub --stream %s --all -T prints them all", orName(s.stream), orName(s.stream))
	}
	if s.pageSize > streamViewMaxPage {
		c.Statusf("Page size is limited to %d, setting to %d...", streamViewMaxPage, streamViewMaxPage)
		s.pageSize = streamViewMaxPage
	}
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if _, err = s.loadStream(c, mgr, st, ""); err != nil {
		return err
	}
	if s.pageSize < 1 {
		return usageErrorf("the page size must be 1 or more (up to %d), got %d", streamViewMaxPage, s.pageSize)
	}
	if s.startID < 0 {
		return usageErrorf("--id must be a sequence of 1 or more, got %d", s.startID)
	}
	filter := ">"
	if s.viewSubj != "" {
		if err := validateSubject(s.viewSubj, true); err != nil {
			return err
		}
		filter = s.viewSubj
	}
	since := s.since

	req := api.JSApiMsgGetRequest{Seq: uint64(max(s.startID, 1)), NextFor: filter}
	if since > 0 {
		start := time.Now().Add(-since)
		req = api.JSApiMsgGetRequest{StartTime: &start, NextFor: filter}
	}
	next := func() (*api.StoredMsg, error) {
		m, err := c.streamMsgGet(c.Ctx, s.stream, req)
		if err != nil {
			if api.IsNatsError(err, streamErrCodeNoMessage) {
				return nil, nil
			}
			return nil, c.explainAPI(err)
		}
		if m == nil {
			// The real CLI's pager ends at a message that is not there.
			c.Notef("the server answered the request for the next message without one: the lab stops reading here")
			return nil, nil
		}
		req = api.JSApiMsgGetRequest{Seq: m.Sequence + 1, NextFor: filter}
		return m, nil
	}

	msg, err := next()
	shown := 0
	for ; err == nil && msg != nil; msg, err = next() {
		if shown > 0 && shown%s.pageSize == 0 && c.S.confirm != nil && !c.S.confirm("Next Page?") {
			return nil
		}
		s.printViewed(c, msg)
		shown++
		if err := c.Ctx.Err(); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	c.Statusf("Reached apparent end of data")
	return nil
}

func (s *streamCmd) printViewed(c *Call, m *api.StoredMsg) {
	if s.viewRaw {
		fmt.Fprintln(c.Out, string(m.Data))
		return
	}
	fmt.Fprintf(c.Out, "[%d] Subject: %s Received: %s\n", m.Sequence, m.Subject, human(m.Time))
	if hdrs := streamHeaders(m.Header); len(hdrs) > 0 {
		fmt.Fprintln(c.Out)
		for _, h := range hdrs {
			fmt.Fprintf(c.Out, "  %s: %s\n", h[0], h[1])
		}
	}
	streamBody(c.Out, m.Data)
}

// orName is a name for a note's example: the one given, or a placeholder.
func orName(s string) string {
	if s == "" {
		return "STREAM"
	}
	return s
}
