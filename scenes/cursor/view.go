package cursor

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// The marks a consumer's row puts under each message of the log. Each
// differs in shape, not only colour, so the picture reads under NO_COLOR.
const (
	markAcked   = '✓' // settled: acknowledged
	markOut     = '◷' // delivered, its ack wait running
	markExpired = '↻' // delivered, ack wait ran out (or nak'd): goes to the next pull
	markWaiting = '○' // not delivered to this consumer yet
	markSkip    = '·' // not for this consumer: its filter does not match
	markDead    = '✗' // terminated, or given up after max deliveries
)

const legend = "✓ acked  ◷ awaiting ack  ↻ ack wait ran out  ○ not delivered yet  · not this consumer's  ✗ given up"

// Smallest pane drawn as a picture; below it, one line says what matters.
const (
	minW = 40
	minH = 6
)

func seqKey(seq uint64) string            { return "seq:" + strconv.FormatUint(seq, 10) }
func markKey(c string, seq uint64) string { return "mark:" + c + ":" + strconv.FormatUint(seq, 10) }
func outKey(c string, seq uint64) string  { return "out:" + c + ":" + strconv.FormatUint(seq, 10) }
func runes(s string) int                  { return utf8.RuneCountInString(s) }
func u(n uint64) string                   { return strconv.FormatUint(n, 10) }

// layout is where the log and the consumers' rows were drawn, for the
// messages travelling between them.
type layout struct {
	x0, cw int
	lo, hi uint64
	logY   int
	rows   map[string]int // consumer → its marks row
}

func (l *layout) x(seq uint64) int { return l.x0 + int(seq-l.lo)*l.cw + l.cw/2 }

func (l *layout) at(name string) (kit.Point, bool) {
	parts := strings.Split(name, ":")
	seq, err := strconv.ParseUint(parts[len(parts)-1], 10, 64)
	if err != nil || l.cw == 0 || seq < l.lo || seq > l.hi {
		return kit.Point{}, false
	}
	switch {
	case parts[0] == "seq":
		return kit.Point{X: l.x(seq), Y: l.logY}, true
	case parts[0] == "mark" && len(parts) == 3:
		y, ok := l.rows[parts[1]]
		return kit.Point{X: l.x(seq), Y: y}, ok
	}
	return kit.Point{}, false
}

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	if s.W < minW || s.H < minH {
		return s.Line(s.oneLine(now))
	}
	snap := &s.snap
	if snap.Stream == "" || (snap.Problem != "" && len(snap.Consumers) == 0) {
		s.empty(c, s.header(c, now))
		s.lay = layout{}
		return c.Render(s.Styles)
	}
	// The newest of the story is read to its end where the pane has the
	// rows: those the picture leaves empty, and at worst the blank row
	// under the header.
	if !s.draw(c, 1, now) {
		c = s.Blank()
		s.draw(c, 0, now)
	}
	s.movers.Draw(c, now, s.lay.at, nil)
	return c.Render(s.Styles)
}

// draw draws the header, the picture gap rows under it (0 or 1) and the
// story under the picture. It reports whether the newest of the story was
// said to its end. Without the gap, the row it frees goes to the story:
// the picture is the same, a row higher.
func (s *Scene) draw(c *kit.Canvas, gap int, now time.Time) bool {
	y := s.header(c, now)
	snap := &s.snap
	// Rows from the bottom: what happened, and a legend when there is room.
	bottom := s.H
	need, newest := 0, 0
	for _, l := range snap.Story {
		newest = len(text.Wrap(l.Text, s.W-2))
		need += newest
	}
	storyRows := min(need, max((s.H-y)/4, 1))
	if s.H-y >= 14 && s.W >= runes(legend)+2 {
		bottom--
		c.Text(1, bottom, legend, kit.Faint)
	}
	// The story gives up rows (down to one) so that every consumer has
	// its two: a blank row, the log, the subjects, then a consumer's marks
	// and its cursor line.
	if give := min(3+2*len(snap.Consumers)-(bottom-storyRows-y), storyRows-1); give > 0 {
		storyRows -= give
	}
	if gap == 0 {
		storyRows++
	}
	bottom -= storyRows

	y = s.log(c, y+gap, y, bottom, now)
	y = s.awaiting(c, y+1, bottom, now)
	s.pulls(c, y, bottom, now)
	// Then the story takes the empty rows above it that its newest line
	// needs.
	if short := newest - storyRows; short > 0 {
		free := 0
		for free < short && bottom-free-1 >= y && blankRow(c, bottom-free-1) {
			free++
		}
		storyRows += free
		bottom -= free
	}
	s.story(c, bottom, storyRows, now)
	return storyRows >= newest
}

// blankRow reports whether row y of c has nothing drawn on it.
func blankRow(c *kit.Canvas, y int) bool {
	for x := range c.Width() {
		if c.At(x, y) != ' ' {
			return false
		}
	}
	return true
}

// header is the stream's line: its name, what it captures, how many
// messages it holds, and the server's state. It returns the next row.
func (s *Scene) header(c *kit.Canvas, now time.Time) int {
	snap := &s.snap
	right := c.ServerState(0, snap.ServerUp, s.flashes.On("server", now))
	if snap.Stream == "" {
		c.Text(1, 0, kit.Clip("no stream on screen", right-2), kit.Title)
		return 1
	}
	x := c.Text(1, 0, snap.Stream, kit.Title)
	// The line ends two columns before the server's state, so the two
	// read apart.
	end := right - 2
	subjects := ""
	if len(snap.Subjects) > 0 {
		subjects = " ← " + strings.Join(snap.Subjects, ", ")
	}
	parts := []string{text.Count(snap.Msgs, "message", "messages")}
	if snap.LastSeq > 0 {
		parts = append(parts, "last seq "+u(snap.LastSeq))
	}
	if !snap.Auto {
		parts = append(parts, "watch")
	}
	// The subjects give way before the count: the subject row names
	// what each message was published to, and only the count says how
	// many the stream holds beyond the log's window.
	fit := text.Leading(end-x-runes(subjects)-3, " · ", parts...)
	if len(fit) == 0 {
		if fit = text.Leading(end-x-3, " · ", parts...); len(fit) > 0 || x+runes(subjects) > end {
			subjects = ""
		}
	}
	x = c.Text(x, 0, subjects, kit.Plain)
	if len(fit) > 0 {
		c.Text(x, 0, " · "+strings.Join(fit, " · "), kit.Plain)
	}
	if !snap.ServerUp && s.H >= 8 {
		c.Text(1, 1, text.Fit(s.W-2, "the server is down: cursor and ack floor below are as last seen; the stream stores them",
			"the server is down: cursor and ack floor are as last seen", "the server is down"), kit.Bad)
		return 2
	}
	return 1
}

// tryStream are what to type on a server with no stream, for the scene
// to show a stream's log and a consumer's cursor and ack floor on it: the
// stream the welcome's first JetStream steps make, first.
var tryStream = []string{
	"stream add EVENTS --subjects 'events.>' --defaults",
	"pub events.page_loaded visit --count 5 --jetstream",
	"consumer add EVENTS worker --pull --defaults",
	"consumer next EVENTS worker --count 2",
}

// noStream is what the scene says while the server has no stream, where
// the pane has no room for tryStream.
var noStream = "no stream yet: " + tryStream[0] + " makes one"

// tryFor offers the lesson's lines (scenes.Env's Try), or the example.
func tryFor(lesson []string) kit.Offer {
	return kit.StreamOffer(lesson, "No stream yet. Make the lesson's and publish to it; its consumers' cursors and ack floors move here as the server reports them:",
		kit.Offer{Lead: "No stream yet. Make one, publish to it, add a consumer and read; its cursor and ack floor move here as the server reports them:", Lines: tryStream, Short: noStream})
}

// empty explains why there is no log to draw.
func (s *Scene) empty(c *kit.Canvas, y int) {
	snap := &s.snap
	what := snap.Problem
	if what == "" {
		what = "looking for a stream"
	}
	story := min(len(snap.Story), 2)
	if what == noStream {
		if c.Try(1, y+1, s.W-2, s.H-story-(y+1), s.try.Lead, s.try.Lines...) > 0 {
			s.story(c, s.H-story, story, s.Clock.Now())
			return
		}
		what = s.try.Short
	}
	// What to type wraps onto the rows above the story, at words.
	lines := text.Wrap(what, s.W-2)
	if n := max(s.H-story-(y+1), 1); len(lines) > n {
		lines = append(lines[:n-1], text.Words(strings.Join(lines[n-1:], " "), s.W-2))
	}
	y++
	for _, l := range lines {
		c.Text(1, y, l, kit.Warn)
		y++
	}
	if len(snap.Others) > 0 && y+1 < s.H-story {
		c.Text(1, y+1, kit.Clip("streams: "+strings.Join(snap.Others, ", ")+" (watch STREAM shows one)", s.W-2), kit.Faint)
	}
	s.story(c, s.H-story, story, s.Clock.Now())
}

// window picks the messages the log shows: the newest that fit, moved back
// to keep in view the oldest message any consumer still has to settle.
func (s *Scene) window(cols int) (lo, hi uint64) {
	snap := &s.snap
	if snap.LastSeq == 0 || snap.LastSeq < snap.FirstSeq || cols <= 0 {
		return 0, 0
	}
	first := max(snap.FirstSeq, 1)
	hi = snap.LastSeq
	lo = first
	if hi-first+1 > uint64(cols) {
		lo = hi - uint64(cols) + 1
	}
	keep := hi
	for _, c := range snap.Consumers {
		if c.AckFloor < c.Delivered {
			keep = min(keep, c.AckFloor+1)
		}
		for _, o := range c.Out {
			keep = min(keep, o.Seq)
		}
	}
	if keep < lo {
		lo = max(keep, first)
		hi = lo + uint64(cols) - 1
	}
	return lo, hi
}

// log draws the log and each consumer's marks, cursor and ack floor under
// it. It returns the row after.
func (s *Scene) log(c *kit.Canvas, y, top, bottom int, now time.Time) int {
	snap := &s.snap
	labelW := runes("subject")
	for _, cs := range snap.Consumers {
		labelW = max(labelW, min(runes(cs.Name), 14))
	}
	x0 := labelW + 3
	// Room beside the log for each consumer's cursor and ack floor.
	statsW := 24
	if s.W >= 90 {
		statsW = 30
	}
	if s.W < 60 {
		statsW = 0
	}
	// Columns as wide as the numbers need, wider (up to 10) to show the
	// subjects when few messages leave room.
	cw := max(len(u(snap.LastSeq))+2, 4)
	room := s.W - x0 - 2 - statsW
	lo, hi := s.window(max(room/cw, 1))
	var tokens map[uint64]string
	if hi > 0 {
		tokens = distinct(snap, lo, hi)
		widest := 0
		for _, t := range tokens {
			widest = max(widest, runes(t))
		}
		// Columns widen only as far as every subject fits whole, with two
		// blanks between subjects, or one; otherwise the row names the
		// subjects once.
		n := int(hi - lo + 1)
		for _, want := range []int{min(widest+2, 10), widest + 1} {
			if want > cw && n*want <= room {
				cw = want
				break
			}
		}
	}
	cols := max(room/cw, 1)
	lo, hi = s.window(cols)
	if hi > 0 {
		tokens = distinct(snap, lo, hi)
	}
	// The rows each consumer needs at least: its marks, with its cursor
	// and ack floor beside them, or on a row of their own under them.
	marksEnd := x0 + 2
	if hi > 0 {
		marksEnd = x0 + cw*int(hi-lo+1) + 2
	}
	need := make([]int, len(snap.Consumers))
	for i := range snap.Consumers {
		need[i] = 1
		cs := &snap.Consumers[i]
		if !cs.NoMatch && runes(cursorFloor(cs)) > s.W-marksEnd-1 {
			need[i] = 2
		}
		if cs.NoMatch && text.Fit(s.W-marksEnd-1, matchesNothing(cs, nil)[1:]...) == "" {
			need[i] = 2 // what it says goes under its marks
		}
	}
	needFrom := func(i int) (n int) {
		for _, k := range need[i:] {
			n += k
		}
		return n
	}
	// Above the log, a blank row, unless a consumer's rows need it.
	subjRow := 0
	if hi > 0 {
		subjRow = 1
	}
	// An empty log says where to publish, in the rows under it that its
	// consumers leave (at most two more where it has none).
	var empty []string
	if hi == 0 {
		rows := bottom - y - needFrom(0)
		if len(need) == 0 {
			rows = min(rows, 3)
		}
		empty = emptyLog(snap.Subjects, s.W-x0-1, max(rows, 1))
		subjRow = len(empty) - 1
	}
	if len(need) > 0 && bottom-1-(y+subjRow) < needFrom(0) && y > top {
		y--
	}
	s.lay = layout{x0: x0, cw: cw, lo: lo, hi: hi, logY: y, rows: map[string]int{}}
	role := kit.Strong
	if !snap.ServerUp {
		role = kit.NodeOff
	}
	c.Text(1, y, "log", kit.Faint)
	if hi == 0 {
		for i, l := range empty {
			c.Text(x0, y+i, l, kit.Faint)
		}
		y += len(empty) - 1
	} else {
		if lo > max(snap.FirstSeq, 1) {
			c.Text(x0-2, y, "…", kit.Faint)
		}
		for seq := lo; seq <= hi; seq++ {
			c.TextCenter(x0+int(seq-lo)*cw, x0+int(seq-lo+1)*cw, y, u(seq), role)
		}
		if hi < snap.LastSeq {
			c.Text(x0+int(hi-lo+1)*cw, y, "…", kit.Faint)
		}
	}
	rowsLeft := bottom - y - 1
	tall := rowsLeft >= 2+2*len(snap.Consumers)+2
	if y+1 < bottom && hi > 0 {
		y++
		c.Text(1, y, "subject", kit.Faint)
		fit := true
		var names []string
		for seq := lo; seq <= hi; seq++ {
			fit = fit && runes(tokens[seq]) <= cw-1
			if t := tokens[seq]; t != "" && !slices.Contains(names, t) {
				names = append(names, t)
			}
		}
		if fit {
			for seq := lo; seq <= hi; seq++ {
				c.TextCenter(x0+int(seq-lo)*cw, x0+int(seq-lo+1)*cw, y, tokens[seq], kit.Faint)
			}
		} else {
			c.Text(x0, y, text.Words(strings.Join(names, ", "), s.W-x0-1), kit.Faint)
		}
	}
	first := 0
	if n, rows := len(snap.Consumers), bottom-1-y; needFrom(0) > rows && rows > 0 {
		// Not every consumer fits with its cursor: the newest keep
		// theirs (the one a learner just added among them), the oldest
		// are counted.
		first = 1
		for first < n && 1+needFrom(first) > rows {
			first++
		}
		y++
		var older []string
		for _, cs := range snap.Consumers[:first] {
			older = append(older, cs.Name)
		}
		more, count := "+"+strconv.Itoa(first)+" more", "+"+strconv.Itoa(first)+" more consumers"
		if first == n {
			more = text.Count(uint64(n), "consumer", "consumers")
			count = more
		}
		c.Text(1, y, text.Fit(s.W-2, more+": "+strings.Join(older, ", "), count, more), kit.Faint)
	}
	for i := first; i < len(snap.Consumers); i++ {
		if y+1 >= bottom {
			break
		}
		y++
		cs := &snap.Consumers[i]
		s.lay.rows[cs.Name] = y
		// A second row for this consumer only where every later one
		// still has the rows it needs.
		later := needFrom(i + 1)
		second := func() bool { return y+1 < bottom-later }
		rest := s.consumerRow(c, cs, x0, cw, lo, hi, y, tall && second(), !second(), now)
		if tall && second() && !cs.Offline {
			y++
			// The cursor and the ack floor first.
			rest = append(s.ruler(c, cs, x0, cw, lo, hi, y, now), rest...)
		}
		// What found no room beside the log, on a row of its own.
		if len(rest) > 0 && second() {
			y++
			c.Text(x0, y, strings.Join(text.Leading(s.W-x0-1, " · ", rest...), " · "), kit.Plain)
		}
	}
	if len(snap.Consumers) == 0 && y+2 < bottom {
		y += 2
		c.Text(1, y, text.Fit(s.W-2, "no consumer on "+snap.Stream+" yet: consumer add "+snap.Stream+" worker --pull --ack explicit --defaults",
			"no consumer on "+snap.Stream+" yet: consumer add "+snap.Stream+" worker --pull",
			"no consumer on "+snap.Stream+" yet", "no consumer yet"), kit.Warn)
	}
	return y + 1
}

// emptyLog says, in lines of width cells and at most rows of them, that
// the log is empty and where to publish to fill it: in one line where a
// wording fits, the subjects over several where none does, and where even
// they do not fit, less, never a subject cut short.
func emptyLog(subjects []string, width, rows int) []string {
	if len(subjects) == 0 {
		// A mirror's or a sourced stream's: filled from elsewhere.
		return []string{text.Fit(width, "empty")}
	}
	list := subjects[0]
	for i, subj := range subjects[1:] {
		sep := ", "
		if i == len(subjects)-2 {
			sep = " or" + text.NoBreak
		}
		list += sep + subj
	}
	full, short := "empty: publish to "+list+" to add messages", "empty: publish to "+list
	if l := text.Fit(width, full, short); l != "" {
		return []string{l}
	}
	wide := slices.ContainsFunc(subjects, func(subj string) bool { return text.Width(subj) > width })
	if lines := text.Wrap(short, width); !wide && len(lines) <= rows {
		return lines
	}
	return []string{text.Fit(width, "empty: publish to its subjects", "empty")}
}

// distinct is what tells the messages' subjects apart: the first token in
// which the subjects in view differ (orders.us.new and orders.eu.new show
// as us and eu), or the last token when they are all the same.
func distinct(snap *Snapshot, lo, hi uint64) map[uint64]string {
	out := map[uint64]string{}
	var split [][]string
	var seqs []uint64
	for seq := lo; seq <= hi; seq++ {
		if subj, ok := snap.Subj[seq]; ok && subj != "" {
			split = append(split, strings.Split(subj, "."))
			seqs = append(seqs, seq)
		} else if ok {
			out[seq] = "gone"
		}
	}
	if len(split) == 0 {
		return out
	}
	at := -1
	for i := 0; at < 0 && i < len(split[0]); i++ {
		for _, t := range split[1:] {
			if i >= len(t) || t[i] != split[0][i] {
				at = i
				break
			}
		}
	}
	for j, t := range split {
		i := at
		if i < 0 || i >= len(t) {
			i = len(t) - 1
		}
		out[seqs[j]] = t[i]
	}
	return out
}

// mark is what a consumer's row shows under one message.
func (s *Scene) mark(cs *Consumer, seq uint64, now time.Time) (rune, kit.Role) {
	if why := cs.Dead[seq]; why != "" {
		return markDead, kit.Bad
	}
	if !matches(cs.Filters, s.snap.Subj[seq]) {
		return markSkip, kit.Faint
	}
	if o := cs.out(seq); o != nil {
		if o.Naked || !now.Before(o.Deadline) {
			return markExpired, kit.Warn
		}
		return markOut, kit.Warn
	}
	if seq <= cs.AckFloor || cs.Acked[seq] || (cs.AckNone && seq <= cs.Delivered) {
		return markAcked, kit.Good
	}
	if seq <= cs.Delivered {
		return markAcked, kit.Good // settled above the floor, out of order
	}
	return markWaiting, kit.Kept
}

// consumerRow draws a consumer's name, its marks and its counts.
// Where the counts do not fit beside the marks, they are returned for a
// row of their own; on one row (oneRow) the leading ones that fit stay.
func (s *Scene) consumerRow(c *kit.Canvas, cs *Consumer, x0, cw int, lo, hi uint64, y int, tall, oneRow bool, now time.Time) (rest []string) {
	c.Text(1, y, kit.Clip(cs.Name, x0-3), kit.Strong)
	if hi > 0 && !cs.Unread {
		for seq := lo; seq <= hi; seq++ {
			r, role := s.mark(cs, seq, now)
			if s.flashes.On(markKey(cs.Name, seq), now) {
				role = kit.Flash
			}
			if cs.Offline {
				role = kit.NodeOff
			}
			c.Set(x0+int(seq-lo)*cw+cw/2, y, r, role)
		}
	}
	x := x0 + cw*int(hi-lo+1) + 2
	if hi == 0 {
		x = x0 + 2
	}
	if cs.Offline {
		// Its numbers are not the broker's now: say where it waits.
		say := []string{"offline: its copies are on stopped nodes; marks as last seen", "offline: on stopped nodes; as last seen", "offline"}
		if cs.Unread {
			say = []string{"offline: its copies are on stopped nodes", "offline: on stopped nodes", "offline"}
		}
		if f := text.Fit(s.W-x-1, say...); f != "" || oneRow {
			c.Text(x, y, text.WrapIn(s.W-x-1, 1, say...)[0], kit.Bad)
			return nil
		}
		return []string{text.WrapIn(s.W-x0-1, 1, say...)[0]}
	}
	var parts []string
	parts = append(parts, u(cs.Pending)+" to deliver")
	if cs.AckPending > 0 {
		parts = append(parts, u(cs.AckPending)+" awaiting ack")
	}
	if cs.Redelivered > 0 {
		parts = append(parts, u(cs.Redelivered)+" redelivered")
	}
	if cs.Waiting > 0 {
		parts = append(parts, text.Count(cs.Waiting, "pull", "pulls")+" waiting")
	}
	if !tall {
		parts = append([]string{"cursor " + u(cs.Delivered), "floor " + u(cs.AckFloor)}, parts...)
	}
	if cs.NoMatch {
		// A typo in a filter is silent: say it where the counts would be.
		held := make([]string, 0, len(s.snap.Held))
		for subj := range s.snap.Held {
			held = append(held, subj)
		}
		sort.Strings(held)
		say := matchesNothing(cs, held)
		if f := text.Fit(s.W-x-1, say...); f != "" || oneRow {
			c.Text(x, y, text.WrapIn(s.W-x-1, 1, say...)[0], kit.Bad)
			return nil
		}
		// No room beside the log: a row of its own, under the marks.
		return []string{text.WrapIn(s.W-x0-1, 1, say...)[0]}
	}
	fit := text.Leading(s.W-x-1, " · ", parts...)
	if len(fit) < len(parts) && !oneRow {
		return parts // no room beside the log: a row of their own
	}
	c.Text(x, y, strings.Join(fit, " · "), kit.Plain)
	return nil
}

// cursorFloor is a consumer's cursor and ack floor, in the fewest words:
// what its row shows at the least.
// matchesNothing says that a consumer's filter matches none of the subjects the
// stream holds, in wordings from the fullest.
func matchesNothing(cs *Consumer, held []string) []string {
	filter := "filter " + strings.Join(cs.Filters, ", ")
	return []string{filter + " matches nothing (the stream holds " + strings.Join(held, ", ") + ")",
		filter + " matches nothing", "filter matches nothing", "matches nothing"}
}

func cursorFloor(cs *Consumer) string {
	return "cursor " + u(cs.Delivered) + " · floor " + u(cs.AckFloor)
}

// ruler draws, under a consumer's marks, its ack floor as a bar over what
// is settled and its cursor as an arrow under the last message delivered,
// with both numbers and what its filter reads.
func (s *Scene) ruler(c *kit.Canvas, cs *Consumer, x0, cw int, lo, hi uint64, y int, now time.Time) (rest []string) {
	floorRole, cursorRole := kit.Good, kit.Strong
	if s.flashes.On("floor:"+cs.Name, now) {
		floorRole = kit.Flash
	}
	if s.flashes.On("cursor:"+cs.Name, now) {
		cursorRole = kit.Flash
	}
	end := x0 // first column after the marks
	if hi > 0 {
		end = x0 + cw*int(hi-lo+1)
		if cs.AckFloor >= lo {
			to := x0 + int(min(cs.AckFloor, hi)-lo)*cw + cw/2
			c.HLine(x0, to, y, '━', kit.Good)
			c.Set(to, y, '┛', kit.Good)
		} else if cs.AckFloor > 0 {
			c.Set(x0-1, y, '◀', kit.Good)
		}
		switch {
		case cs.Delivered >= lo && cs.Delivered <= hi:
			c.Set(x0+int(cs.Delivered-lo)*cw+cw/2, y, '▲', kit.Strong)
		case cs.Delivered > hi:
			c.Set(end, y, '▶', kit.Strong)
		}
	}
	x := end + 2
	parts := []string{"cursor " + u(cs.Delivered), "ack floor " + u(cs.AckFloor)}
	if len(cs.Filters) > 0 {
		parts = append(parts, "filter "+strings.Join(cs.Filters, ", "))
	}
	if x+runes(parts[0])+3+runes(parts[1]) > s.W-1 {
		return parts // no room beside the log: a row of their own
	}
	x = c.Text(x, y, "cursor ", kit.Faint)
	x = c.Text(x, y, u(cs.Delivered), cursorRole)
	x = c.Text(x, y, " · ack floor ", kit.Faint)
	x = c.Text(x, y, u(cs.AckFloor), floorRole)
	if len(parts) > 2 {
		if x+3+runes(parts[2]) <= s.W-1 {
			c.Text(x, y, " · "+parts[2], kit.Faint)
		} else {
			return parts[2:]
		}
	}
	return nil
}

// awaiting lists the messages waiting for an ack, each with its ack wait
// counting down. It returns the row after.
func (s *Scene) awaiting(c *kit.Canvas, y, bottom int, now time.Time) int {
	type row struct {
		cs *Consumer
		o  Outstanding
	}
	var rows []row
	for i := range s.snap.Consumers {
		cs := &s.snap.Consumers[i]
		for _, o := range cs.Out {
			rows = append(rows, row{cs, o})
		}
	}
	if len(rows) == 0 || y+1 >= bottom {
		return y
	}
	title := "awaiting ack"
	if cs := rows[0].cs; len(s.snap.Consumers) == 1 {
		title += " · ack wait " + dur(cs.AckWait)
		if cs.MaxDeliver > 0 {
			title += " · at most " + strconv.Itoa(cs.MaxDeliver) + " tries"
		}
	}
	c.Text(1, y, kit.Clip(title, s.W-2), kit.Title)
	y++
	for i, r := range rows {
		if y >= bottom {
			break
		}
		if y == bottom-1 && i < len(rows)-1 {
			c.Text(3, y, fmt.Sprintf("+%d more awaiting ack", len(rows)-i), kit.Faint)
			y++
			break
		}
		// The last row's note may go on below it, where a row is left
		// under it for the pulls.
		n := 1
		if i == len(rows)-1 {
			n = bottom - y - min(len(s.snap.Pulls), 1)
		}
		y += s.outRow(c, r.cs, r.o, y, n, now)
	}
	return y
}

// outRow is one message awaiting its ack: which, where it went, its tries,
// and the time left.
// outRow draws one message awaiting its ack on row y, its note going on
// to the rows after it where rows allows more than one. It returns the
// rows it took.
func (s *Scene) outRow(c *kit.Canvas, cs *Consumer, o Outstanding, y, rows int, now time.Time) int {
	subj := s.snap.Subj[o.Seq]
	who := cs.Name
	if p := pullName(o.Pull); p != "" {
		who += " · " + p
	}
	tries := ""
	switch {
	case o.Tries > 0 && cs.MaxDeliver > 0:
		tries = fmt.Sprintf("try %d of %d", o.Tries, cs.MaxDeliver)
	case o.Tries > 0:
		tries = fmt.Sprintf("try %d", o.Tries)
	}
	role := kit.Plain
	if s.flashes.On(outKey(cs.Name, o.Seq), now) {
		role = kit.Flash
	}
	x := c.Text(3, y, "#"+u(o.Seq), kit.Strong)
	if s.W >= 80 {
		x = c.Text(x+1, y, kit.Clip(subj, 18), kit.Faint)
		x = max(x+2, 24)
	} else {
		x += 2
	}
	x = c.Text(x, y, kit.Clip(who, 18), role)
	if tries != "" {
		x = c.Text(x+2, y, tries, role)
	}
	x += 2
	wait := cs.waitFor(max(o.Tries, 1))
	left := o.Deadline.Sub(now)
	say := s.timeLeftIn(cs, o, left)
	// The ack wait as a bar that empties, as wide as the room allows.
	barW := 12
	if left <= 0 || o.Naked || !s.snap.ServerUp {
		barW = 0 // the words say it all
	}
	for barW > 0 && s.W-x-1 < barW+3+min(runes(say[0]), 12) {
		barW -= 4
	}
	if barW > 0 {
		filled := 0
		if wait > 0 && left > 0 {
			filled = min(int((float64(left)/float64(wait))*float64(barW)+0.999), barW)
		}
		c.Set(x, y, '▕', kit.Faint)
		for i := 0; i < barW; i++ {
			if i < filled {
				c.Set(x+1+i, y, '█', kit.Warn)
			} else {
				c.Set(x+1+i, y, '░', kit.Faint)
			}
		}
		c.Set(x+1+barW, y, '▏', kit.Faint)
		x += barW + 3
	}
	lines := text.WrapIn(s.W-x-1, 1, say...)
	if rows > 1 && text.Width(lines[0]) < text.Width(say[0]) {
		lines = text.WrapIn(s.W-x-1, rows, say[0])
	}
	for i, l := range lines {
		c.Text(x, y+i, l, kit.Warn)
	}
	return max(len(lines), 1)
}

// timeLeft says what the countdown means now.
func (s *Scene) timeLeft(cs *Consumer, o Outstanding, left time.Duration) string {
	return s.timeLeftIn(cs, o, left)[0]
}

// timeLeftIn is timeLeft in its wordings, the fullest first.
func (s *Scene) timeLeftIn(cs *Consumer, o Outstanding, left time.Duration) []string {
	if !s.snap.ServerUp {
		return []string{"(server down: the server keeps the ack wait)", "(server down)"}
	}
	next := "the next pull"
	for _, p := range s.snap.Pulls {
		if p.Consumer == cs.Name && p.Waiting {
			next = pullName(p.ID) + ", waiting"
			break
		}
	}
	if o.Naked {
		return []string{"nak'd: goes to " + next, "nak'd"}
	}
	if left <= 0 {
		if cs.MaxDeliver > 0 && o.Tries >= cs.MaxDeliver {
			return []string{"last try ran out: given up at the next pull", "last try ran out"}
		}
		return []string{"ran out: goes to " + next, "ran out"}
	}
	t := tenths(left) + " left"
	if o.Unsure {
		t = "≤" + t
	}
	return []string{t}
}

// tenths shows a duration in seconds with one decimal, rounded up, so a
// countdown never shows 0.0 while time is left.
func tenths(d time.Duration) string {
	n := (d + 100*time.Millisecond - 1) / (100 * time.Millisecond)
	return fmt.Sprintf("%d.%ds", n/10, n%10)
}

// dur shows a configured duration the way the CLI takes it: 3s, 30s, 1m.
func dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "none"
	case d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d%time.Second == 0:
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

// pulls lists the workers' pull requests: what each got, whether it is
// still waiting, and what it did with its message.
func (s *Scene) pulls(c *kit.Canvas, y, bottom int, now time.Time) {
	if y >= bottom || len(s.snap.Pulls) == 0 {
		return
	}
	var items []string
	var roles []kit.Role
	many := len(s.snap.Consumers) > 1
	for _, p := range s.snap.Pulls {
		cs := s.snap.consumer(p.Consumer)
		if cs == nil {
			continue
		}
		text := pullName(p.ID)
		if many {
			text += " (" + p.Consumer + ")"
		}
		role := kit.Plain
		switch {
		case p.Waiting:
			text += " waiting"
			role = kit.Warn
		case len(p.Got) == 0:
			text += " got nothing"
			role = kit.Faint
		}
		for _, seq := range p.Got {
			text += " #" + u(seq) + string(s.pullMark(cs, p, seq, now))
		}
		if s.flashes.On("pull:"+pullName(p.ID), now) {
			role = kit.Flash
		}
		items = append(items, text)
		roles = append(roles, role)
	}
	// The newest that fit, oldest first.
	x := 1
	x = c.Text(x, y, "pulls ", kit.Title)
	width := s.W - x - 1
	start := len(items)
	used := 0
	for start > 0 && used+runes(items[start-1])+3 <= width {
		start--
		used += runes(items[start]) + 3
	}
	for i := start; i < len(items); i++ {
		x = c.Text(x, y, items[i], roles[i])
		if i < len(items)-1 {
			x = c.Text(x, y, " · ", kit.Faint)
		}
	}
}

// pullMark is what became of a message a pull got: acknowledged, still
// awaiting its ack, its ack wait run out (or nak'd) on the way to another
// pull, or given up. It agrees with the consumer's row (mark).
func (s *Scene) pullMark(cs *Consumer, p Pull, seq uint64, now time.Time) rune {
	// Handed to a later pull: this one never acked it.
	for _, q := range s.snap.Pulls {
		if q.ID > p.ID && q.Consumer == p.Consumer {
			for _, g := range q.Got {
				if g == seq {
					return markExpired
				}
			}
		}
	}
	if o := cs.out(seq); o != nil {
		if o.Naked || !now.Before(o.Deadline) {
			return markExpired
		}
		return markOut
	}
	if cs.Dead[seq] != "" {
		return markDead
	}
	return markAcked
}

// story draws what happened last in n rows from y, newest at the bottom:
// the newest wrapped to as many rows as it needs (its last words give way
// when it needs more than n), older ones above while they fit whole.
func (s *Scene) story(c *kit.Canvas, y, n int, now time.Time) {
	lines := s.snap.Story
	if n <= 0 || len(lines) == 0 {
		return
	}
	w := s.W - 2
	type row struct {
		text string
		role kit.Role
	}
	var rows []row // newest last
	for i := len(lines) - 1; i >= 0 && len(rows) < n; i-- {
		l := lines[i]
		role := kit.Faint
		if i == len(lines)-1 {
			role = kit.Plain
			if l.Bad {
				role = kit.Bad
			}
			if s.flashes.On("story", now) {
				role = kit.Strong
			}
		}
		wrapped := text.Wrap(l.Text, w)
		if i == len(lines)-1 {
			// The newest says less where that is what reads whole.
			wrapped = text.WrapIn(w, n, l.Text, cmp.Or(l.Less, l.Text))
		}
		if len(rows)+len(wrapped) > n {
			if i < len(lines)-1 {
				break
			}
			wrapped = append(wrapped[:n-1], text.Words(strings.Join(wrapped[n-1:], " "), w))
		}
		add := make([]row, 0, len(wrapped))
		for _, t := range wrapped {
			add = append(add, row{t, role})
		}
		rows = append(add, rows...)
	}
	y += n - len(rows)
	for i, r := range rows {
		c.Text(1, y+i, r.text, r.role)
	}
}

// oneLine is the whole scene in one line, for a pane too small to draw in.
func (s *Scene) oneLine(now time.Time) (string, kit.Role) {
	snap := &s.snap
	switch {
	case !snap.ServerUp:
		return "server down · cursor and ack floor are stored with the stream", kit.Bad
	case snap.Stream == "":
		switch snap.Problem {
		case "":
			return "no stream yet", kit.Warn
		case noStream:
			return s.try.Short, kit.Warn
		}
		return snap.Problem, kit.Warn
	case len(snap.Consumers) == 0:
		return snap.Stream + ": no consumer yet", kit.Plain
	}
	var parts []string
	for _, cs := range snap.Consumers {
		p := cs.Name + " cursor " + u(cs.Delivered) + " floor " + u(cs.AckFloor)
		if len(cs.Out) > 0 {
			o := cs.Out[0]
			p += " · #" + u(o.Seq) + " " + s.timeLeft(&cs, o, o.Deadline.Sub(now))
		}
		parts = append(parts, p)
	}
	return snap.Stream + ": " + strings.Join(parts, " | "), kit.Plain
}
