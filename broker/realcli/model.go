package realcli

import (
	"strings"
	"sync"

	"github.com/choria-io/fisk"
)

// model is the real CLI's grammar, built once: building it runs no command,
// and natscli's package state it sets is never used in the lab's process.
var model = sync.OnceValue(func() *fisk.ApplicationModel {
	buildMu.Lock()
	defer buildMu.Unlock()
	app, _, err := newApp(true)
	if err != nil {
		return &fisk.ApplicationModel{}
	}
	return app.Model()
})

// Model is the real CLI's grammar: its commands, flags and help.
func Model() *fisk.ApplicationModel { return model() }

// Line is a command line read with the real CLI's grammar, without
// running it: which command it names, and the flags and arguments given.
type Line struct {
	// Path is the commands the words name, from the top: [stream copy]
	// for "stream copy ORDERS ARCHIVE". Aliases resolve to the commands.
	Path []*fisk.CmdModel
	// Said is the words that named Path, as typed: [object rm] where
	// Path is [object del].
	Said []string
	// Leaf is true when the last command of Path has no sub-commands.
	Leaf bool
	// Next is the first word where a sub-command was due but none of that
	// name exists ("" if none).
	Next string
	// Flags are the flags given, by long name (global ones included),
	// each with its values ("" for a switch).
	Flags map[string][]string
	// Args are the positional arguments given, by the name of the
	// argument they fill.
	Args map[string][]string
	// AllFlags is true when every word is a flag (e.g. --version).
	AllFlags bool
}

// Parse reads words (a line without its leading `nats`) with the real CLI's
// grammar.
func Parse(words []string) Line {
	return ParseIn(Model(), words)
}

// ParseIn reads words with the grammar of m, which may be the real CLI's or
// a part of it the lab implements itself.
func ParseIn(m *fisk.ApplicationModel, words []string) Line {
	l := Line{Flags: map[string][]string{}, Args: map[string][]string{}, AllFlags: len(words) > 0}
	cmds := m.Commands
	flags := flagIndex(nil, m.FlagGroupModel)
	var args []*fisk.ArgModel
	argIdx := 0
	subsDue := true
	positional := func(w string) {
		l.AllFlags = false
		if subsDue {
			if c := Find(cmds, w); c != nil {
				l.Path = append(l.Path, c)
				l.Said = append(l.Said, w)
				flags = flagIndex(flags, c.FlagGroupModel)
				if c.ArgGroupModel != nil {
					args = c.Args
				}
				argIdx = 0
				if len(visible(c.Commands)) == 0 {
					l.Leaf, subsDue = true, false
					return
				}
				cmds = c.Commands
				return
			}
			if len(l.Path) > 0 && l.Next == "" {
				l.Next = w
			}
			subsDue = false
			if len(l.Path) == 0 {
				return
			}
		}
		if argIdx < len(args) {
			a := args[argIdx]
			l.Args[a.Name] = append(l.Args[a.Name], w)
			if !a.IsCumulative() {
				argIdx++
			}
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			for _, rest := range words[i+1:] {
				positional(rest)
			}
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			positional(w)
			continue
		}
		name, value, hasValue := strings.Cut(w, "=")
		var f *fisk.FlagModel
		if strings.HasPrefix(w, "--") {
			f = flags[name]
			if f == nil && strings.HasPrefix(name, "--no-") {
				if neg := flags["--"+strings.TrimPrefix(name, "--no-")]; neg != nil && neg.Boolean {
					l.Flags[neg.Name] = append(l.Flags[neg.Name], "false")
					continue
				}
			}
		} else {
			f = flags[w[:2]]
			if len(w) > 2 {
				value, hasValue = w[2:], true
			}
		}
		if f == nil {
			continue
		}
		if !f.Boolean && !hasValue && i+1 < len(words) {
			i++
			value = words[i]
		}
		l.Flags[f.Name] = append(l.Flags[f.Name], value)
	}
	return l
}

// Name is the command the line names, as the real CLI's help names it:
// "stream copy".
func (l Line) Name() string { return FullName(l.Path) }

// Typed is the command as the line names it, aliases as typed: "object
// rm" where Name is "object del". A note about what the learner typed
// names it so.
func (l Line) Typed() string { return strings.Join(l.Said, " ") }

// Find returns the command in cmds named or aliased name, or nil.
func Find(cmds []*fisk.CmdModel, name string) *fisk.CmdModel {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// FullName is a command path as the real CLI names it: "stream copy".
func FullName(path []*fisk.CmdModel) string {
	names := make([]string, len(path))
	for i, c := range path {
		names[i] = c.Name
	}
	return strings.Join(names, " ")
}

// Leaves lists every command the real CLI runs (those without
// sub-commands) by full name, as `nats --help-long` lists them: a hidden
// command is left out, but not the visible commands under a hidden one
// (bench oldjs …, plugins register); fisk's own help is in. natscli v0.5.0
// has 235.
func Leaves() []string {
	out := []string{"help"}
	var walk func(prefix string, cmds []*fisk.CmdModel)
	walk = func(prefix string, cmds []*fisk.CmdModel) {
		for _, c := range cmds {
			name := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Commands) > 0 {
				walk(name, c.Commands)
			} else if !c.Hidden {
				out = append(out, name)
			}
		}
	}
	walk("", Model().Commands)
	return out
}

func visible(cmds []*fisk.CmdModel) []*fisk.CmdModel {
	var out []*fisk.CmdModel
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

type flagSet map[string]*fisk.FlagModel // by "--name" and "-x"

func flagIndex(into flagSet, g *fisk.FlagGroupModel) flagSet {
	if into == nil {
		into = flagSet{}
	}
	if g == nil {
		return into
	}
	for _, f := range g.Flags {
		into["--"+f.Name] = f
		if f.Short != 0 {
			into["-"+string(f.Short)] = f
		}
	}
	return into
}
