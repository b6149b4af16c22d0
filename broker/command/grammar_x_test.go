package command_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/choria-io/fisk"
	"github.com/nats-io/natscli/cli"

	"natslab/broker/command"
)

func flagSig(f *fisk.FlagModel) string {
	s := "--" + f.Name
	if f.Short != 0 {
		s += " -" + string(f.Short)
	}
	if f.Boolean {
		s += " bool"
		if f.IsNegatable() {
			s += " neg"
		}
	} else {
		s += fmt.Sprintf(" %T", f.Value)
	}
	if f.Hidden {
		s += " hidden"
	}
	if len(f.Default) > 0 {
		s += " default=" + strings.Join(f.Default, ",")
	}
	return s
}

func TestXGrammar(t *testing.T) {
	app := fisk.New("nats", "")
	cli.ConfigureInApp(app, nil, false)
	real := app.Model()
	lab := command.LabModel()
	labCmds := map[string]*fisk.CmdModel{}
	var walk func(p string, m *fisk.CmdModel, into map[string]*fisk.CmdModel)
	walk = func(p string, m *fisk.CmdModel, into map[string]*fisk.CmdModel) {
		name := strings.TrimSpace(p + " " + m.Name)
		into[name] = m
		for _, sc := range m.Commands {
			walk(name, sc, into)
		}
	}
	for _, m := range lab.Commands {
		walk("", m, labCmds)
	}
	realCmds := map[string]*fisk.CmdModel{}
	for _, m := range real.Commands {
		walk("", m, realCmds)
	}
	var names []string
	for n := range labCmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l := labCmds[n]
		r, ok := realCmds[n]
		if !ok {
			t.Logf("%s: not in the real CLI", n)
			continue
		}
		if a, b := strings.Join(l.Aliases, ","), strings.Join(r.Aliases, ","); a != b {
			t.Logf("%s: aliases lab %s real %s", n, a, b)
		}
		var la, ra []string
		for _, a := range l.Args {
			la = append(la, fmt.Sprintf("%s:%v", a.Name, a.Required))
		}
		for _, a := range r.Args {
			ra = append(ra, fmt.Sprintf("%s:%v", a.Name, a.Required))
		}
		if strings.Join(la, " ") != strings.Join(ra, " ") {
			t.Logf("%s: args lab [%s] real [%s]", n, strings.Join(la, " "), strings.Join(ra, " "))
		}
		lf := map[string]string{}
		for _, f := range l.Flags {
			lf[f.Name] = flagSig(f)
		}
		rf := map[string]string{}
		for _, f := range r.Flags {
			rf[f.Name] = flagSig(f)
		}
		for name, sig := range rf {
			if lf[name] == "" {
				t.Logf("%s: lab lacks %s", n, sig)
			} else if lf[name] != sig {
				t.Logf("%s: flag differs lab %s | real %s", n, lf[name], sig)
			}
		}
		for name, sig := range lf {
			if rf[name] == "" {
				t.Logf("%s: lab-only %s", n, sig)
			}
		}
		var ls, rs []string
		for _, sc := range l.Commands {
			ls = append(ls, sc.Name)
		}
		for _, sc := range r.Commands {
			rs = append(rs, sc.Name)
		}
		sort.Strings(ls)
		sort.Strings(rs)
		if strings.Join(ls, ",") != strings.Join(rs, ",") {
			t.Logf("%s: subs lab %v real %v", n, ls, rs)
		}
	}
}
