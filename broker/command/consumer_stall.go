package command

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// errNoMessage is the real CLI's line when a pull gets nothing in time.
var errNoMessage = errors.New("no message received: nats: timeout")

// stallNote says why a pull consumer with nothing pending delivered
// nothing, from what the server holds: its filter matches none of the
// stream's subjects; it moved past messages its filter now matches (a
// filter changed after a pull: edits never rewind a consumer); or it gave
// up on a message after --max-deliver tries. "" when none of those holds.
func stallNote(c *Call, ci *jetstream.ConsumerInfo) string {
	cfg := ci.Config
	filters := cfg.FilterSubjects
	if cfg.FilterSubject != "" {
		filters = append([]string{cfg.FilterSubject}, filters...)
	}
	st, err := c.stream(ci.Stream)
	if err != nil {
		return ""
	}
	if len(filters) > 0 {
		ctx, cancel := c.Timeout()
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
		cancel()
		if err == nil && len(info.State.Subjects) > 0 {
			var held []string
			matched := false
			for subj := range info.State.Subjects {
				held = append(held, subj)
				for _, f := range filters {
					matched = matched || server.SubjectMatchesFilter(subj, f)
				}
			}
			if !matched {
				sort.Strings(held)
				if len(held) > 5 {
					held = append(held[:5], "…")
				}
				return fmt.Sprintf("consumer %s filters %s, which matches none of the subjects stream %s holds (%s): compare them with stream subjects %s", ci.Name, strings.Join(filters, ", "), ci.Stream, strings.Join(held, ", "), ci.Stream)
			}
		}
		if cfg.DeliverPolicy == jetstream.DeliverAllPolicy {
			for _, f := range filters {
				ctx, cancel := c.Timeout()
				m, err := st.GetLastMsgForSubject(ctx, f)
				cancel()
				if err == nil && m.Sequence > ci.Delivered.Stream {
					return fmt.Sprintf("stream %s holds messages on %s up to sequence %d, past what consumer %s delivered (%d), and it will never deliver them: it moved past them while its filter matched nothing, and changing a filter does not rewind a consumer; remove it and add it again to read from the start", ci.Stream, f, m.Sequence, ci.Name, ci.Delivered.Stream)
				}
			}
		}
	}
	if cfg.MaxDeliver > 0 && ci.NumAckPending == 0 && ci.AckFloor.Stream < ci.Delivered.Stream {
		return fmt.Sprintf("consumer %s gave up on a message after %s (--max-deliver): nothing waits for an ack, and it will not deliver it again. The server said so on $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.%s.%s; the message is still in stream %s, and other consumers can read it", ci.Name, text.Count(cfg.MaxDeliver, "delivery", "deliveries"), ci.Stream, ci.Name, ci.Stream)
	}
	return ""
}
