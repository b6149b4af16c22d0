package episode

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/text"
)

// refusals reads the refusals in the server's log lines.
func refusals(lines []string) []broker.Refusal {
	var out []broker.Refusal
	for _, l := range lines {
		if r, ok := broker.ParseRefusal(l); ok {
			out = append(out, r)
		}
	}
	return out
}

func (s *snapshot) checkRefused(c *RefusedCheck) (bool, string) {
	lines, _ := s.l.env.Deployment.Log().Since(s.l.logStart)
	var n int64
	for _, r := range refusals(lines) {
		if r.What == c.What && (c.User == "" || r.User == c.User) && (c.Subject == "" || r.Subject == c.Subject) {
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
	if n == 0 {
		return false, fmt.Sprintf("the server has not %s yet", what)
	}
	return false, fmt.Sprintf("the server %s %s, wants %s", what, text.Count(n, "time", "times"), want.Want())
}

// refusedWhy explains a check that found nothing with the newest refusal
// that bears on it since the lesson started: a refused login, a refused
// request of the check's own kind (what: a publish or a subscription, to
// any subject, so a misspelt one shows), or a refused publish that
// subject would have heard. The newest, because that is the learner's
// latest try: logins refused steps ago say nothing about a publish
// refused now. "" when the server refused nothing that bears on it.
func (s *snapshot) refusedWhy(what, subject string) string {
	lines, _ := s.l.env.Deployment.Log().Since(s.l.logStart)
	rs := refusals(lines)
	logins := 0
	for _, r := range rs {
		if r.What == "login" {
			logins++
		}
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		heard := r.What == "publish" && subject != "" && server.SubjectMatchesFilter(r.Subject, subject)
		switch {
		case r.What == "login" && r.User != "":
			return fmt.Sprintf("; the server refused a login as %s: a user it does not know, or the wrong password (config shows the users and their passwords)", r.User)
		case r.What == "login":
			return fmt.Sprintf("; the server refused %s: a client needs a user it knows (--user and --password)", text.Count(logins, "login", "logins"))
		case r.What == what || heard:
			verb := "a publish to"
			if r.What == "subscribe" {
				verb = "a subscription to"
			}
			return fmt.Sprintf("; the server refused %s %s %s: a permissions violation (config shows each user's permissions)", r.User, verb, r.Subject)
		}
	}
	return ""
}

func (s *snapshot) checkMapping(c *MappingCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	all, err := s.ns.Mappings()
	if err != nil {
		return false, fmt.Sprintf("the server does not say its mappings: %v", err)
	}
	dests, ok := all[c.Source]
	if !ok {
		var srcs []string
		for src := range all {
			srcs = append(srcs, src)
		}
		sort.Strings(srcs)
		return false, fmt.Sprintf("the server maps no subject %s (it maps %s; config shows the file, config add adds to it)", c.Source, listOr(srcs, "none"))
	}
	if !c.Destinations.Holds(int64(len(dests))) {
		return false, fmt.Sprintf("the server maps %s to %s, wants %s", c.Source, text.Count(len(dests), "destination", "destinations"), c.Destinations.Want())
	}
	if c.Destination == "" {
		return true, ""
	}
	var have []string
	for _, d := range dests {
		if d.Subject == c.Destination {
			if !c.Weight.Holds(int64(d.Weight)) {
				return false, fmt.Sprintf("the server sends %d%% of %s to %s, wants %s", d.Weight, c.Source, d.Subject, c.Weight.Want())
			}
			return true, ""
		}
		have = append(have, d.Subject)
	}
	return false, fmt.Sprintf("the server maps %s to %s, not %s", c.Source, strings.Join(have, " and "), c.Destination)
}

func (s *snapshot) checkAccount(c *AccountCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	st, ok, err := s.ns.Account(c.Name)
	if err != nil {
		return false, fmt.Sprintf("the server does not say how account %s is: %v", c.Name, err)
	}
	if !ok {
		return false, fmt.Sprintf("the server has no account %s (config shows the accounts it has)", c.Name)
	}
	if !c.Published.Holds(st.Published) {
		return false, fmt.Sprintf("clients of account %s published %s, wants %s", c.Name, text.Count(st.Published, "message", "messages"), c.Published.Want())
	}
	return true, ""
}

func (s *snapshot) checkImport(c *ImportCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	az, err := s.ns.Accountz(&server.AccountzOptions{Account: c.Account})
	if err != nil || az.Account == nil {
		return false, fmt.Sprintf("the server has no account %s (config shows the accounts it has)", c.Account)
	}
	var im *server.ExtImport
	var have []string
	for i := range az.Account.Imports {
		x := &az.Account.Imports[i]
		if x.Account == az.SystemAccount || x.Account == "" {
			continue // the server's own ($SYS requests every account gets)
		}
		if string(x.Subject) == c.Subject {
			im = x
		}
		have = append(have, string(x.Subject))
	}
	if im == nil {
		sort.Strings(have)
		return false, fmt.Sprintf("account %s imports nothing on %s (its imports: %s; config shows them)", c.Account, c.Subject, listOr(have, "none"))
	}
	clients := s.clientConns(false)
	subs := s.accountSubs()
	var crossed, replies int64
	service := im.Type.String() == "service"
	if service {
		// The server subscribes to the import's subject in the importer
		// with a client of its own: what that subscription got crossed.
		for _, sd := range subs.Own[c.Account] {
			if _, client := clients[sd.Cid]; !client && sd.Subject == string(im.LocalSubject) {
				crossed += sd.Msgs
			}
		}
		// Replies come back through the exporter's response subscription.
		for _, sd := range subs.Own[im.Account] {
			if _, client := clients[sd.Cid]; !client && strings.HasPrefix(sd.Subject, "_R_.") {
				replies += sd.Msgs
			}
		}
	} else {
		// What a stream import delivered is counted on its shadows.
		for _, sh := range subs.Of(c.Account, im.Account, c.Subject) {
			crossed += sh.Msgs
		}
	}
	what := "messages"
	if service {
		what = "requests"
	}
	want := c.Messages.Or(">=1")
	if !want.Holds(crossed) {
		return false, fmt.Sprintf("%d %s crossed account %s's import of %s from account %s, wants %s", crossed, what, c.Account, c.Subject, im.Account, want.Want())
	}
	if c.Replies.Set() && !c.Replies.Holds(replies) {
		why := fmt.Sprintf("%s from account %s crossed into account %s on %s, and %s came back, wants %s", text.Count(crossed, "request", "requests"), c.Account, im.Account, c.Subject, text.Count(replies, "reply", "replies"), c.Replies.Want())
		if replies == 0 {
			why += fmt.Sprintf(": nothing of account %s answered them", im.Account)
		}
		return false, why
	}
	return true, ""
}
