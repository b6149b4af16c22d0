package command

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/choria-io/fisk"

	"github.com/nats-io/jsm.go"
)

func (s *streamCmd) buildLs(ls *fisk.CmdClause, c *Call) {
	ls.Action(act(c, s.ls))
	ls.Flag("subject", "Only streams that capture this subject").StringVar(&s.filterSubject)
	ls.Flag("names", "Print only the names").Short('n').UnNegatableBoolVar(&s.names)
	ls.Flag("json", "Print the names as JSON").Short('j').UnNegatableBoolVar(&s.json)
}

// ls is natscli's lsAction.
func (s *streamCmd) ls(c *Call) error {
	mgr, err := c.manager()
	if err != nil {
		return fatalIf(err, "setup failed")
	}
	var filter *jsm.StreamNamesFilter
	if s.filterSubject != "" {
		filter = &jsm.StreamNamesFilter{Subject: s.filterSubject}
	}
	if s.names {
		names, err := mgr.StreamNames(filter)
		if err != nil {
			return c.explainAPI(err)
		}
		if s.json {
			return streamJSON(c.Out, names)
		}
		for _, n := range names {
			fmt.Fprintln(c.Out, n)
		}
		return nil
	}
	var streams []*jsm.Stream
	var names []string
	skipped := false
	missing, offline, err := mgr.EachStream(filter, func(st *jsm.Stream) {
		if !s.showAll && st.IsInternal() {
			skipped = true
			return
		}
		streams = append(streams, st)
		names = append(names, st.Name())
	})
	if err != nil {
		return c.explainAPI(fmt.Errorf("could not list streams: %s", err))
	}
	if s.json {
		return streamJSON(c.Out, names)
	}
	if len(streams) == 0 && len(missing) == 0 && len(offline) == 0 {
		if skipped {
			fmt.Fprintln(c.Out, "No Streams defined, pass -a to include system streams")
		} else {
			fmt.Fprintln(c.Out, "No Streams defined")
		}
		return nil
	}
	// Smallest first, as the real CLI sorts; names break ties so that the
	// order never changes between two runs.
	sort.SliceStable(streams, func(i, j int) bool {
		a, _ := streams[i].LatestInformation()
		b, _ := streams[j].LatestInformation()
		return a.State.Bytes < b.State.Bytes
	})
	var t *tableWriter
	if s.filterSubject == "" {
		t = newTable("Streams")
	} else {
		t = newTable("Streams matching %s", s.filterSubject)
	}
	t.AddHeaders("Name", "Description", "Created", "Messages", "Size", "Last Message")
	for _, st := range streams {
		nfo, _ := st.LatestInformation()
		t.AddRow(st.Name(), st.Description(), human(nfo.Created.Local()), human(nfo.State.Msgs), size(nfo.State.Bytes), human(streamSince(nfo.TimeStamp, nfo.State.LastTime)))
	}
	// natscli prints the rendered table (which ends in a newline) with
	// Fprintln into a buffer, then the buffer with Println: two blank
	// lines' worth after the table.
	fmt.Fprintln(c.Out, t.Render())
	renderMissing(c.Out, "Streams", missing, offline)
	fmt.Fprintln(c.Out)
	return nil
}

// renderMissing is natscli's renderMissing of its stream and consumer
// commands: after their table, the streams or consumers (kind) the server
// knows of but could not describe, and those offline with the reason (in a
// cluster, while their servers are away).
func renderMissing(w io.Writer, kind string, missing []string, offline map[string]string) {
	if len(missing) > 0 {
		fmt.Fprintln(w)
		sort.Strings(missing)
		t := newTable("Inaccessible %s", kind)
		sliceGroups(missing, 4, func(names []string) {
			row := make([]any, len(names))
			for i, n := range names {
				row[i] = n
			}
			t.AddRow(row...)
		})
		fmt.Fprint(w, t.Render())
	}
	if len(offline) > 0 {
		fmt.Fprintln(w)
		t := newTable("Offline %s", kind)
		keys := slices.Sorted(maps.Keys(offline))
		for _, k := range keys {
			t.AddRow(k, offline[k])
		}
		fmt.Fprint(w, t.Render())
	}
}

// sliceGroups is natscli's util.SliceGroups, which lays the names of its
// Inaccessible tables out: padded with blanks to a multiple of size, then
// size columns read downwards, each row as wide as the others.
func sliceGroups(input []string, size int, fn func(group []string)) {
	if pad := size - len(input)%size; pad != size {
		input = append(input[:len(input):len(input)], make([]string, pad)...)
	}
	count := len(input) / size
	for i := range count {
		group := make([]string, 0, size)
		for s := range size {
			group = append(group, input[i+s*count])
		}
		fn(group)
	}
}
