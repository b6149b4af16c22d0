package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// consumer ls and consumer report: one row per consumer of a stream.

// consumerInfos fetches every consumer of a stream as natscli's
// EachConsumer does (jsm.go's Manager.Consumers), sorted by name, with the
// names the server could not describe: missing (in a cluster, while their
// nodes are away) and offline.
func (c *Call) consumerInfos(stream string) (infos []*jetstream.ConsumerInfo, missing []string, offline map[string]string, err error) {
	mgr, err := c.manager()
	if err != nil {
		return nil, nil, nil, c.jsError(err)
	}
	consumers, missing, offline, err := mgr.Consumers(stream)
	if err != nil {
		return nil, nil, nil, c.explainAPI(err)
	}
	for _, cons := range consumers {
		st, err := cons.LatestState()
		if err != nil {
			continue // natscli logs it and leaves the row out
		}
		// The list's answer is the server's JSON: read it as the nats.go
		// type the rows are made from.
		b, err := json.Marshal(st)
		if err != nil {
			return nil, nil, nil, err
		}
		var ci jetstream.ConsumerInfo
		if err := json.Unmarshal(b, &ci); err != nil {
			return nil, nil, nil, err
		}
		infos = append(infos, &ci)
	}
	return infos, missing, offline, nil
}

// pickStream is the stream named, selected as natscli's consumer commands
// do: in its words where none is named or it does not exist, the lab's
// names of the streams in the note.
func (x *consumerCmd) pickStream(c *Call) (jetstream.Stream, error) {
	mgr, err := c.manager()
	if err != nil {
		return nil, err
	}
	if _, err := c.selectStreamFor(mgr, x.stream, false, "could not select Stream"); err != nil {
		return nil, err
	}
	return c.stream(x.stream)
}

func (x *consumerCmd) ls(c *Call) error {
	st, err := x.pickStream(c)
	if err != nil {
		return err
	}
	if x.json || x.names {
		names, err := c.consumerNames(st)
		if err != nil {
			return err
		}
		if x.json {
			// No consumers: natscli prints jsm.go's nil list, "null".
			return printJSON(c.Out, names)
		}
		for _, n := range names {
			fmt.Fprintln(c.Out, n)
		}
		return nil
	}
	infos, missing, offline, err := c.consumerInfos(st.CachedInfo().Config.Name)
	if err != nil {
		return err
	}
	if len(infos) == 0 && len(missing) == 0 && len(offline) == 0 {
		fmt.Fprintln(c.Out, "No Consumers defined")
		return nil
	}
	t := newTable("Consumers")
	t.AddHeaders("Name", "Description", "Created", "Ack Pending", "Unprocessed", "Last Delivery")
	for _, ci := range infos {
		var last time.Time // never delivered: natscli's "never"
		if ci.Delivered.Last != nil {
			last = *ci.Delivered.Last
		}
		t.AddRow(ci.Name, ci.Config.Description, human(ci.Created.Local()), ci.NumAckPending, ci.NumPending, human(since(ci.TimeStamp, last)))
	}
	// natscli prints the table and what it could not describe into a
	// buffer, with a newline after the table, then the buffer with one.
	fmt.Fprint(c.Out, t.Render(), "\n")
	renderMissing(c.Out, "Consumers", missing, offline)
	fmt.Fprintln(c.Out)
	return nil
}

func (x *consumerCmd) report(c *Call) error {
	st, err := x.pickStream(c)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	si, err := st.Info(ctx)
	cancel()
	if err != nil {
		return c.jsError(err)
	}
	infos, missing, offline, err := c.consumerInfos(si.Config.Name)
	if err != nil {
		return err
	}
	t := newTable("Consumer report for %s with %s consumers", si.Config.Name, human(si.State.Consumers))
	t.AddHeaders("Consumer", "Mode", "Ack Policy", "Ack Wait", "Ack Pending", "Redelivered", "Unprocessed", "Ack Floor", "API Level", "Cluster")
	for _, ci := range infos {
		mode := "Pull"
		if ci.Config.DeliverSubject != "" {
			mode = "Push"
		}
		level := ci.Config.Metadata["_nats.req.level"]
		if level == "" {
			level = "0"
		}
		if x.raw {
			t.AddRow(ci.Name, mode, ackPolicyText(ci.Config.AckPolicy), ci.Config.AckWait, ci.NumAckPending, ci.NumRedelivered, ci.NumPending, ci.AckFloor.Stream, level, clusterText(ci.Cluster))
			continue
		}
		unprocessed := "0"
		if ci.NumPending > 0 {
			pct := math.Min(100, math.Floor(float64(ci.NumPending)/float64(si.State.Msgs)*100))
			unprocessed = fmt.Sprintf("%s / %0.0f%%", human(ci.NumPending), pct)
		}
		t.AddRow(ci.Name, mode, ackPolicyText(ci.Config.AckPolicy), human(ci.Config.AckWait), human(ci.NumAckPending), human(ci.NumRedelivered), unprocessed, human(ci.AckFloor.Stream), level, clusterText(ci.Cluster))
	}
	fmt.Fprint(c.Out, t.Render())
	fmt.Fprintln(c.Out)
	renderMissing(c.Out, "Consumers", missing, offline)
	return nil
}

func (x *consumerCmd) rm(c *Call) error {
	// natscli's order and words: with --force, both names or its
	// refusal, then the server's answer; without, the stream and the
	// consumer selected, then the question.
	if x.force && (x.stream == "" || x.consumer == "") {
		return noteOf(errors.New("--force requires a stream and consumer name"), x.needStreamAndConsumer(c, "consumer rm"))
	}
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	if x.force {
		if err := mgr.DeleteConsumer(x.stream, x.consumer); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				fmt.Fprintln(c.Out, "Delete failed due to timeout, the stream or consumer might not exist or be in an unmanageable state")
			}
			if subj := fmt.Sprintf("$JS.API.CONSUMER.DELETE.%s.%s", x.stream, x.consumer); c.refusedPublish(subj) {
				return explain(err, "the server's permissions for this user refuse it the delete (a publish to %s): connect as a user allowed to publish there", subj)
			}
			quiet := c.labAsks() // why, for the note alone
			_, why := c.consumerInfo(x.stream, x.consumer)
			quiet()
			return lookNote(c.jsError(err), why)
		}
		return nil
	}
	if err := x.selectConsumer(c, mgr); err != nil {
		return err
	}
	st, err := c.stream(x.stream)
	if err != nil {
		return err
	}
	ok, err := c.confirm(x.force, fmt.Sprintf("Really delete Consumer %s > %s", x.stream, x.consumer),
		fmt.Sprintf("deleting consumer %s > %s loses its position and acknowledgements: add --force to delete it (consumer rm %s %s --force)", x.stream, x.consumer, x.stream, x.consumer))
	if err != nil || !ok {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	if err := st.DeleteConsumer(ctx, x.consumer); err != nil {
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			return c.unknownConsumer(st, x.consumer)
		}
		return c.jsError(err)
	}
	return nil
}
