package kvwatch

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// Smallest pane drawn as a picture; below it, one line says what matters.
const (
	minW = 40
	minH = 6
)

func changeKey(id uint64) string { return "change:" + strconv.FormatUint(id, 10) }
func runes(s string) int         { return utf8.RuneCountInString(s) }

// at places the movers: a write starts in the margin of its key's row and
// travels to the key's value.
func (s *Scene) at(name string) (kit.Point, bool) {
	kind, key, ok := strings.Cut(name, ":")
	if !ok {
		return kit.Point{}, false
	}
	y, ok := s.rows[key]
	if !ok {
		return kit.Point{}, false
	}
	if kind == "in" {
		return kit.Point{X: 1, Y: y}, true
	}
	return kit.Point{X: s.valueX, Y: y}, true
}

// tryBucket are what to type on a server with no bucket, for the scene
// to show a key, its revisions and the writes as the server took them:
// the bucket its story is about, first.
var tryBucket = []string{"kv add profiles", "kv put profiles sue.color blue", "kv put profiles sue.color green"}

// noBucket is what the scene says while the server has no bucket, where
// the pane has no room for tryBucket.
var noBucket = "no bucket yet: " + tryBucket[0] + " makes one"

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	clear(s.rows)
	if s.W < minW || s.H < minH {
		return s.Line(s.oneLine())
	}
	y := s.header(c, now)
	snap := &s.snap
	if snap.Bucket == "" {
		say := snap.Problem
		if say == "" {
			say = "looking for a bucket…"
		}
		if say == noBucket && c.Try(1, y+1, s.W-2, s.H-y-1, "No bucket yet. Make one, put a key twice, and watch each revision land:", tryBucket...) > 0 {
			return c.Render(s.Styles)
		}
		for i, l := range text.WrapIn(s.W-2, s.H-y-1, say) {
			c.Text(1, y+1+i, l, kit.Warn)
		}
		return c.Render(s.Styles)
	}
	// The keys take the upper part, the writes the lower; in a small pane
	// the newest write keeps a line, for a refused update says why.
	avail := s.H - y - 1
	keyNeed := len(snap.Keys) + 1
	changes := 0
	if len(snap.Changes) > 0 && avail >= 4 {
		changes = min(len(snap.Changes), max(avail-keyNeed-2, 1))
	}
	keysEnd := s.H
	if changes > 0 {
		keysEnd = s.H - changes - 1
	}
	// The blank row under the header goes before a key does: a table of
	// "+2 more keys" alone says less than the keys.
	top := y + 1
	if keysEnd-top < keyNeed {
		top = y
	}
	s.keys(c, top, keysEnd, now)
	if changes > 0 {
		s.changes(c, keysEnd, changes, now)
	}
	s.movers.Draw(c, now, s.at, nil)
	return c.Render(s.Styles)
}

// header is the bucket's line and the stream's under it. It returns the
// next row.
func (s *Scene) header(c *kit.Canvas, now time.Time) int {
	snap := &s.snap
	right := c.ServerState(0, snap.ServerUp, s.flashes.On("server", now))
	if snap.Bucket == "" {
		c.Text(1, 0, kit.Clip("no bucket on screen", right-2), kit.Title)
		return 1
	}
	x := c.Text(1, 0, "bucket ", kit.Plain)
	x = c.Text(x, 0, kit.Clip(snap.Bucket, right-x-1), kit.Title)
	info := []string{"keeps " + text.Count(max(snap.History, 1), "value", "values") + " per key"}
	if snap.TTL > 0 {
		info = append(info, "values expire after "+snap.TTL.String())
	}
	if !snap.Auto {
		info = append(info, "watch")
	}
	// Whole parts or none: "keeps 5 val…" would read as a different claim.
	if fits := text.Leading(right-x-1-len(sep), sep, info...); len(fits) > 0 {
		c.Text(x, 0, sep+strings.Join(fits, sep), kit.Plain)
	}
	// The stream underneath: its sequence numbers are the revisions. A
	// narrow pane gives it a second row when it has rows to spare, and
	// leaves out the parts that fit neither.
	streamRole := kit.Faint
	if s.flashes.On("stream", now) {
		streamRole = kit.Strong
	}
	parts := []string{"stream " + snap.Stream, text.Count(snap.Msgs, "message", "messages"),
		"last seq " + u(snap.LastSeq), "watchers " + strconv.Itoa(snap.Watchers), "← " + strings.Join(snap.Subjects, ", ")}
	rows := 1
	if s.H >= tallH {
		rows = 2
	}
	y := 1
	for ; rows > 0 && len(parts) > 0; rows-- {
		line := text.Leading(s.W-2, sep, parts...)
		if len(line) == 0 {
			line = []string{kit.Clip(parts[0], s.W-2)}
		}
		c.Text(1, y, strings.Join(line, sep), streamRole)
		parts = parts[len(line):]
		y++
	}
	if !snap.ServerUp {
		down := text.WrapIn(s.W-2, 1, "the server is down: the keys below are as last seen; the bucket's stream keeps them",
			"the server is down: the keys below are as last seen", "server down: the keys as last seen")
		c.Text(1, y, down[0], kit.Bad)
		y++
	}
	return y
}

// sep is what separates the parts of a header line.
const sep = " · "

// tallH is the height from which the stream's line may take two rows.
const tallH = 12

// keys draws the key table. It returns the row after.
func (s *Scene) keys(c *kit.Canvas, y, end int, now time.Time) int {
	snap := &s.snap
	if len(snap.Keys) == 0 {
		c.Text(3, y, text.WrapIn(s.W-4, 1, "no keys yet: kv put "+snap.Bucket+" KEY VALUE puts one", "no keys yet")[0], kit.Faint)
		return y + 1
	}
	shown := snap.Keys
	if room := end - y - 1; len(shown) > room {
		shown = shown[:max(room-1, 0)]
	}
	keyW := runes("key")
	for _, k := range snap.Keys {
		keyW = max(keyW, min(runes(k.Name), 28))
	}
	valueX := 3 + keyW + 2
	// The value column as wide as the longest value, at least 20 (where a
	// deleted key says so), then the revision and the history kept. Where
	// a value would be cut beside the history and not without it, the
	// history column gives way: the value is what the key holds.
	need := runes("value")
	for _, k := range shown {
		switch k.Op {
		case "del", "purge":
			need = max(need, runes(deleted))
		default:
			need = max(need, min(runes(k.Value), 40))
		}
	}
	withHist := s.W - valueX - 21 // two blanks, the revision, two blanks, "history kept", a margin
	alone := s.W - valueX - 7     // two blanks, the revision, a margin
	valueW := max(min(max(need, 20), withHist), 8)
	histX := valueX + valueW + 8
	if histX+12 > s.W || (need > withHist && withHist < alone) {
		histX = -1
		valueW = max(min(max(need, 20), alone), 4)
	}
	revX := valueX + valueW + 2
	s.valueX = valueX
	c.Text(3, y, "key", kit.Faint)
	c.Text(valueX, y, "value", kit.Faint)
	c.TextRight(revX+3, y, "rev", kit.Faint)
	if histX > 0 {
		c.Text(histX, y, "history kept", kit.Faint)
	}
	y++
	for _, k := range shown {
		s.rows[k.Name] = y
		role := kit.Strong
		if s.flashes.On("key:"+k.Name, now) {
			role = kit.Flash
		}
		c.Text(3, y, kit.Clip(k.Name, keyW), role)
		switch k.Op {
		case "del":
			c.Text(valueX, y, text.Fit(valueW, deleted, "✗ deleted"), kit.Bad)
		case "purge":
			c.Text(valueX, y, text.Fit(valueW, "✗ purged (a marker)", "✗ purged"), kit.Bad)
		default:
			c.Text(valueX, y, kit.Clip(printable(k.Value), valueW), kit.Plain)
		}
		c.TextRight(revX+3, y, u(k.Rev), role)
		if histX > 0 {
			c.Text(histX, y, u(k.Kept)+" of "+strconv.FormatInt(max(s.snap.History, 1), 10), kit.Faint)
		}
		y++
	}
	if n := len(snap.Keys) - len(shown); n > 0 && y < end {
		c.Text(3, y, "+"+text.Count(n, "more key", "more keys"), kit.Faint)
		y++
	}
	return y
}

// deleted is how the key table shows a deleted key.
const deleted = "✗ deleted (a marker)"

// changes draws the writes heard, newest last: stored at which revision,
// or refused and why.
func (s *Scene) changes(c *kit.Canvas, y, n int, now time.Time) {
	c.Text(1, y, kit.Clip("writes, as the server took them", s.W-2), kit.Title)
	y++
	list := s.snap.Changes[len(s.snap.Changes)-n:]
	for _, ch := range list {
		rev, revRole := "…", kit.Faint
		switch {
		case ch.Refused:
			rev, revRole = "✗", kit.Bad
		case ch.Rev > 0:
			rev, revRole = "rev "+u(ch.Rev), kit.Good
		case ch.resolvedStored():
			rev, revRole = "✓", kit.Good
		}
		if s.flashes.On(changeKey(uint64(ch.ID)), now) {
			revRole = kit.Flash
		}
		c.TextRight(9, y, rev, revRole)
		x := c.Text(11, y, ch.Op, kit.Strong)
		x = max(x+1, 18)
		what := ch.Key
		if ch.Op == "put" || ch.Op == "update" || ch.Op == "create" {
			what += " = " + printable(ch.Value)
		}
		role := kit.Plain
		if ch.Refused {
			role = kit.Bad
		}
		x = c.Text(x, y, kit.Clip(what, s.W-x-1), role)
		// The note in the fewest words that fit, or none: the write
		// itself says the most.
		c.Text(x, y, text.Fit(s.W-x-1, ch.notes()...), role)
		y++
	}
}

// notes say why a write was stored or refused, fullest first, each
// starting with the blanks that set it off from the write.
func (ch Change) notes() []string {
	expected, was := u(uint64(max(ch.Expected, 0))), u(ch.Was)
	switch {
	case ch.Refused && ch.Expected > 0:
		return []string{"  expected rev " + expected + " ≠ rev " + was + ": refused", "  expected rev " + expected + " ≠ " + was, "  rev " + expected + " ≠ " + was, "  stale"}
	case ch.Refused && ch.Expected == 0:
		return []string{"  the key exists (rev " + was + "): refused", "  the key exists (rev " + was + ")", "  key exists"}
	case ch.Refused:
		return []string{"  refused: " + ch.Why, "  refused"}
	case ch.Expected > 0:
		return []string{"  expected rev " + expected + " = the key's: stored", "  expected rev " + expected + " = the key's", "  rev " + expected + " matched"}
	case ch.Expected == 0:
		return []string{"  only if the key is new", "  only if new"}
	case ch.resolvedStored() && ch.Rev == 0:
		return []string{"  stored, and written over since", "  written over since"}
	}
	return nil
}

// resolvedStored reports a write the server stored.
func (ch Change) resolvedStored() bool { return ch.resolved && !ch.Refused }

// oneLine is the whole scene in one line, for a pane too small to draw in.
func (s *Scene) oneLine() (string, kit.Role) {
	snap := &s.snap
	switch {
	case !snap.ServerUp:
		return "server down · the bucket's stream keeps the keys", kit.Bad
	case snap.Bucket == "":
		if snap.Problem != "" {
			return snap.Problem, kit.Warn
		}
		return "no bucket yet", kit.Warn
	}
	text := snap.Bucket + ": " + text.Count(len(snap.Keys), "key", "keys") + " · last seq " + u(snap.LastSeq)
	if n := len(snap.Changes); n > 0 {
		ch := snap.Changes[n-1]
		switch {
		case ch.Refused:
			text += " · " + ch.Op + " " + ch.Key + " refused"
		case ch.Rev > 0:
			text += " · " + ch.Key + " rev " + u(ch.Rev)
		}
	}
	return text, kit.Plain
}

// printable keeps a value on one line of one-cell runes.
func printable(v string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < ' ' || r == 0x7f:
			return '·'
		case r > 0x7f && ansi.StringWidth(string(r)) != 1:
			return '?' // the canvas holds one-cell runes
		}
		return r
	}, v)
}
