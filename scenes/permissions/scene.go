// Package permissions is the security scene: the users of the
// configuration the lab's server runs with, where each may publish and
// subscribe, and each refusal as the server makes it: a publish or a
// subscription outside a user's permissions, a login it turns away.
//
// The users come from the configuration the server runs with, read with
// nats-server's own parser; the refusals from the server's own log, where
// nats-server records each. The scene needs the lab's embedded server.
//
// Like every scene it imports scenes, scenes/kit and broker/..., never lab.
package permissions

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

var spec = kit.Spec{
	Name:    "permissions",
	Summary: "Who may publish and subscribe where, from the server's configuration, and each refusal as the server makes it",
	Keys: []scenes.KeyBinding{
		kit.Key("c", "clear", "clear"),
	},
}

func init() {
	kit.Register(spec, New)
}

// ErrExternal is what the scene says when the lab talks to a deployment
// it does not run.
var ErrExternal = errors.New("the permissions scene reads the configuration and the log of the lab's own embedded server: start natslab without --server to see it")

// flashFor is how long a refusal stays highlighted.
const flashFor = 1500 * time.Millisecond

// Scene is the permissions scene's picture.
type Scene struct {
	kit.Scene[Snapshot]
	d       *driver
	snap    Snapshot
	flashes kit.Flashes
	iw      int // the width drawn in: the pane less a blank column at each side
}

// New starts watching the lab's embedded server.
func New(env scenes.Env) (*Scene, error) {
	if env.Deployment == nil || !env.Deployment.Own() || env.Deployment.Log() == nil {
		return nil, ErrExternal
	}
	s := &Scene{}
	s.flashes.Dur = flashFor
	d, err := kit.Open(&s.Scene, s, env, spec, func(feed *kit.Feed) (*driver, error) { return startDriver(env.Deployment, feed) })
	if err != nil {
		return nil, err
	}
	s.d = d
	s.snap = d.Snapshot()
	return s, nil
}

// Titles implements kit.Picture.
func (s *Scene) Titles() []string {
	refusals := text.Count(s.snap.Total, "refusal", "refusals")
	return []string{fmt.Sprintf("Permissions · %s, %s", text.Count(len(s.snap.Users), "user", "users"), refusals), "Permissions · " + refusals, "Permissions"}
}

// Next implements kit.Picture: frames while a refusal is highlighted.
func (s *Scene) Next(now time.Time) time.Duration { return kit.Every(s.flashes.Active(now)) }

// Apply implements kit.Picture.
func (s *Scene) Apply(m kit.FeedMsg, now time.Time) {
	s.snap = s.d.Snapshot()
	for _, e := range m.Events {
		switch e.Kind {
		case kit.Lost:
			s.flashes.Trigger("user:"+e.Client, now)
			s.flashes.Trigger("latest", now)
		case kit.Changed:
			if e.Note == "reset" {
				s.flashes.Clear()
			}
		}
	}
}

// Draw implements kit.Picture.
func (s *Scene) Draw(now time.Time) string {
	// A blank column at each side, as the other scenes have.
	c := s.BlankInset()
	if c == nil {
		return ""
	}
	s.iw = c.Width()
	if s.H < 4 {
		c.Text(0, 0, s.summary(), kit.Plain)
		if s.H > 1 {
			if r, ok := s.latest(); ok {
				c.Text(0, 1, refusal(s.iw, "✗ ", r), s.role(now, "latest"))
			}
		}
		return s.Inset(c)
	}
	y := s.drawUsers(c, now)
	if y+3 <= s.H { // a blank row, when the heading and a refusal still fit below it
		y++
	}
	y = s.drawRefusals(c, now, y)
	if len(s.snap.Users) == 0 && s.snap.Total == 0 && s.snap.Err == "" {
		// Nothing the sandbox's learner types is refused by a server
		// with no users: the lesson runs one with some.
		// The fullest lead that leaves the lesson's name room below it.
		for _, lead := range []string{
			"Users come from the server's configuration; config shows it. To see users, each allowed only what its job needs, and each refusal as the server makes it:",
			"Users come from the server's configuration (config shows it). For users and their refusals:",
			"For users and their refusals:",
		} {
			if c.Try(0, y+1, s.iw, s.H-(y+1), lead, "lesson permissions") > 0 {
				break
			}
		}
	}
	return s.Inset(c)
}

func (s *Scene) role(now time.Time, key string) kit.Role {
	if s.flashes.On(key, now) {
		return kit.Flash
	}
	return kit.Bad
}

func (s *Scene) latest() (Refused, bool) {
	if len(s.snap.Refusals) == 0 {
		return Refused{}, false
	}
	return s.snap.Refusals[len(s.snap.Refusals)-1], true
}

func (s *Scene) summary() string {
	return fmt.Sprintf("%s · %s", text.Count(len(s.snap.Users), "user", "users"), text.Count(s.snap.Total, "refusal", "refusals"))
}

// drawUsers draws the table of users from the top; it returns the first
// row below it.
func (s *Scene) drawUsers(c *kit.Canvas, now time.Time) int {
	// A sentence wraps at words onto the rows it needs.
	lines := func(what string, role kit.Role) int {
		wrapped := text.Wrap(what, c.Width())
		for i, l := range wrapped {
			c.Text(0, i, l, role)
		}
		return max(len(wrapped), 1)
	}
	if s.snap.Err != "" {
		return lines(s.snap.Err, kit.Bad)
	}
	if len(s.snap.Users) == 0 {
		what := "No users: any client may publish and subscribe anywhere."
		if s.snap.Configured {
			what = "The configuration names no users: any client may publish and subscribe anywhere."
		}
		return lines(what, kit.Faint)
	}
	nameW := len("USER")
	for _, u := range s.snap.Users {
		nameW = max(nameW, utf8.RuneCountInString(label(u))+3) // the ✗ mark, and a gap
	}
	nameW = min(nameW, max(8, s.iw/4))
	// The headers are shortened before a permission has to break onto a
	// second row.
	pubHead, subHead := "MAY PUBLISH", "MAY SUBSCRIBE"
	colW := s.pubColumn(pubHead)
	if !s.oneRowEach(nameW + 1 + colW) {
		pubHead, subHead = "PUBLISH", "SUBSCRIBE"
		colW = s.pubColumn(pubHead)
	}
	colW = min(colW, max((s.iw-nameW-1)/2, 4))
	pubX, subX := nameW+1, nameW+1+colW
	c.Text(0, 0, "USER", kit.Title)
	c.Text(pubX, 0, pubHead, kit.Title)
	c.Text(subX, 0, subHead, kit.Title)
	room := s.H - 1 - min(3, s.H/3) // leave rows for the refusals
	y := 1
	for i, u := range s.snap.Users {
		pub := permLines(colW-1, u.PubAllow, u.PubDeny)
		sub := permLines(s.iw-subX, u.SubAllow, u.SubDeny)
		rows := max(len(pub), len(sub))
		last := i == len(s.snap.Users)-1
		if y+rows > 1+room || (!last && y+rows == 1+room) {
			c.Text(0, y, fmt.Sprintf("… and %d more", len(s.snap.Users)-i), kit.Faint)
			y++
			break
		}
		role := kit.Strong
		name := label(u)
		if u.Refused > 0 {
			name = "✗ " + name
			role = s.role(now, "user:"+u.Name)
		} else {
			name = "  " + name
		}
		c.Text(0, y, kit.Clip(name, nameW), role)
		drawPerm(c, pubX, y, pub)
		drawPerm(c, subX, y, sub)
		y += rows
	}
	if s.snap.Anonymous && s.snap.Configured {
		c.Text(0, y, "  clients without a user are let in too", kit.Faint)
		y++
	}
	return y
}

// pubColumn is the publish column's width under head: its widest
// permission, and a gap.
func (s *Scene) pubColumn(head string) int {
	w := len(head) + 2
	for _, u := range s.snap.Users {
		w = max(w, text.Width(permText(u.PubAllow, u.PubDeny))+2)
	}
	return w
}

// oneRowEach says whether every user's subscribe permission fits on its
// row from x.
func (s *Scene) oneRowEach(x int) bool {
	for _, u := range s.snap.Users {
		if text.Width(permText(u.SubAllow, u.SubDeny)) > s.iw-x {
			return false
		}
	}
	return true
}

func label(u User) string {
	if u.Account != "" {
		return u.Name + " (" + u.Account + ")"
	}
	return u.Name
}

// permText is a permission on one row, as drawPerm draws it where it fits.
func permText(allow, deny []string) string {
	if len(allow) == 0 && slices.Contains(deny, ">") {
		return "nothing"
	}
	t := "anything"
	if len(allow) > 0 {
		t = strings.Join(allow, " ")
	}
	for _, d := range deny {
		t += " not " + d
	}
	return t
}

// piece is a subject of a permission, with how it is drawn: what it
// allows (Good), what it denies (Bad, "not …").
type piece struct {
	text string
	role kit.Role
}

// permLines lays one permission out in rows of at most w cells, breaking
// between subjects, never inside one: a deny cut short ("not …") would
// hide the very subject it keeps a user from.
func permLines(w int, allow, deny []string) [][]piece {
	if len(allow) == 0 && slices.Contains(deny, ">") {
		return [][]piece{{{"nothing", kit.Bad}}}
	}
	var pieces []piece
	if len(allow) == 0 {
		pieces = append(pieces, piece{"anything", kit.Good})
	}
	for _, a := range allow {
		pieces = append(pieces, piece{a, kit.Good})
	}
	for _, d := range deny {
		pieces = append(pieces, piece{"not " + d, kit.Bad})
	}
	var rows [][]piece
	var row []piece
	used := 0
	for _, p := range pieces {
		if text.Width(p.text) > w {
			p.text = kit.Clip(p.text, w) // a subject wider than the column on its own
		}
		n := text.Width(p.text)
		if len(row) > 0 && used+1+n > w {
			rows = append(rows, row)
			row, used = nil, 0
		}
		if len(row) > 0 {
			used++
		}
		row = append(row, p)
		used += n
	}
	return append(rows, row)
}

// drawPerm draws a permission's rows (permLines) from x, y down.
func drawPerm(c *kit.Canvas, x, y int, rows [][]piece) {
	for i, row := range rows {
		at := x
		for j, p := range row {
			if j > 0 {
				at++
			}
			at = c.Text(at, y+i, p.text, p.role)
		}
	}
}

// drawRefusals lists the refusals from row y down, newest first; it
// returns the first row below them.
func (s *Scene) drawRefusals(c *kit.Canvas, now time.Time, y int) int {
	if y >= s.H {
		return y
	}
	head := "REFUSED: nothing yet"
	if s.snap.Total > 0 {
		head = "REFUSED: " + text.Count(s.snap.Total, "time", "times") + ", newest first"
	}
	c.Text(0, y, head, kit.Title)
	y++
	for i := len(s.snap.Refusals) - 1; i >= 0 && y < s.H; i-- {
		r := s.snap.Refusals[i]
		role := kit.Bad
		if i == len(s.snap.Refusals)-1 {
			role = s.role(now, "latest")
		}
		c.Text(0, y, refusal(s.iw, fmt.Sprintf("✗ #%d ", r.N), r), role)
		y++
	}
	return y
}

// refusal is mark and what the server refused, in at most w cells: in
// words, or as the nats command's verb where the words do not fit, so the
// subject stays whole.
func refusal(w int, mark string, r Refused) string {
	var long, short string
	switch r.What {
	case "login":
		long, short = "a login as "+r.User, "login as "+r.User
		if r.User == "" {
			long, short = "a login without a user", "login, no user"
		}
	case "publish":
		long, short = r.User+" publishing to "+r.Subject, r.User+": pub "+r.Subject
	default:
		long, short = r.User+" subscribing to "+r.Subject, r.User+": sub "+r.Subject
	}
	if line := text.Fit(w, mark+long, mark+short); line != "" {
		return line
	}
	return kit.Clip(mark+short, w)
}
