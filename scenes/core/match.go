package core

import "strings"

// How a subscription's filter meets a subject, token by token, the way the
// server decides it: a literal token must be equal, * takes exactly one
// token, > takes one or more and ends the filter, and both must run out
// together. The scene shows each step; the verdict is the server's
// (server.SubjectMatchesFilter agrees, see the tests).

// mark is one filter token's fate.
type mark uint8

const (
	unseen mark = iota // not reached: an earlier token failed
	good               // matched its subject token (or, for >, the rest)
	bad                // where the match failed
)

// matching is a filter against a subject.
type matching struct {
	marks []mark // one per filter token
	ok    bool
	// fail is the column where the match failed: a filter token's index,
	// or len(filter) when the subject has tokens left that nothing takes.
	fail int
	why  string // a few words, for a failure
	rest int    // for a filter ending in >: the first subject token > took
}

// match lines filter up against subject.
func match(filter, subject []string) matching {
	m := matching{marks: make([]mark, len(filter)), fail: -1, rest: -1}
	for i, f := range filter {
		if f == ">" {
			if i < len(subject) {
				m.marks[i], m.ok, m.rest = good, true, i
				return m
			}
			m.marks[i], m.fail, m.why = bad, i, "> needs a token"
			return m
		}
		if i >= len(subject) {
			m.marks[i], m.fail, m.why = bad, i, "ends before "+f
			return m
		}
		if f != "*" && f != subject[i] {
			m.marks[i], m.fail, m.why = bad, i, f+" ≠ "+subject[i]
			return m
		}
		m.marks[i] = good
	}
	if len(subject) > len(filter) {
		m.fail = len(filter)
		m.why = "nothing takes " + strings.Join(subject[len(filter):], ".")
		return m
	}
	m.ok = true
	return m
}
