package command

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"
)

// directBatch is how many messages one direct get returns: one, as the
// real CLI asks, since the server's headers on each (Nats-Num-Pending,
// Nats-Last-Sequence), which sub prints, depend on the batch.
const directBatch = 1

// directIdle is how often a direct read looks for new messages when no
// publish woke it up sooner.
const directIdle = 250 * time.Millisecond

// directReader reads a stream without a consumer: the only way to look at
// a work-queue or interest stream without taking its messages away. With
// allow_direct it reads batches; otherwise one message per request.
type directReader struct {
	c      *Call
	js     jetstream.JetStream
	st     jetstream.Stream
	stream string
	filter string // ">" for the whole stream
	batch  bool
}

// next returns the messages from seq on (or from the start time, for the
// first read of --since); none at the end of the stream.
func (r *directReader) next(seq uint64, since time.Time) ([]*jetstream.RawStreamMsg, error) {
	ctx, cancel := r.c.Timeout()
	defer cancel()
	if r.batch {
		opts := []jetstreamext.GetBatchOpt{jetstreamext.GetBatchSubject(r.filter)}
		if !since.IsZero() {
			opts = append(opts, jetstreamext.GetBatchStartTime(since))
		} else {
			opts = append(opts, jetstreamext.GetBatchSeq(seq))
		}
		msgs, err := jetstreamext.GetBatch(ctx, r.js, r.stream, directBatch, opts...)
		if err == nil {
			var out []*jetstream.RawStreamMsg
			for m, err := range msgs {
				if errors.Is(err, jetstreamext.ErrNoMessages) {
					break
				}
				if err != nil {
					return out, err
				}
				out = append(out, m)
			}
			return out, nil
		}
		if !errors.Is(err, jetstreamext.ErrBatchUnsupported) {
			return nil, err
		}
		r.batch = false // an older server: one at a time
	}
	for {
		m, err := r.st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(r.filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !since.IsZero() && m.Time.Before(since) {
			seq = m.Sequence + 1
			continue
		}
		return []*jetstream.RawStreamMsg{m}, nil
	}
}

// atEnd reports whether m is the last message the stream held for the
// filter when it was read (batches say so in a header).
func atEnd(m *jetstream.RawStreamMsg) bool {
	return m.Header.Get("Nats-Num-Pending") == "0"
}

// runDirect prints the stream's messages read by direct gets, then waits
// for new ones, woken by a plain subscription on the same subjects.
func (s *subCmd) runDirect(c *Call, nc *nats.Conn, js jetstream.JetStream, st jetstream.Stream, filter string, sk *subSink) error {
	ctx, cancel := c.Timeout()
	info, err := st.Info(ctx)
	cancel()
	if err != nil {
		return c.jsError(err)
	}
	cfg, state := info.Config, info.State
	// Like the real CLI, a direct read goes through the whole stream, in
	// order, whatever subject was named (only --last-per-subject filters).
	r := &directReader{c: c, js: js, st: st, stream: s.stream, filter: ">", batch: cfg.AllowDirect}
	shown := filter
	if filter == "" {
		shown = human(cfg.Subjects)
	}
	s.directStatus(c, shown)
	if filter != "" && filter != ">" && !s.lastPerSubject {
		c.Notef("a direct read shows every message of stream %s, as the real CLI's does, not only those on %s", s.stream, filter)
	}

	wake := make(chan struct{}, 1)
	for _, subj := range cfg.Subjects {
		sub, err := nc.Subscribe(subj, func(*nats.Msg) {
			select {
			case wake <- struct{}{}:
			default:
			}
		})
		if err != nil {
			return subscribeError(subj, err)
		}
		defer sub.Unsubscribe()
	}
	nc.Flush()
	c.listen(shown, "")
	// Its barrier: a read begun after the call that finds nothing more.
	looks := make(chan chan struct{}, 16)
	c.settleWith(func(ctx context.Context) error {
		through := make(chan struct{})
		select {
		case looks <- through:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-through:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	c.Ready()

	// Where the real CLI starts; it asks for its first batch there, which
	// is sequence 0 on a stream that never held a message: JetStream
	// refuses that.
	seq := state.FirstSeq
	var since time.Time
	switch {
	case s.startSeq > 0:
		seq = s.startSeq
	case s.last:
		seq = state.LastSeq
	case s.all:
	case s.deliverNew:
		seq = state.LastSeq + 1
	case s.since != "":
		since = c.Now().Add(-s.sinceDur)
		seq = state.LastSeq + 1
	case s.lastPerSubject:
		if filter == "" {
			// natscli asks for the last message of each subject on the
			// line, and the client library refuses a request for none.
			example := ">"
			if len(cfg.Subjects) > 0 {
				example = cfg.Subjects[0]
			}
			return explain(jetstreamext.ErrSubjectRequired, "a direct read of the last message per subject needs the subjects on the line, for example sub %q --stream %s --direct --last-per-subject", example, s.stream)
		}
		next, err := s.lastPerSubjectDirect(c, r, []string{filter}, state.LastSeq, sk)
		if err != nil || next == 0 {
			return err
		}
		seq = next
	}
	if seq == 0 {
		return explain(errors.New("invalid option: sequence number has to be greater than 0"),
			"stream %s has never held a message, so there is no sequence to start at; the real CLI asks for sequence 0 and JetStream refuses", s.stream)
	}
	return s.directLoop(c, r, seq, since, wake, looks, sk)
}

// directLoop reads from seq on until the sink is done, the job stops, or
// (with -T) the end of the stream. Each barrier asked for on looks is
// let through by the first read begun after it that finds nothing more.
func (s *subCmd) directLoop(c *Call, r *directReader, seq uint64, since time.Time, wake <-chan struct{}, looks chan chan struct{}, sk *subSink) error {
	idle := directIdle
	var asked []chan struct{}
	for sk.active() {
		for more := true; more; {
			select {
			case a := <-looks:
				asked = append(asked, a)
			default:
				more = false
			}
		}
		msgs, err := r.next(seq, since)
		if err != nil {
			if c.Ctx.Err() != nil {
				return nil
			}
			return c.jsError(err)
		}
		fromSince := !since.IsZero()
		since = time.Time{}
		if len(msgs) == 0 {
			if s.terminate {
				if sk.received == 0 {
					s.nothingToRead(c, r.filter)
				}
				return nil
			}
			sk.flushNow()
			for _, a := range asked {
				close(a)
			}
			asked = nil
			t := time.NewTimer(idle)
			select {
			case <-c.Ctx.Done():
				t.Stop()
				return sk.failure()
			case <-sk.done:
				t.Stop()
				return sk.failure()
			case a := <-looks:
				asked = append(asked, a)
			case <-wake:
			case <-t.C:
			}
			t.Stop()
			// A publish wakes us before the stream has stored it: look again soon.
			idle = 20 * time.Millisecond
			continue
		}
		idle = directIdle
		for _, m := range msgs {
			if fromSince {
				// natscli reads the first message since the time, then
				// goes on from where --new would start (seq), one further
				// for the message it read: it skips the rest of what the
				// stream held and the next message stored.
				seq++
				c.Notef("the real CLI's direct read with --since shows the first message since then, then only messages stored from now on, less the first of them; a consumer shows them all: leave out --direct, or read on with --start-sequence %d", m.Sequence+1)
			} else {
				seq = m.Sequence + 1
			}
			if !sk.direct(m, s.stream, atEnd(m)) {
				return sk.failure()
			}
		}
	}
	return sk.failure()
}

// lastPerSubjectDirect prints the latest message of each subject, and
// returns where to read on from (0 when the read has ended).
func (s *subCmd) lastPerSubjectDirect(c *Call, r *directReader, subjects []string, upTo uint64, sk *subSink) (uint64, error) {
	if upTo == 0 {
		if s.terminate {
			s.nothingToRead(c, r.filter)
			return 0, nil
		}
		return 1, nil
	}
	ctx, cancel := context.WithTimeout(c.Ctx, c.timeout)
	defer cancel()
	msgs, err := jetstreamext.GetLastMsgsFor(ctx, r.js, r.stream, subjects, jetstreamext.GetLastMsgsUpToSeq(upTo), jetstreamext.GetLastMsgsBatchSize(directBatch))
	if err != nil {
		return 0, c.jsError(err)
	}
	var got []*jetstream.RawStreamMsg
	for m, err := range msgs {
		if errors.Is(err, jetstreamext.ErrNoMessages) {
			break
		}
		if err != nil {
			return 0, c.jsError(err)
		}
		got = append(got, m)
	}
	if len(got) == 0 && s.terminate {
		s.nothingToRead(c, r.filter)
		return 0, nil
	}
	for i, m := range got {
		if !sk.direct(m, s.stream, s.terminate && i == len(got)-1) {
			return 0, sk.failure()
		}
	}
	return upTo + 1, nil
}

// directStatus is the real CLI's line for a direct read.
func (s *subCmd) directStatus(c *Call, subject string) {
	const pre = "Subscribing to JetStream Stream (direct) holding messages with subject"
	suffix := s.statusSuffix()
	switch {
	case s.startSeq > 0:
		c.Statusf("%s %s starting with sequence %d %s", pre, subject, s.startSeq, suffix)
	case s.last:
		c.Statusf("%s %s starting with the last message received %s", pre, subject, suffix)
	case s.all:
		c.Statusf("%s %s starting with the first message received %s", pre, subject, suffix)
	case s.deliverNew:
		c.Statusf("%s %s delivering any new messages received %s", pre, subject, suffix)
	case s.since != "":
		c.Statusf("%s %s starting with messages since %s %s", pre, subject, human(s.sinceDur), suffix)
	case s.lastPerSubject:
		c.Statusf("%s %s for the last messages for each subject in the Stream %s", pre, subject, suffix)
	}
}
