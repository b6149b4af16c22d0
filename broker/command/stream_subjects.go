package command

import (
	"fmt"
	"sort"

	"github.com/choria-io/fisk"
)

func (s *streamCmd) buildSubjects(cmd *fisk.CmdClause, c *Call) {
	cmd.Action(act(c, s.subjects))
	cmd.Arg("stream", "The stream").StringVar(&s.stream)
	cmd.Arg("filter", "Only subjects matching this filter, like orders.*").Default(">").StringVar(&s.subjectFilter)
	cmd.Flag("json", "Print the counts as JSON").Short('j').UnNegatableBoolVar(&s.json)
	cmd.Flag("sort", "Sort by name or messages").Default("messages").EnumVar(&s.subjectSort, "name", "subjects", "messages", "count")
	cmd.Flag("reverse", "Reverse the order").Short('R').UnNegatableBoolVar(&s.reverse)
	cmd.Flag("names", "Print only the subjects").UnNegatableBoolVar(&s.names)
}

// subjects is natscli's subjectsAction.
func (s *streamCmd) subjects(c *Call) error {
	mgr, _, err := s.askStream(c)
	if err != nil {
		return err
	}
	subs, err := mgr.StreamContainedSubjects(s.stream, s.subjectFilter)
	if err != nil {
		return c.explainAPI(err)
	}
	if s.json {
		return streamJSON(c.Out, subs)
	}
	if len(subs) == 0 {
		fmt.Fprintf(c.Out, "No subjects found matching %s\n", s.subjectFilter)
		return nil
	}
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	// By count (the default) or name; names break ties so the order is the
	// same every time.
	byName := s.subjectSort == "name" || s.subjectSort == "subjects"
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if s.reverse {
			a, b = b, a
		}
		if !byName && subs[a] != subs[b] {
			return subs[a] < subs[b]
		}
		return a < b
	})
	if s.names {
		for _, n := range names {
			fmt.Fprintln(c.Out, n)
		}
		return nil
	}
	fmt.Fprintln(c.Out, streamSubjectsTable(fmt.Sprintf("%d Subjects in stream %s", len(names), s.stream), names, subs))
	return nil
}

// streamSubjectsTable lays subjects out in up to three column pairs, as
// many as fit, filled column by column.
func streamSubjectsTable(title string, names []string, counts map[string]uint64) string {
	longest, most := 0, uint64(0)
	for _, n := range names {
		longest = max(longest, len(n))
		most = max(most, counts[n])
	}
	t := newTable("%s", title)
	cols := 1
	switch width := longest + len(human(most)); {
	case width < 20:
		cols = 3
		t.AddHeaders("Subject", "Count", "Subject", "Count", "Subject", "Count")
	case width < 30:
		cols = 2
		t.AddHeaders("Subject", "Count", "Subject", "Count")
	default:
		t.AddHeaders("Subject", "Count")
	}
	padded := append([]string(nil), names...)
	for len(padded)%cols != 0 {
		padded = append(padded, "")
	}
	rows := len(padded) / cols
	for r := 0; r < rows; r++ {
		row := make([]any, 0, 2*cols)
		for k := 0; k < cols; k++ {
			n := padded[r+k*rows]
			count := ""
			if counts[n] > 0 {
				count = human(counts[n])
			}
			row = append(row, n, count)
		}
		t.AddRow(row...)
	}
	return t.Render()
}
