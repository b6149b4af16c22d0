package episode

import (
	"fmt"
	"io"
	"strings"
)

// ListOptions say what the lab can run, for the statuses in the list.
type ListOptions struct {
	// Cluster is how many nodes the lab runs now (0 or 1: a single server).
	Cluster int
	// Current marks the lesson open now.
	Current string
	// InLab: the list is shown inside the lab, where the lesson and next
	// verbs open lessons (natslab itself is no command there).
	InLab bool
}

// StatusText is the status as the lessons list shows it.
func StatusText(st Status, e *Episode, p *Progress, o ListOptions) string {
	switch st {
	case Done:
		// Started over after finishing: the mark stays, beside the new round.
		if p != nil {
			if n := p.Get(e.ID).StepsDone; n < len(e.Steps) {
				return fmt.Sprintf("done, again %d/%d", n, len(e.Steps))
			}
		}
		return "done"
	case InProgress:
		if p != nil {
			if n := p.Get(e.ID).StepsDone; n > 0 {
				return fmt.Sprintf("in progress %d/%d", min(n, len(e.Steps)), len(e.Steps))
			}
		}
		return "in progress"
	case Unavailable:
		if e.Needs.Single {
			return "not with --cluster"
		}
		return fmt.Sprintf("needs --cluster %d", e.Needs.Cluster)
	}
	return "new"
}

// WriteList prints every episode with its status, grouped by part, in
// at most 80 columns: what `natslab lessons` and the `lessons` verb show.
func WriteList(w io.Writer, c *Catalog, p *Progress, o ListOptions) {
	// The status column is as wide as its widest entry, so the titles
	// line up whatever the statuses are.
	states := make([]Status, len(c.Episodes))
	statuses := make([]string, len(c.Episodes))
	width := len("in progress")
	for i, e := range c.Episodes {
		states[i] = p.StatusOf(e, o.Cluster)
		statuses[i] = StatusText(states[i], e, p, o)
		width = max(width, len([]rune(statuses[i])))
	}
	part := ""
	done := 0
	for i, e := range c.Episodes {
		if e.Part != part {
			if part != "" {
				fmt.Fprintln(w)
			}
			part = e.Part
			fmt.Fprintln(w, part)
		}
		if states[i] == Done {
			done++
		}
		mark := "  "
		if e.ID == o.Current {
			mark = "▸ "
		}
		line := fmt.Sprintf("%s%2d  %-17s %-*s  %s", mark, e.Number, e.ID, width, statuses[i], e.Title)
		if len([]rune(line)) > 80 {
			line = fmt.Sprintf("%s%2d  %-17s %s", mark, e.Number, e.ID, statuses[i])
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	open := "natslab --lesson ID or number (in the lab: lesson ID)"
	if o.InLab {
		open = "lesson ID or number, or type next"
	}
	fmt.Fprintf(w, "\n%d of %d done. Open one: %s.\n", done, len(c.Episodes), open)
}
