// Package accounts is the accounts scene: each account of the running
// server as a box with its clients and their subscriptions, the imports
// between accounts as arrows (a stream from the exporter's subject to
// where the importer sees it; a service's requests into the exporter and
// its replies back), and the messages crossing them as they happen. A
// message published in an account that no one there subscribes to and no
// import takes stays in its box.
//
// Every number is the server's, from its monitoring in process: the
// accounts with their exports and imports (/accountz), what each
// account's clients published (/accstatz), the clients and their
// subscriptions' counts (/connz), and the subscriptions the server keeps
// for imports (/subsz). The scene needs the lab's embedded server.
//
// Like every scene it imports scenes, scenes/kit and broker/..., never lab.
package accounts

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "accounts",
	Summary: "Each account with its clients and subscriptions, the exports and imports between them, and the messages that cross, from the server",
}

func init() {
	kit.Register(spec, New)
}

// ErrExternal is what the scene says when the lab talks to a deployment
// it does not run.
var ErrExternal = errors.New("the accounts scene reads the monitoring of the lab's own embedded server: start natslab without --server to see it")

// Timings of what moves.
const (
	crossLeg = 700 * time.Millisecond  // a message along an arrow
	stayLeg  = 500 * time.Millisecond  // a message inside its account
	fadeFor  = 1500 * time.Millisecond // a message that reached no one
	flashFor = 1200 * time.Millisecond // a count that changed
	spacing  = 150 * time.Millisecond  // between two messages on one route
)

// Scene is the accounts scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	d       *driver
	snap    Snapshot
	movers  kit.Movers
	flashes kit.Flashes
	prev    map[string]int64     // counts at the last Apply, to flash what changed
	next    map[string]time.Time // when the next message on a route may leave
	lay     layout
	iw      int // the width drawn in: the pane less a blank column at each side
}

// New starts watching the lab's embedded server.
func New(env scenes.Env) (*Scene, error) { return open(env, lookEvery) }

// open is New looking every so often (0: only when kicked).
func open(env scenes.Env, every time.Duration) (*Scene, error) {
	if env.Deployment == nil || !env.Deployment.Own() {
		return nil, ErrExternal
	}
	s := &Scene{prev: map[string]int64{}, next: map[string]time.Time{}}
	s.flashes.Dur = flashFor
	s.movers.Max = 32
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, feed, every), nil })
	if err != nil {
		return nil, err
	}
	s.d = d
	s.snap = d.Snapshot()
	s.remember(time.Time{}, false)
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	if !s.snap.Up {
		return []string{"Accounts · the server is down", "Accounts"}
	}
	accounts := text.Count(len(s.snap.Accounts), "account", "accounts")
	return []string{fmt.Sprintf("Accounts · %s, %s", accounts, text.Count(len(s.snap.Links), "import", "imports")), "Accounts · " + accounts, "Accounts"}
}

// Next implements kit.Picture.
func (s *Scene) Next(now time.Time) time.Duration {
	s.movers.Prune(now)
	return kit.Every(s.movers.Active(now) || s.flashes.Active(now))
}

// Apply implements kit.Picture.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	s.snap = s.d.Snapshot()
	for _, e := range m.Events {
		// Messages on one route leave one after another, not as one glyph.
		route := e.Client + "|" + e.Note
		start := now
		if t := s.next[route]; t.After(start) {
			start = t
		}
		s.next[route] = start.Add(spacing)
		switch {
		case e.Kind == kit.Lost:
			s.movers.Add(kit.Mover{Route: []string{"pub:" + e.Client, "stay:" + e.Client}, Legs: []time.Duration{stayLeg}, Start: start, Role: kit.Msg, Fade: fadeFor})
		case e.Note == "local":
			s.movers.Add(kit.Mover{Route: []string{"pub:" + e.Client, "stay:" + e.Client}, Legs: []time.Duration{stayLeg}, Start: start, Role: kit.Good})
		case e.Note == "cross":
			s.movers.Add(kit.Mover{Route: []string{"from:" + e.Client, "to:" + e.Client}, Legs: []time.Duration{crossLeg}, Start: start, Role: kit.Msg})
		case e.Note == "reply":
			s.movers.Add(kit.Mover{Route: []string{"back:" + e.Client, "home:" + e.Client}, Legs: []time.Duration{crossLeg}, Start: start, Role: kit.Msg})
		}
	}
	s.remember(now, true)
}

// remember keeps the counts on screen, flashing those that changed.
func (s *Scene) remember(now time.Time, flash bool) {
	seen := map[string]int64{}
	for _, a := range s.snap.Accounts {
		seen["acc:"+a.Name] = a.Published
		for _, c := range a.Clients {
			for _, sub := range c.Subs {
				seen[subKey(c, sub)] = sub.Msgs
			}
		}
	}
	for _, l := range s.snap.Links {
		seen["cross:"+l.Key()] = l.Crossed
		seen["reply:"+l.Key()] = l.Replies
	}
	for k, n := range seen {
		if old, ok := s.prev[k]; flash && ok && old != n {
			s.flashes.Trigger(k, now)
		}
	}
	s.prev = seen
}

func subKey(c Client, sub Sub) string {
	return "sub:" + strconv.FormatUint(c.Cid, 10) + "/" + sub.Sid
}

func (s *Scene) role(now time.Time, key string, role kit.Role) kit.Role {
	if s.flashes.On(key, now) {
		return kit.Flash
	}
	return role
}

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	// A blank column at each side, as the other scenes have.
	c := s.BlankInset()
	if c == nil {
		return ""
	}
	s.iw = c.Width()
	if msg := s.empty(); msg != "" {
		if msg != oneAccount || !s.tryLesson(c) {
			s.paragraph(c, msg)
		}
		return s.Inset(c)
	}
	if !s.fits() {
		s.drawCompact(c, now)
		return s.Inset(c)
	}
	s.lay = s.layout()
	s.drawBoxes(c, now)
	s.drawLinks(c, now)
	// Messages travel the wires and blank cells, behind the labels.
	s.movers.Draw(c, now, s.lay.at, func(p kit.Point) bool {
		r := c.At(p.X, p.Y)
		return r != ' ' && r != '─'
	})
	s.drawStory(c, s.lay.boxH)
	return s.Inset(c)
}

// empty is what the scene says instead of a picture, or "".
func (s *Scene) empty() string {
	switch {
	case !s.snap.Up:
		return "The server is down: the accounts come back with it."
	case s.snap.Err != "":
		return "The server's account list failed: " + s.snap.Err
	case len(s.snap.Accounts) == 0,
		len(s.snap.Accounts) == 1 && s.snap.Accounts[0].Name == server.DEFAULT_GLOBAL_ACCOUNT && len(s.snap.Links) == 0:
		return oneAccount
	}
	return ""
}

// oneAccount is what the scene says of a server with the global account
// alone.
const oneAccount = "One account: the server's configuration names none, so every client shares the global account ($G). Lesson accounts runs one with two accounts; config shows the configuration running now."

// tryLesson says oneAccount with the lesson's command on a line of its
// own, where the pane has the rows; it reports whether it did.
func (s *Scene) tryLesson(c *kit.Canvas) bool {
	said := text.Wrap("One account: the server's configuration names none, so every client shares the global account ($G); config shows the configuration running now.", s.iw)
	lead, lesson := "To see accounts apart, what one exports and another imports, and the messages that cross:", "lesson accounts"
	if n := kit.TryRows(s.iw, lead, lesson); n == 0 || len(said)+1+n > s.H {
		return false
	}
	for y, line := range said {
		c.Text(0, y, line, kit.Faint)
	}
	return c.Try(0, len(said)+1, s.iw, s.H-len(said)-1, lead, lesson) > 0
}

// paragraph writes text wrapped to the pane.
func (s *Scene) paragraph(c *kit.Canvas, msg string) {
	for y, line := range text.WrapIn(s.iw, s.H, msg) {
		c.Text(0, y, line, kit.Faint)
	}
}

// The picture's sizes.
const (
	minBox = 20
	minGap = 14
	maxGap = 22
)

// fits reports whether the boxes and arrows fit the pane; otherwise the
// scene is a list.
func (s *Scene) fits() bool {
	n := len(s.snap.Accounts)
	return s.H >= 8 && s.iw >= n*minBox+(n-1)*minGap
}

// layout is where things are at the pane's size.
type layout struct {
	boxW, gapW, boxH int
	x                map[string]int // each account's box, by name
	points           map[string]kit.Point
}

func (l layout) at(name string) (kit.Point, bool) {
	p, ok := l.points[name]
	return p, ok
}

func (s *Scene) layout() layout {
	n := len(s.snap.Accounts)
	l := layout{x: map[string]int{}, points: map[string]kit.Point{}, boxH: s.H - storyRows(s.H)}
	if n > 1 {
		l.gapW = min(maxGap, (s.iw-n*minBox)/(n-1))
	}
	l.boxW = (s.iw - (n-1)*l.gapW) / n
	for i, a := range s.snap.Accounts {
		x := i * (l.boxW + l.gapW)
		l.x[a.Name] = x
		l.points["pub:"+a.Name] = kit.Point{X: x + l.boxW - 3, Y: 1}
		l.points["stay:"+a.Name] = kit.Point{X: x + l.boxW/2, Y: l.boxH - 2}
	}
	return l
}

func (s *Scene) drawBoxes(c *kit.Canvas, now time.Time) {
	l := s.lay
	for _, a := range s.snap.Accounts {
		x := l.x[a.Name]
		c.Box(x, 0, l.boxW, l.boxH, kit.Node)
		c.Text(x+2, 0, kit.Clip(" "+a.Name+" ", l.boxW-4), kit.Strong)
		iw := l.boxW - 4
		ix := x + 2
		end := l.boxH - 2 // a blank row above the bottom border, where messages that stay end
		y := 1
		c.Text(ix, y, "published", kit.Faint)
		c.TextRight(ix+iw, y, strconv.FormatInt(a.Published, 10), s.role(now, "acc:"+a.Name, kit.Strong))
		y++
		lines := s.boxLines(a)
		for i, ln := range lines {
			if y >= end {
				break
			}
			if y == end-1 && i < len(lines)-1 {
				c.Text(ix, y, kit.Clip(fmt.Sprintf("… %d more lines", len(lines)-i), iw), kit.Faint)
				break
			}
			ln.draw(c, ix, y, iw, s, now)
			y++
		}
	}
}

// boxLine is one line inside an account's box.
type boxLine struct {
	left, right string
	extra       string // added to left when it fits whole
	short       string // left in fewer cells, where left does not fit
	role        kit.Role
	indent      int
	flash       string // the count's flash key
}

func (b boxLine) draw(c *kit.Canvas, x, y, w int, s *Scene, now time.Time) {
	rw := text.Width(b.right)
	if b.right != "" {
		c.TextRight(x+w, y, b.right, s.role(now, b.flash, kit.Strong))
		rw++
	}
	room := w - b.indent - rw
	left := text.Fit(room, b.left+b.extra, b.left)
	if left == "" && b.short != "" {
		left = text.Fit(room, b.short)
	}
	if left == "" {
		left = kit.Clip(b.left, room)
	}
	c.Text(x+b.indent, y, left, b.role)
}

func (s *Scene) boxLines(a Account) []boxLine {
	var out []boxLine
	if len(a.Clients) == 0 {
		out = append(out, boxLine{left: "no clients", role: kit.Faint})
	}
	// Clients of one user are told apart by their connections' numbers,
	// the server's own: "● audit" twice would not.
	users := map[string]int{}
	for _, c := range a.Clients {
		users[c.Label()]++
	}
	for _, c := range a.Clients {
		client := boxLine{left: "● " + c.Label(), role: kit.Strong}
		if users[c.Label()] > 1 {
			conn := "conn " + strconv.FormatUint(c.Cid, 10)
			client.left, client.short = "● "+c.Label()+" · "+conn, "● "+conn
		}
		out = append(out, client)
		if len(c.Subs) == 0 {
			out = append(out, boxLine{left: "no subscriptions", short: "no subs", role: kit.Faint, indent: 2})
		}
		for _, sub := range c.Subs {
			// ◂ marks what an import feeds: it came in from another box.
			// In a narrow box the subject keeps its name whole and gives
			// up a blank of its indent.
			line := boxLine{left: "  " + sub.Subject, short: " " + sub.Subject, role: kit.Plain, right: strconv.FormatInt(sub.Msgs, 10), flash: subKey(c, sub)}
			if sub.From != "" {
				line.left, line.short = "◂ "+sub.Subject, "◂"+sub.Subject
			}
			if sub.Queue != "" {
				line.extra = " (queue)"
			}
			out = append(out, line)
		}
	}
	// What it offers that no account takes.
	for _, e := range a.Exports {
		taken := false
		for _, l := range s.snap.Links {
			taken = taken || (l.Exporter == a.Name && l.Kind == e.Kind && l.Subject == e.Subject)
		}
		if !taken {
			out = append(out, boxLine{left: "exports " + e.Kind + " " + e.Subject + ", not imported", short: "exports " + e.Subject, role: kit.Faint})
		}
	}
	return out
}

// drawLinks draws each import between neighbouring boxes as arrows in the
// gap between them; others are listed above the story line.
func (s *Scene) drawLinks(c *kit.Canvas, now time.Time) {
	l := s.lay
	rows := map[int]int{} // the next free row in each gap
	// A blank row between two imports in a gap, where the box is tall
	// enough for every import with one.
	perGap := map[int]int{}
	for _, k := range s.snap.Links {
		perGap[min(l.x[k.Exporter], l.x[k.Importer])]++
	}
	step := 4
	for _, n := range perGap {
		if 4*n-1 > l.boxH-2 {
			step = 3
		}
	}
	var others []Link
	for _, k := range s.snap.Links {
		xe, okE := l.x[k.Exporter]
		xi, okI := l.x[k.Importer]
		left, right := min(xe, xi), max(xe, xi)
		if !okE || !okI || right-left != l.boxW+l.gapW {
			others = append(others, k)
			continue
		}
		x0, x1 := left+l.boxW, right-1 // the gap's cells
		y := 1 + rows[left]
		if y+2 >= l.boxH-1 {
			others = append(others, k)
			continue
		}
		rows[left] += step
		toImporter := xi > xe
		key := k.Key()
		wire := kit.Wire
		if k.Invalid {
			wire = kit.WireOff
		}
		gap := x1 - x0 + 1
		if k.Kind == "stream" {
			// A narrow gap drops the kind (its arrow counts messages),
			// never a subject's letters.
			c.TextCenter(x0, x1+1, y, fit(gap, "stream "+k.Subject, k.Subject), kit.Strong)
			arrow(c, x0, x1, y+1, toImporter, count(k.Crossed, "msg", "msgs"), wire, s.role(now, "cross:"+key, kit.Strong))
			as := fit(gap, "as "+k.Local, k.Local)
			if k.Local == k.Subject {
				as = fit(gap, "on the same subject", "same subject")
			}
			c.TextCenter(x0, x1+1, y+2, as, kit.Faint)
			s.route(key, x0, x1, y+1, toImporter, "from:", "to:")
			continue
		}
		c.TextCenter(x0, x1+1, y, fit(gap, "service "+k.Subject, k.Subject), kit.Strong)
		arrow(c, x0, x1, y+1, !toImporter, count(k.Crossed, "request", "requests"), wire, s.role(now, "cross:"+key, kit.Strong),
			count(k.Crossed, "req", "reqs"))
		back, shorter := "replies", []string(nil)
		if k.Replies >= 0 {
			// "12 back" where "12 replies" is too wide: the list line's
			// word for them ("12 in, 12 back").
			back, shorter = count(k.Replies, "reply", "replies"), []string{fmt.Sprintf("%d back", k.Replies)}
		}
		arrow(c, x0, x1, y+2, toImporter, back, wire, s.role(now, "reply:"+key, kit.Strong), shorter...)
		s.route(key, x0, x1, y+1, !toImporter, "from:", "to:")
		s.route(key, x0, x1, y+2, toImporter, "back:", "home:")
	}
	y := l.boxH - 1 - len(others)
	for _, k := range others {
		c.Text(0, y, fit(s.iw, linkLines(k)...), kit.Plain)
		y++
	}
}

// fit is the fullest of wordings that fits n cells (text.Fit), or the
// last clipped (kit.Clip) where none does.
func fit(n int, wordings ...string) string {
	if w := text.Fit(n, wordings...); w != "" {
		return w
	}
	return kit.Clip(wordings[len(wordings)-1], n)
}

// route names the ends of an arrow for the messages that travel it.
func (s *Scene) route(key string, x0, x1, y int, right bool, from, to string) {
	a, b := kit.Point{X: x0, Y: y}, kit.Point{X: x1, Y: y}
	if !right {
		a, b = b, a
	}
	s.lay.points[from+key] = a
	s.lay.points[to+key] = b
}

// arrow draws ──── label ───▶ across [x0, x1] on row y, pointing right
// or left: the label, or the first of its shorter wordings that fits.
func arrow(c *kit.Canvas, x0, x1, y int, right bool, label string, wire, labelRole kit.Role, shorter ...string) {
	c.HLine(x0, x1+1, y, '─', wire)
	if right {
		c.Set(x1, y, '▶', wire)
	} else {
		c.Set(x0, y, '◀', wire)
	}
	for _, l := range append([]string{label}, shorter...) {
		if l = " " + l + " "; utf8.RuneCountInString(l) <= x1-x0-3 {
			c.TextCenter(x0, x1+1, y, l, labelRole)
			return
		}
	}
}

// count is "3 msgs".
func count(n int64, one, many string) string { return text.Count(n, one, many) }

// linkLines is a link in words, for the list: fullest first, then in
// fewer words for a narrower pane.
func linkLines(l Link) []string {
	if l.Kind == "stream" {
		return []string{
			fmt.Sprintf("%s %s ⇒ %s %s: %s crossed", l.Exporter, l.Subject, l.Importer, l.Local, text.Count(l.Crossed, "message", "messages")),
			fmt.Sprintf("%s %s ⇒ %s %s: %d crossed", l.Exporter, l.Subject, l.Importer, l.Local, l.Crossed),
			fmt.Sprintf("%s ⇒ %s %s: %d crossed", l.Exporter, l.Importer, l.Local, l.Crossed),
		}
	}
	requests := text.Count(l.Crossed, "request", "requests")
	if l.Replies < 0 {
		return []string{
			fmt.Sprintf("%s ⇒ %s service %s: %s, replies shared with its other services", l.Importer, l.Exporter, l.Subject, requests),
			fmt.Sprintf("%s ⇒ %s service %s: %s", l.Importer, l.Exporter, l.Subject, requests),
			fmt.Sprintf("%s ⇒ %s %s: %s", l.Importer, l.Exporter, l.Subject, requests),
		}
	}
	replies := text.Count(l.Replies, "reply", "replies")
	return []string{
		fmt.Sprintf("%s ⇒ %s service %s: %s, %s back", l.Importer, l.Exporter, l.Subject, requests, replies),
		fmt.Sprintf("%s ⇒ %s %s: %s, %s", l.Importer, l.Exporter, l.Subject, requests, replies),
		fmt.Sprintf("%s ⇒ %s %s: %d in, %d back", l.Importer, l.Exporter, l.Subject, l.Crossed, l.Replies),
	}
}

// storyRows is how many rows the story line gets below the boxes.
func storyRows(h int) int {
	if h >= 12 {
		return 2
	}
	return 1
}

// drawStory writes what the latest look saw from row y down, wrapped,
// in fewer words where the full story does not fit.
func (s *Scene) drawStory(c *kit.Canvas, y int) {
	if s.snap.Story == "" {
		c.Text(0, y, fit(s.iw, "Nothing has been published since the scene opened.", "Nothing published yet."), kit.Faint)
		return
	}
	for i, line := range s.story(s.H - y) {
		c.Text(0, y+i, line, kit.Caption)
	}
}

// story is the latest story in at most n lines.
func (s *Scene) story(n int) []string {
	num := "#" + strconv.Itoa(s.snap.Stories) + text.NoBreak
	return text.WrapIn(s.iw, n, num+s.snap.Story, num+s.snap.Brief, s.snap.Brief)
}

// drawCompact is the scene as a list, for panes too small for boxes.
func (s *Scene) drawCompact(c *kit.Canvas, now time.Time) {
	var lines []string
	for _, l := range s.snap.Links {
		lines = append(lines, fit(s.iw, linkLines(l)...))
	}
	for _, a := range s.snap.Accounts {
		lines = append(lines, fmt.Sprintf("%s: %s, %d published", a.Name, text.Count(len(a.Clients), "client", "clients"), a.Published))
	}
	// The story gets a row, and every row the list leaves.
	storyRows := 0
	if s.snap.Story != "" {
		storyRows = max(1, s.H-len(lines))
	}
	room := s.H - storyRows
	for y := 0; y < room && y < len(lines); y++ {
		c.Text(0, y, fit(s.iw, lines[y]), kit.Plain)
	}
	if storyRows > 0 {
		y := min(room, len(lines))
		for i, line := range text.WrapIn(s.iw, storyRows, s.snap.Story, s.snap.Brief) {
			c.Text(0, y+i, line, s.role(now, "story", kit.Caption))
		}
	}
}
