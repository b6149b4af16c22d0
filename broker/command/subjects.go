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
			return usageErrorf("invalid subject %q: %s (tokens are separated by single dots, like orders.us.created)", subject, emptyTokenAt(i, len(tokens)))
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
		case mixesWildcard(tok):
			return usageErrorf("invalid subject %q: token %d (%q) mixes a wildcard with text; * and > must stand alone between dots", subject, n, tok)
		}
	}
	return nil
}

// emptyTokenAt says where the empty token i of n is.
func emptyTokenAt(i, n int) string {
	switch i {
	case 0:
		return "it starts with a dot"
	case n - 1:
		return "it ends with a dot"
	}
	return fmt.Sprintf("token %d is empty", i+1)
}

// mixesWildcard reports whether tok joins * or > to other text, which
// makes it no wildcard.
func mixesWildcard(tok string) bool {
	return tok != "*" && tok != ">" && strings.ContainsAny(tok, "*>")
}

// subjectNote is the lab's explanation of what is odd about a subject (a
// space, an empty token; a wildcard, unless wildcards), or "".
func subjectNote(subject string, wildcards bool) string {
	if err := validateSubject(subject, wildcards); err != nil {
		return err.Error()
	}
	return ""
}

// publishNote is the lab's note on a subject a publish went out on that is
// not what it looks like, or "". The server takes any subject without
// spaces, but * and > in a publish are plain characters, reaching only
// subscriptions that match the subject as written (orders.*.created
// reaches a subscriber on orders.*.created or orders.>, never one on
// orders.us.created); and no subscription can match an empty token, so
// such a message reaches nobody.
func publishNote(subject string) string {
	if subject == "" || strings.IndexFunc(subject, unicode.IsSpace) >= 0 {
		return "" // refused before it was sent: publishError says why
	}
	if q := typographicQuotes(subject); q != "" {
		return fmt.Sprintf("%s: the server took %s as the subject, and a subscriber on %s does not get it", q, subject, strings.Trim(subject, typographic))
	}
	tokens := strings.Split(subject, ".")
	for i, tok := range tokens {
		if tok == "" {
			return fmt.Sprintf("%q has an empty token (%s): the server took it, but no subscription can match an empty token, so it reached nobody; tokens are separated by single dots, like orders.us.created", subject, emptyTokenAt(i, len(tokens)))
		}
	}
	for i, tok := range tokens {
		switch {
		case tok == "*" || tok == ">":
			return fmt.Sprintf("%s in a publish is no wildcard: the server took %q as a literal subject, which only subscriptions matching it as written receive, not one on %s; publish to a concrete subject, replacing token %d", tok, subject, concrete(tokens), i+1)
		case mixesWildcard(tok):
			return fmt.Sprintf("token %d (%q) mixes a wildcard with text, so it is no wildcard: the server took %q as a literal subject; * and > are wildcards only alone between dots, and only in a subscription", i+1, tok, subject)
		}
	}
	return ""
}

// concrete is tokens with each wildcard replaced by a token a learner
// might have meant (x), and > by one token: a subject the wildcard
// subject would match as a pattern.
func concrete(tokens []string) string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		if tok == "*" || tok == ">" {
			tok = "x"
		}
		out[i] = tok
	}
	return strings.Join(out, ".")
}

// typographic are the quote marks a word processor or a web page puts in
// place of " and '; the pane does not take them as quotes.
const typographic = "“”‘’„«»"

// typographicQuotes says so when subject holds typographic quotes, or "".
func typographicQuotes(subject string) string {
	if !strings.ContainsAny(subject, typographic) {
		return ""
	}
	return "“ ” and ‘ ’ are no quotes here, just characters of the subject (quote with \" or ')"
}

// literalNote is the lab's note on a subscription whose subject looks
// like a pattern and is not one, or "": the server subscribes to it as
// written. A wildcard joined to text (orders>) is no wildcard, and
// typographic quotes pasted around a subject become part of it.
func literalNote(subject string) string {
	if q := typographicQuotes(subject); q != "" {
		return fmt.Sprintf("%s: this subscription is on %s, not %s", q, subject, strings.Trim(subject, typographic))
	}
	for i, tok := range strings.Split(subject, ".") {
		if mixesWildcard(tok) {
			return fmt.Sprintf("token %d (%q) mixes a wildcard with text, so it is no wildcard: this subscription receives only the subject %s as written; * and > are wildcards only alone between dots", i+1, tok, subject)
		}
	}
	return ""
}
