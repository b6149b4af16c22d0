package command

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/choria-io/fisk"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/jsm.go/api"

	"github.com/nats-io/jsm.go"
)

func (s *streamCmd) buildEdit(e *fisk.CmdClause, c *Call) {
	e.Action(act(c, s.edit))
	e.Arg("stream", "The stream to change").StringVar(&s.stream)
	e.Flag("force", "Change without asking").Short('f').UnNegatableBoolVar(&s.force)
	e.Flag("dry-run", "Only show what would change").UnNegatableBoolVar(&s.dryRun)
	s.cfg.addConfigFlags(e, true)
	e.Flag("json", "Print the stream information as JSON").Short('j').UnNegatableBoolVar(&s.json)
}

// edit is natscli's editAction: the difference between the configuration
// and the flags applied to it (go-cmp's, as the real CLI prints it), then
// the change, asked first (in the pane) or refused (in a script) unless
// --force, since shrinking a limit removes messages.
func (s *streamCmd) edit(c *Call) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if st, err = s.loadStream(c, mgr, st, "could not request Stream %s configuration", s.stream); err != nil {
		return err
	}
	// A deep copy through JSON, as the real CLI makes it: an empty map
	// comes back nil, which the diff then shows.
	input := st.Configuration()
	input.Metadata = jsm.FilterServerMetadata(input.Metadata)
	ij, err := json.Marshal(input)
	if err != nil {
		return err
	}
	var cfg api.StreamConfig
	if err := json.Unmarshal(ij, &cfg); err != nil {
		return err
	}
	// natscli checks the halves of a republish or transform with
	// fisk.Fatalf, which exits with the bare message: without the "could
	// not create new configuration" its other errors here get.
	if err := s.cfg.checkRepubTransform(); err != nil {
		return err
	}
	if cfg, err = s.cfg.copyAndEdit(cfg); err != nil {
		return fatalIf(err, "could not create new configuration for Stream %s", s.stream)
	}
	sorted := cmp.Transformer("Sort", func(in []string) []string {
		out := append([]string(nil), in...)
		sort.Strings(out)
		return out
	})
	diff := cmp.Diff(input, cfg, sorted)
	if diff == "" {
		if !s.dryRun {
			fmt.Fprintln(c.Out, "No difference in configuration")
		}
		return nil
	}
	fmt.Fprintf(c.Out, "Differences (-old +new):\n%s", diff)
	if s.dryRun {
		// The real CLI exits with status 1 here, saying nothing more.
		return errSilent
	}
	if jsm.IsKVBucketStream(s.stream) {
		if err := s.kvAbstractionWarn(c); err != nil {
			return err
		}
	}
	hint := fmt.Sprintf("stream edit changes %s as shown above, which may remove messages: add --force to do it without asking (stream edit %s ... --force)", s.stream, s.stream)
	ok, err := c.confirm(s.force, fmt.Sprintf("Really edit Stream %s", s.stream), hint)
	if err != nil || !ok {
		return err
	}
	if err := st.UpdateConfiguration(cfg); err != nil {
		return s.createError(c, mgr, cfg, true, fatalIf(err, "could not edit Stream %s", s.stream))
	}
	c.awaitReachable(s.stream) // subjects it now captures
	if !s.json {
		fmt.Fprintf(c.Out, "Stream %s was updated\n\n", s.stream)
	}
	return s.showStream(c, st)
}
