package broker

import (
	"strings"

	"natslab/broker/text"
)

// Refusal is one thing the server refused and logged: a login, or a
// publish or subscription outside a user's permissions.
type Refusal struct {
	What    string // "login", "publish" or "subscribe"
	User    string // the user refused ("" for a login that named none)
	Subject string // publish, subscribe: the subject refused
}

// The server's own words for what it refuses, in its log (nats-server
// 2.15): "authentication error - User "bob"", and for a client that got
// in, "- "$G/user:alice" - Publish Violation - Subject "billing.x"".
var (
	loginRefused = text.Pattern(`authentication error(?: - User "([^"]*)")?`)
	permRefused  = text.Pattern(`"[^"/]*/user:([^"]*)" - (Publish|Subscription) Violation - Subject "([^"]*)"`)
)

// ParseRefusal reads a refusal in one of the server's log lines (as a
// LogBuffer keeps them); false for any other line.
func ParseRefusal(line string) (Refusal, bool) {
	if !strings.Contains(line, "[ERR]") {
		return Refusal{}, false
	}
	if m := permRefused().FindStringSubmatch(line); m != nil {
		what := "publish"
		if m[2] == "Subscription" {
			what = "subscribe"
		}
		return Refusal{What: what, User: m[1], Subject: m[3]}, true
	}
	if m := loginRefused().FindStringSubmatch(line); m != nil {
		return Refusal{What: "login", User: m[1]}, true
	}
	return Refusal{}, false
}
