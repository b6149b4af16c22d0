package core

import "strings"

// row is one subscription on screen, fanned out from the server.
type row struct {
	sub    Sub
	tokens []string // its subject's tokens (the wildcards scene lines them up)
	pos    groupPos // where it sits in its queue group (the queue-groups scene)
}

// groupPos is a row's place in its queue group, for the bracket drawn
// beside the members.
type groupPos uint8

const (
	noGroup     groupPos = iota // a plain subscription: it gets every message
	groupAlone                  // the only member of its group
	groupFirst                  // the first of several members
	groupMiddle                 // neither first nor last
	groupLast                   // the last member
)

// buildRows lays the subscriptions out: as the server listed them (oldest
// connection first), or, for the queue-groups scene, group by group in the
// order the groups appeared, the plain subscriptions as their own.
func buildRows(kind Kind, subs []Sub) []row {
	rows := make([]row, 0, len(subs))
	if kind != Queues {
		for _, s := range subs {
			rows = append(rows, row{sub: s, tokens: strings.Split(s.Subject, ".")})
		}
		return rows
	}
	var order []string
	groups := map[string][]Sub{}
	for _, s := range subs {
		g := consumerOf(s)
		if _, seen := groups[g]; !seen {
			order = append(order, g)
		}
		groups[g] = append(groups[g], s)
	}
	for _, g := range order {
		members := groups[g]
		for i, s := range members {
			pos := noGroup
			switch {
			case s.Queue == "":
			case len(members) == 1:
				pos = groupAlone
			case i == 0:
				pos = groupFirst
			case i == len(members)-1:
				pos = groupLast
			default:
				pos = groupMiddle
			}
			rows = append(rows, row{sub: s, tokens: strings.Split(s.Subject, "."), pos: pos})
		}
	}
	return rows
}

// groupSizes counts the members of each queue group on screen.
func groupSizes(rows []row) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		if r.sub.Queue != "" {
			n[consumerOf(r.sub)]++
		}
	}
	return n
}
