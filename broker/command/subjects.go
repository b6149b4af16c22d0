package command

import (
	"fmt"
	"strings"
	"unicode"
)

// validateSubject explains what is wrong with a subject, naming the token.
// Filters (subscriptions, stream subjects) may hold wildcards; publish
// subjects may not.
func validateSubject(subject string, wildcards bool) error {
	if subject == "" {
		return usageErrorf("the subject is empty: subjects look like orders.created or events.>")
	}
	tokens := strings.Split(subject, ".")
	for i, tok := range tokens {
		n := i + 1
		switch {
		case tok == "":
			where := fmt.Sprintf("token %d is empty", n)
			if i == 0 {
				where = "it starts with a dot"
			} else if i == len(tokens)-1 {
				where = "it ends with a dot"
			}
			return usageErrorf("invalid subject %q: %s (tokens are separated by single dots, like orders.us.created)", subject, where)
		case strings.IndexFunc(tok, unicode.IsSpace) >= 0:
			return usageErrorf("invalid subject %q: token %d (%q) contains a space; subjects cannot hold spaces: use dots, like %s", subject, n, tok, strings.Join(strings.Fields(subject), "."))
		case tok == ">":
			if !wildcards {
				return usageErrorf("cannot publish to %q: > is a wildcard for subscribing, not a subject; publish to a concrete subject like %s", subject, strings.Join(append(tokens[:i:i], "x"), "."))
			}
			if i != len(tokens)-1 {
				return usageErrorf("invalid subject %q: > must be the last token (it matches one or more tokens at the end)", subject)
			}
		case tok == "*":
			if !wildcards {
				return usageErrorf("cannot publish to %q: * is a wildcard for subscribing; publish to a concrete subject, replacing token %d", subject, n)
			}
		case strings.ContainsAny(tok, "*>"):
			return usageErrorf("invalid subject %q: token %d (%q) mixes a wildcard with text; * and > must stand alone between dots", subject, n, tok)
		}
	}
	return nil
}

// subjectNote is the lab's explanation of what is odd about a subject (a
// space, an empty token; a wildcard, unless wildcards), or "".
func subjectNote(subject string, wildcards bool) string {
	if err := validateSubject(subject, wildcards); err != nil {
		return err.Error()
	}
	return ""
}
