package command

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"

	"github.com/nats-io/jsm.go"
)

func (s *streamCmd) buildGet(get *fisk.CmdClause, c *Call) {
	get.Action(act(c, s.get))
	get.Arg("stream", "The stream").StringVar(&s.stream)
	get.Arg("id", "The message's sequence number").Int64Var(&s.seq)
	get.Flag("last-for", "Show the last message on this subject").Short('S').PlaceHolder("SUBJECT").StringVar(&s.lastFor)
	get.Flag("json", "Print the message as JSON").Short('j').UnNegatableBoolVar(&s.json)
}

// get is natscli's getAction.
func (s *streamCmd) get(c *Call) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if s.seq == -1 && s.lastFor == "" {
		return wouldPrompt(errNoPrompt, "which message to show", fmt.Sprintf("its sequence (stream get %s 1) or --last-for SUBJECT", s.stream))
	}
	if st, err = s.loadStream(c, mgr, st, "could not load Stream %s", s.stream); err != nil {
		return err
	}
	var item *api.StoredMsg
	if s.seq > -1 {
		item, err = st.ReadMessage(uint64(s.seq))
	} else {
		item, err = st.ReadLastMessageForSubject(s.lastFor)
	}
	if err != nil {
		return s.msgError(c, st, fatalIf(err, "could not retrieve %s#%d", s.stream, s.seq))
	}
	if s.json {
		return streamJSON(c.Out, item)
	}
	if item == nil {
		// An answer without a message: natscli crashes on it.
		return &labError{fmt.Errorf("the server answered the request for %s#%d without a message", s.stream, s.seq)}
	}
	fmt.Fprintf(c.Out, "Item: %s#%d received %v (%s) on Subject %s\n\n", s.stream, item.Sequence, item.Time, human(time.Since(item.Time)), item.Subject)
	if hdrs := streamHeaders(item.Header); len(hdrs) > 0 {
		fmt.Fprintln(c.Out, "Headers:")
		for _, h := range hdrs {
			fmt.Fprintf(c.Out, "  %s: %s\n", h[0], h[1])
		}
		fmt.Fprintln(c.Out)
	}
	streamBody(c.Out, item.Data)
	return nil
}

// msgError explains a message that is not there, saying what the stream holds.
func (s *streamCmd) msgError(c *Call, st *jsm.Stream, err error) error {
	if s.seq == 0 {
		return explain(err, "stream sequences start at 1: %s", streamHolds(st))
	}
	// A sequence below the stream's first is no "sequence not found" but
	// a failed delete that says "no message found"; one past a file
	// stream's last, a failed delete that says "stream store EOF".
	gone := api.IsNatsError(err, streamErrCodeMsgDeleteFailed) && (strings.Contains(err.Error(), "no message found") || strings.Contains(err.Error(), "stream store EOF"))
	if !gone && !api.IsNatsError(err, streamErrCodeNoMessage) && !api.IsNatsError(err, streamErrCodeSeqNotFound) {
		return c.explainAPI(err)
	}
	if s.lastFor != "" && s.seq == -1 {
		return explain(err, "stream %s holds no message on subject %s (stream subjects %s lists the subjects it holds)", s.stream, s.lastFor, s.stream)
	}
	_ = st.Reset()
	return explain(err, "stream %s has no message %d: %s", s.stream, s.seq, streamHolds(st))
}

// streamHolds says which sequences a stream holds, for notes.
func streamHolds(st *jsm.Stream) string {
	info, err := st.LatestInformation()
	if err != nil {
		return "its contents are unknown"
	}
	state := info.State
	switch {
	case state.Msgs == 0:
		return "the stream is empty"
	case state.Msgs == 1:
		return fmt.Sprintf("it holds only message %d", state.FirstSeq)
	case state.NumDeleted > 0:
		return fmt.Sprintf("it holds %s messages between %d and %d, with %s removed", human(state.Msgs), state.FirstSeq, state.LastSeq, human(state.NumDeleted))
	}
	return fmt.Sprintf("it holds %d to %d", state.FirstSeq, state.LastSeq)
}

// streamHeaders decodes a stored message's headers ("NATS/1.0\r\nK: V\r\n…")
// into key, value pairs sorted by key, so the order is the same every time.
func streamHeaders(raw []byte) [][2]string {
	if len(raw) == 0 {
		return nil
	}
	lines := strings.Split(string(raw), "\r\n")
	var out [][2]string
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// streamBody prints a message body as the real CLI does: "nil body" when
// empty, and blank lines after it.
func streamBody(w io.Writer, data []byte) {
	if len(data) == 0 {
		fmt.Fprint(w, "nil body\n\n\n")
		return
	}
	body := string(data)
	if strings.HasSuffix(body, "\n") {
		fmt.Fprint(w, body, "\n")
		return
	}
	fmt.Fprint(w, body, "\n\n\n")
}

// streamMsgGet asks the stream for one message (the plain API, not direct
// get, so it works whatever the stream allows) and creates no consumer.
// An answer with no message is none (nil, nil), as jsm.go reads it.
func (c *Call) streamMsgGet(ctx context.Context, stream string, req api.JSApiMsgGetRequest) (*api.StoredMsg, error) {
	nc, err := c.Conn()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	msg, err := nc.RequestWithContext(ctx, fmt.Sprintf(api.JSApiMsgGetT, stream), body)
	if err != nil {
		return nil, err
	}
	return decodeMsgGet(msg.Data)
}

// decodeMsgGet reads the server's answer to a message request as jsm.go
// reads every JetStream answer for natscli: one that does not parse is
// the JSON decoder's error, printed as it is (the lab's words are a
// note); the server's refusal is its API error.
func decodeMsgGet(data []byte) (*api.StoredMsg, error) {
	var resp api.JSApiMsgGetResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, explain(err, "the server's answer to a message request is not the JSON JetStream answers with")
	}
	if err := resp.ToError(); err != nil {
		return nil, err
	}
	return resp.Message, nil
}
