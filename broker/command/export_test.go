package command

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/choria-io/fisk"
)

// FlagSpec and CommandSpec describe the grammar for tests that generate
// inputs from it.
type FlagSpec struct {
	Name     string
	Short    rune
	Boolean  bool
	TypeName string // the fisk value's Go type, e.g. "*fisk.intValue"
}

type CommandSpec struct {
	Path         []string // e.g. ["stream", "add"]
	RequiredArgs []string
	Flags        []FlagSpec
}

// CommandSpecs lists every leaf command of every registered nats command.
func CommandSpecs() []CommandSpec {
	seen := map[*natsCommand]bool{}
	var out []CommandSpec
	for _, nc := range natsCommands {
		if seen[nc] {
			continue
		}
		seen[nc] = true
		c := &Call{S: NewSession(nil), Out: io.Discard, Err: io.Discard, parseOnly: true, Job: &Job{}}
		app := newApp(c)
		nc.build(app, c)
		var walk func(path []string, m *fisk.CmdModel)
		walk = func(path []string, m *fisk.CmdModel) {
			p := append(append([]string{}, path...), m.Name)
			if len(m.Commands) > 0 {
				for _, sc := range m.Commands {
					walk(p, sc)
				}
				return
			}
			spec := CommandSpec{Path: p}
			for _, a := range m.Args {
				if a.Required {
					spec.RequiredArgs = append(spec.RequiredArgs, a.Name)
				}
			}
			for _, f := range m.Flags {
				if f.Name == "help" || f.Hidden {
					continue
				}
				spec.Flags = append(spec.Flags, FlagSpec{Name: f.Name, Short: f.Short, Boolean: f.Boolean, TypeName: fmt.Sprintf("%T", f.Value)})
			}
			out = append(out, spec)
		}
		for _, m := range app.Model().Commands {
			walk(nil, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].Path, " ") < strings.Join(out[j].Path, " ") })
	return out
}

// SubPendingMsgs is how many messages a sub's buffer holds (slow.go).
const SubPendingMsgs = subPendingMsgs

// JSPublishWindow is how many JetStream publishes pub keeps on their way.
const JSPublishWindow = jsPublishWindow

// LabModel is the whole grammar of the lab's nats commands, as one fisk
// application.
func LabModel() *fisk.ApplicationModel {
	c := &Call{S: NewSession(nil), Out: io.Discard, Err: io.Discard, parseOnly: true, Job: &Job{}}
	app := newApp(c)
	seen := map[*natsCommand]bool{}
	for _, nc := range natsCommands {
		if !seen[nc] {
			seen[nc] = true
			nc.build(app, c)
		}
	}
	return app.Model()
}

// IsUsage reports whether err is a mistake in what was typed.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
