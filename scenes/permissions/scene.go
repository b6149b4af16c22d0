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
	c := s.Blank()
	if c == nil {
		return ""
	}
	if s.H < 4 {
		c.Text(0, 0, s.summary(), kit.Plain)
		if s.H > 1 {
			if r, ok := s.latest(); ok {
				c.Text(0, 1, "✗ "+describe(r), s.role(now, "latest"))
			}
		}
		return c.Render(s.Styles)
	}
	y := s.drawUsers(c, now)
	s.drawRefusals(c, now, y+1)
	return c.Render(s.Styles)
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
	nameW = min(nameW, max(8, s.W/4))
	colW := len("MAY PUBLISH") + 2
	for _, u := range s.snap.Users {
		colW = max(colW, utf8.RuneCountInString(permText(u.PubAllow, u.PubDeny))+2)
	}
	colW = min(colW, max((s.W-nameW-1)/2, 4))
	pubX, subX := nameW+1, nameW+1+colW
	c.Text(0, 0, "USER", kit.Title)
	c.Text(pubX, 0, "MAY PUBLISH", kit.Title)
	c.Text(subX, 0, "MAY SUBSCRIBE", kit.Title)
	room := s.H - 1 - min(3, s.H/3) // leave rows for the refusals
	y := 1
	for i, u := range s.snap.Users {
		if y >= 1+room {
			break
		}
		if y == room && i < len(s.snap.Users)-1 {
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
		drawPerm(c, pubX, y, colW-1, u.PubAllow, u.PubDeny)
		drawPerm(c, subX, y, s.W-subX, u.SubAllow, u.SubDeny)
		y++
	}
	if s.snap.Anonymous && s.snap.Configured {
		c.Text(0, y, "  clients without a user are let in too", kit.Faint)
		y++
	}
	return y
}

func label(u User) string {
	if u.Account != "" {
		return u.Name + " (" + u.Account + ")"
	}
	return u.Name
}

// permText is a permission as drawPerm writes it.
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

// drawPerm writes one permission: what it allows (Good), then what it
// denies (Bad, "not …"), in at most w cells.
func drawPerm(c *kit.Canvas, x, y, w int, allow, deny []string) {
	if w <= 0 {
		return
	}
	end := x + w
	put := func(s string, role kit.Role) {
		if x >= end {
			return
		}
		x = c.Text(x, y, kit.Clip(s, end-x), role)
	}
	switch {
	case len(allow) == 0 && slices.Contains(deny, ">"):
		put("nothing", kit.Bad)
		return
	case len(allow) == 0:
		put("anything", kit.Good)
	default:
		put(strings.Join(allow, " "), kit.Good)
	}
	for _, d := range deny {
		put(" not "+d, kit.Bad)
	}
}

// drawRefusals lists the refusals from row y down, newest first.
func (s *Scene) drawRefusals(c *kit.Canvas, now time.Time, y int) {
	if y >= s.H {
		return
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
		c.Text(0, y, kit.Clip(fmt.Sprintf("✗ #%d %s", r.N, describe(r)), s.W), role)
		y++
	}
}

// describe says what the server refused, in a line.
func describe(r Refused) string {
	switch r.What {
	case "login":
		if r.User == "" {
			return "a login without a user"
		}
		return "a login as " + r.User
	case "publish":
		return r.User + " publishing to " + r.Subject
	default:
		return r.User + " subscribing to " + r.Subject
	}
}
