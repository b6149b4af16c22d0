package episode

import (
	"fmt"
	"regexp"
	"strings"

	"natslab/broker/text"
)

// The server's own words for what it refuses, in its log (nats-server
// 2.15): "authentication error - User "bob"", and for a client that got
// in, "- "$G/user:alice" - Publish Violation - Subject "billing.x"".
var (
	loginRefused = regexp.MustCompile(`authentication error(?: - User "([^"]*)")?`)
	permRefused  = regexp.MustCompile(`"[^"/]*/user:([^"]*)" - (Publish|Subscription) Violation - Subject "([^"]*)"`)
)

// refusal is one refusal the server logged.
type refusal struct {
	what, user, subject string
}

// refusals reads the refusals in the server's log lines.
func refusals(lines []string) []refusal {
	var out []refusal
	for _, l := range lines {
		if !strings.Contains(l, "[ERR]") {
			continue
		}
		if m := permRefused.FindStringSubmatch(l); m != nil {
			what := "publish"
			if m[2] == "Subscription" {
				what = "subscribe"
			}
			out = append(out, refusal{what: what, user: m[1], subject: m[3]})
			continue
		}
		if m := loginRefused.FindStringSubmatch(l); m != nil {
			out = append(out, refusal{what: "login", user: m[1]})
		}
	}
	return out
}

func (s *snapshot) checkRefused(c *RefusedCheck) (bool, string) {
	lines, _ := s.l.env.Deployment.Log().Since(s.l.logStart)
	var n int64
	for _, r := range refusals(lines) {
		if r.what == c.What && (c.User == "" || r.user == c.User) && (c.Subject == "" || r.subject == c.Subject) {
			n++
		}
	}
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	who := "any user"
	if c.User != "" {
		who = c.User
	}
	var what string
	switch c.What {
	case "login":
		what = "refused a login by " + who
	case "publish":
		what = "refused " + who + " a publish"
	default:
		what = "refused " + who + " a subscription"
	}
	if c.Subject != "" {
		what += " to " + c.Subject
	}
	return false, fmt.Sprintf("the server %s %s, wants %s", what, text.Count(n, "time", "times"), want.Want())
}
