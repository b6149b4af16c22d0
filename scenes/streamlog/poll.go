package streamlog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// maxLanes bounds how many streams the scene follows at once.
const maxLanes = 6

// poll reads the watched streams from the broker and says what changed.
func (d *driver) poll() {
	if !d.nc.IsConnected() {
		return
	}
	ctx, cancel := d.looks.Begin(d.Ctx, 3*time.Second)
	defer cancel()
	d.mu.Lock()
	focus := d.snap.Focus
	d.mu.Unlock()

	infos, err := d.list(ctx, focus)
	if errors.Is(err, context.Canceled) {
		return // the server went down meanwhile, or the scene closed
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.snap.Problem = explain(err, focus)
		if jsOff(err) {
			d.snap.Streams = nil
			d.taps.Set(nil)
		}
		d.feed.Poke()
		return
	}
	d.snap.Problem = ""
	if len(infos) == 0 {
		if focus != "" {
			d.snap.Problem = "there is no stream " + focus + " (yet): watch all shows every stream"
		} else {
			d.snap.Problem = noStream
		}
	}
	old := map[string]Lane{}
	var order []string
	for _, l := range d.snap.Streams {
		old[l.Name] = l
		order = append(order, l.Name)
	}
	next := map[string]Lane{}
	for _, info := range infos {
		n := lane(info)
		if nodes := offlineNodes(info); nodes != "" {
			// The server lists it with its configuration only: what it
			// holds waits on the stopped nodes, as last read.
			if o, ok := old[n.Name]; ok && o.Gone == "" && !o.Unread {
				n.First, n.Last, n.Msgs, n.Deleted, n.FirstTime = o.First, o.Last, o.Msgs, o.Deleted, o.FirstTime
			} else {
				n.Unread = true
			}
			n.Offline = "offline: held on " + nodes + ", stopped"
		}
		next[info.Config.Name] = n
	}
	var stories []string
	var lanes []Lane
	restarted := d.wasDown
	for _, name := range order {
		o := old[name]
		n, ok := next[name]
		if !ok {
			if o.Gone == "" {
				o.Had, o.Gone, o.Msgs = o.Msgs, "deleted", 0
				switch {
				case restarted && o.Storage == "memory":
					o.Gone = "gone in the restart: memory storage"
					stories = append(stories, fmt.Sprintf("%s is gone: a memory stream does not survive a restart (it %s)", name, text.Unbroken(fmt.Sprintf("held %d", o.Had))))
				case restarted:
					o.Gone = "not back after the restart"
				default:
					stories = append(stories, name+" was deleted")
				}
				d.feed.Send(kit.Event{Kind: kit.Changed, Stream: name, Note: "gone"})
			}
			lanes = append(lanes, o)
			continue
		}
		switch {
		case n.Offline != "" && o.Offline == "":
			stories = append(stories, fmt.Sprintf("%s is offline: no node that holds it runs (%s), and what it holds waits there", n.Name, strings.TrimPrefix(n.Offline, "offline: ")))
		case n.Offline != "":
		case o.Offline != "":
			stories = append(stories, fmt.Sprintf("%s is online again with %s", n.Name, text.Unbroken(text.Count(n.Msgs, "message", "messages"))))
		default:
			if parts := d.diff(o, n); len(parts) > 0 {
				stories = append(stories, n.Name+": "+strings.Join(parts, "; "))
			}
		}
		lanes = append(lanes, n)
		delete(next, name)
	}
	var fresh []Lane
	for _, n := range next {
		fresh = append(fresh, n)
	}
	sort.Slice(fresh, func(i, j int) bool {
		if !fresh[i].Created.Equal(fresh[j].Created) {
			return fresh[i].Created.Before(fresh[j].Created)
		}
		return fresh[i].Name < fresh[j].Name
	})
	for _, n := range fresh {
		if _, had := d.counts[n.Name]; !had {
			d.counts[n.Name] = &TapCounts{}
		}
		if len(old) > 0 || restarted {
			switch {
			case n.Mirror:
				stories = append(stories, fmt.Sprintf("%s: a %s mirror of %s", n.Name, n.Storage, n.From[0]))
			case len(n.From) > 0 && len(n.Subjects) == 0:
				stories = append(stories, fmt.Sprintf("%s: a %s log fed by %s", n.Name, n.Storage, strings.Join(n.From, ", ")))
			default:
				stories = append(stories, fmt.Sprintf("%s: a %s log on %s", n.Name, n.Storage, strings.Join(n.Subjects, ", ")))
			}
		}
		lanes = append(lanes, n)
	}
	if len(lanes) > maxLanes {
		lanes = lanes[len(lanes)-maxLanes:]
	}
	if restarted {
		var back []string
		for _, l := range lanes {
			switch {
			case l.Gone != "", l.Offline != "":
			case l.Storage == "memory":
				// Only a cluster brings a memory stream back: its meta group
				// keeps every stream's definition on disk, never the
				// messages of one in memory.
				back = append(back, memoryBack(l.Name, old[l.Name].Msgs))
			default:
				back = append(back, fmt.Sprintf("%s came back from disk with %s", l.Name, text.Unbroken(text.Count(l.Msgs, "message", "messages"))))
			}
		}
		if len(back) > 0 {
			stories = append([]string{"after the restart: " + strings.Join(back, "; ")}, stories...)
		} else if len(stories) == 0 {
			stories = append(stories, "the server is back")
		}
		d.wasDown = false
	}
	d.snap.Streams = lanes
	if len(stories) > 0 {
		d.snap.Story = strings.Join(stories, "; ")
	}
	var subjects []string
	d.expiry = time.Time{}
	for _, l := range lanes {
		if l.Gone != "" {
			continue
		}
		subjects = append(subjects, l.Subjects...)
		if l.MaxAge > 0 && l.Msgs > 0 && !l.FirstTime.IsZero() {
			if t := l.FirstTime.Add(l.MaxAge); d.expiry.IsZero() || t.Before(d.expiry) {
				d.expiry = t
			}
		}
	}
	d.taps.Set(subjects)
	d.feed.Poke()
}

// memoryBack says how a memory stream came back from a restart of the
// whole cluster: its definition kept on disk, the messages it held lost.
func memoryBack(name string, held uint64) string {
	if held == 0 {
		return name + " is back: the cluster keeps a stream's definition on disk, and this memory stream held no messages"
	}
	return fmt.Sprintf("%s is back without the %s it held: the cluster keeps a stream's definition on disk, but a memory stream's messages only in memory", name, text.Unbroken(text.Count(held, "message", "messages")))
}

// list reads the stream infos to show: the focused one, or every stream.
// The gaps inside a stream are asked for separately, and only for streams
// that have a few.
func (d *driver) list(ctx context.Context, focus string) ([]*jetstream.StreamInfo, error) {
	var infos []*jetstream.StreamInfo
	if focus != "" {
		st, err := d.js.Stream(ctx, focus)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		infos = append(infos, st.CachedInfo())
	} else {
		l := d.js.ListStreams(ctx)
		for info := range l.Info() {
			infos = append(infos, info)
		}
		if err := l.Err(); err != nil {
			return nil, err
		}
	}
	for i, info := range infos {
		if n := info.State.NumDeleted; n > 0 && n <= maxDeletedDetails {
			st, err := d.js.Stream(ctx, info.Config.Name)
			if err != nil {
				continue
			}
			if full, err := st.Info(ctx, jetstream.WithDeletedDetails(true)); err == nil {
				infos[i] = full
			}
		}
	}
	return infos, nil
}

// diff says in words what changed in one stream between two looks.
func (d *driver) diff(o, n Lane) []string {
	var out []string
	if edits := changes(o, n); edits != "" {
		out = append(out, "edited, "+edits)
	}
	if o.Gone != "" {
		return out
	}
	dropped := uint64(0)
	for seq := o.First; seq < n.First && seq <= o.Last && dropped < 1<<20; seq++ {
		if o.Holds(seq) {
			dropped++
		}
	}
	removed := uint64(0)
	for _, seq := range n.Deleted {
		if o.Holds(seq) {
			removed++
		}
	}
	if n.Last > o.Last && len(n.From) > 0 && len(n.Subjects) == 0 {
		// A copy with no subjects of its own: the server stored it.
		if n.Mirror {
			out = append(out, fmt.Sprintf("copied up to #%d from %s", n.Last, n.From[0]))
		} else {
			// Sources are numbered anew: the numbers are the copy's.
			out = append(out, fmt.Sprintf("copied from %s as %s", strings.Join(n.From, ", "), seqSpan(o.Last+1, n.Last)))
		}
	} else if n.Last > o.Last && n.Last > d.acked[n.Name] && n.Holds(n.Last) {
		// Stored, and nobody was told: a plain publish.
		out = append(out, fmt.Sprintf("stored #%d; a plain publish hears nothing back (--jetstream would)", n.Last))
	}
	api := d.lastAPI[n.Name]
	recent := time.Since(api.at) < 5*time.Second
	switch {
	case dropped > 0 && recent && api.op == "purge":
		out = append(out, fmt.Sprintf("purged, %d%sremoved; the next message gets%s#%d", dropped, text.NoBreak, text.NoBreak, n.Last+1))
	case dropped > 0 && recent && api.op == "msg.delete":
		out = append(out, fmt.Sprintf("%s removed; the others keep their numbers", seqList(o, n)))
	case dropped > 0 && n.MaxAge > 0 && !o.FirstTime.IsZero() && time.Since(o.FirstTime) >= n.MaxAge:
		out = append(out, fmt.Sprintf("%d%saged out (max age %s)", dropped, text.NoBreak, n.MaxAge))
	case dropped > 0 && recent && api.op == "update":
		out = append(out, fmt.Sprintf("the new limits dropped the oldest%s%d", text.NoBreak, dropped))
	case dropped > 0:
		out = append(out, fmt.Sprintf("the oldest%s%d left the log to keep it within its limits", text.NoBreak, dropped))
	}
	if removed > 0 {
		out = append(out, fmt.Sprintf("%s removed from the middle; the others keep their numbers", seqList(o, n)))
	}
	return out
}

// seqSpan is "#4…#6", or "#4".
func seqSpan(from, to uint64) string {
	if from >= to {
		return seqLabel(to)
	}
	return seqLabel(from) + "…" + seqLabel(to)
}

// seqList names the sequences o held and n does not: "#9", "#3, #4", "5 messages".
func seqList(o, n Lane) string {
	var gone []string
	count := 0
	for seq := o.First; seq <= o.Last && o.Msgs > 0 && count < 1<<20; seq++ {
		if o.Holds(seq) && !n.Holds(seq) {
			count++
			if len(gone) < 3 {
				gone = append(gone, seqLabel(seq))
			}
		}
	}
	if count > 3 {
		return text.Unbroken(fmt.Sprintf("%d messages", count))
	}
	return strings.Join(gone, ", ")
}

// changes lists the settings that differ between two looks at a stream.
func changes(o, n Lane) string {
	var c []string
	if o.Discard != n.Discard {
		c = append(c, "discard "+n.Discard)
	}
	if o.MaxMsgs != n.MaxMsgs {
		c = append(c, "max msgs "+limit(n.MaxMsgs))
	}
	if o.PerSubj != n.PerSubj {
		c = append(c, "max per subject "+limit(n.PerSubj))
	}
	if o.MaxBytes != n.MaxBytes {
		c = append(c, "max bytes "+limit(n.MaxBytes))
	}
	if o.MaxAge != n.MaxAge {
		c = append(c, "max age "+age(n.MaxAge))
	}
	if o.Dupes != n.Dupes {
		c = append(c, "duplicate window "+n.Dupes.String())
	}
	if strings.Join(o.Subjects, ",") != strings.Join(n.Subjects, ",") {
		c = append(c, "subjects "+strings.Join(n.Subjects, ", "))
	}
	return strings.Join(c, ", ")
}

func limit(v int64) string {
	if v <= 0 {
		return "unlimited"
	}
	return fmt.Sprint(v)
}

func age(d time.Duration) string {
	if d <= 0 {
		return "unlimited"
	}
	return d.String()
}

// jsOff reports whether an API call failed because JetStream is off: with
// it off, nobody answers the API's subjects.
func jsOff(err error) bool {
	return errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, nats.ErrNoResponders)
}

// explain turns a failed look into what the learner can do about it.
func explain(err error, focus string) string {
	switch {
	case jsOff(err):
		return "JetStream is off, and streams need it: nats-server -js switches it on"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, jetstream.ErrNoStreamResponse):
		return "the server did not answer in time (restarting?)"
	}
	return "cannot read the streams: " + err.Error()
}
