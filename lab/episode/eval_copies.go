package episode

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Checks of streams fed by other streams: mirrors and sources.

// copies says why a stream is not the mirror, or does not have the
// sources, or is further behind than the check wants, or "".
func copies(name string, info *jetstream.StreamInfo, c *StreamCheck) string {
	cfg := info.Config
	if c.Mirror != "" {
		switch {
		case cfg.Mirror == nil && len(cfg.Sources) > 0:
			return fmt.Sprintf("%s sources from %s; it is not a mirror of %s (a mirror is made with stream add --mirror)", name, strings.Join(sourceNames(cfg.Sources), ", "), c.Mirror)
		case cfg.Mirror == nil:
			return fmt.Sprintf("%s mirrors nothing (a mirror is made with stream add --mirror %s)", name, c.Mirror)
		case cfg.Mirror.Name != c.Mirror:
			return fmt.Sprintf("%s mirrors %s, not %s", name, cfg.Mirror.Name, c.Mirror)
		}
	}
	for _, want := range c.Sources {
		found := false
		for _, src := range cfg.Sources {
			found = found || src.Name == want
		}
		if found {
			continue
		}
		if cfg.Mirror != nil {
			return fmt.Sprintf("%s mirrors %s and has no sources (a stream with sources is made with stream add --source)", name, cfg.Mirror.Name)
		}
		return fmt.Sprintf("%s sources from %s, not %s", name, listOr(sourceNames(cfg.Sources), "no stream"), want)
	}
	if c.Lag.Set() {
		if info.Mirror == nil && len(info.Sources) == 0 {
			return name + " copies no other stream, so it has no lag"
		}
		return numCheck{c.Lag, int64(lagOf(info)), "has a lag of %s", "message", ""}.fails(name)
	}
	return ""
}

// lagOf is a copy's lag: its mirror's, or the largest of its sources'.
func lagOf(info *jetstream.StreamInfo) uint64 {
	var lag uint64
	if info.Mirror != nil {
		lag = info.Mirror.Lag
	}
	for _, src := range info.Sources {
		lag = max(lag, src.Lag)
	}
	return lag
}

func sourceNames(srcs []*jetstream.StreamSource) []string {
	names := make([]string, 0, len(srcs))
	for _, s := range srcs {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return names
}

// copySettle bounds how long a script's check waits for mirrors and
// sources to catch up with what their origins stored.
const copySettle = 3 * time.Second

// copiesCaughtUp reports whether every mirror holds its origin's last
// sequence and every stream with sources holds at least what they hold
// and has nothing left to copy: what a learner at the keyboard sees a moment
// after a publish (the server copies asynchronously), and a script,
// which checks once per line, must wait for. An origin that is gone has
// nothing to wait for.
func (l *Lesson) copiesCaughtUp(ctx context.Context) bool {
	if !l.ep.checksCopies() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	last, held := map[string]uint64{}, map[string]uint64{}
	var copying []*jetstream.StreamInfo
	list := l.js.ListStreams(ctx)
	for info := range list.Info() {
		last[info.Config.Name] = info.State.LastSeq
		held[info.Config.Name] = info.State.Msgs
		if info.Config.Mirror != nil || len(info.Config.Sources) > 0 {
			copying = append(copying, info)
		}
	}
	if list.Err() != nil {
		return true // nothing that can be known to wait for
	}
	for _, info := range copying {
		if m := info.Mirror; m != nil {
			if origin, ok := last[m.Name]; ok && (m.Lag > 0 || info.State.LastSeq < origin) {
				return false
			}
		}
		// A source's lag is as of the last message it copied, so it says
		// nothing of a publish not yet copied; the messages held do, for a
		// stream fed by its sources alone (and unless limits dropped some).
		var want uint64
		for _, src := range info.Sources {
			if src.Lag > 0 {
				return false
			}
			want += held[src.Name]
		}
		if len(info.Sources) > 0 && len(info.Config.Subjects) == 0 && info.State.Msgs < want {
			return false
		}
	}
	return true
}

// checksCopies reports whether a step checks a mirror or sources, the
// lessons whose scripts wait for copies to catch up.
func (ep *Episode) checksCopies() bool {
	for _, st := range ep.Steps {
		for _, c := range st.Check {
			if s := c.Stream; s != nil && (s.Mirror != "" || len(s.Sources) > 0 || s.Lag.Set()) {
				return true
			}
		}
	}
	return false
}
