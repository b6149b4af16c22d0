package command

import (
	"fmt"
	"strings"
	"testing"

	"github.com/choria-io/fisk"

	"natslab/broker/realcli"
)

// Every flag and argument natscli declares as a file must be on the
// reviewed list: a new version of the real CLI that adds one fails here
// instead of opening the instructor's disk to a workshop.
func TestNoLocalFilesCoversEveryFileFlag(t *testing.T) {
	m := realcli.Model()
	isFile := func(v fisk.Value) bool { return fmt.Sprintf("%T", v) == "*fisk.fileStatValue" }
	checked := 0
	check := func(path []*fisk.CmdModel, flag, arg string) {
		checked++
		l := realcli.Line{Path: path, Flags: map[string][]string{}, Args: map[string][]string{}}
		what := "--" + flag
		if flag != "" {
			l.Flags[flag] = []string{"some/file"}
		} else {
			l.Args[arg] = []string{"some/file"}
			what = "<" + arg + ">"
		}
		if refuseLocalFiles(l) == nil {
			t.Errorf("nats %s %s names a file and a workshop session does not refuse it", l.Name(), what)
		}
	}
	for _, f := range m.Flags {
		if isFile(f.Value) {
			check(nil, f.Name, "")
		}
	}
	var walk func(path []*fisk.CmdModel)
	walk = func(path []*fisk.CmdModel) {
		c := path[len(path)-1]
		if c.FlagGroupModel != nil {
			for _, f := range c.Flags {
				if isFile(f.Value) {
					check(path, f.Name, "")
				}
			}
		}
		if c.ArgGroupModel != nil {
			for _, a := range c.Args {
				if isFile(a.Value) {
					check(path, "", a.Name)
				}
			}
		}
		for _, sub := range c.Commands {
			walk(append(append([]*fisk.CmdModel{}, path...), sub))
		}
	}
	for _, c := range m.Commands {
		walk([]*fisk.CmdModel{c})
	}
	if checked < 40 {
		t.Fatalf("only %d file flags and arguments found: the model walk is broken", checked)
	}
}

func TestNoLocalFilesRefusesOnlyWhatTouchesFiles(t *testing.T) {
	for line, refused := range map[string]bool{
		"object put FILES notes.txt":                      true,
		"object get FILES notes.txt":                      true,
		"object get FILES notes.txt -O x":                 true,
		"stream add ORDERS --config o.json":               true,
		"sub orders.> --translate 'jq .'":                 true,
		"--creds /tmp/u.creds object ls":                  true,
		"context add lab --creds u.creds":                 true,
		"stream backup ORDERS /tmp/b":                     true,
		"schema validate io.nats.x doc.json":              true,
		"server list --archive a.zip":                     true,
		"bench pub x --no-progress --csv o.csv":           true,
		"reply svc --command 'date'":                      true,
		"--context ./ctx.json stream ls":                  true,
		"object put FILES --name notes.txt":               false,
		"object ls FILES":                                 false,
		"pub orders.new hello":                            false,
		"stream ls":                                       false,
		"context add lab --description x":                 false,
		"--context lab stream ls":                         false,
		"server mappings foo.* bar.{{wildcard(1)}} foo.x": false,
		"bench pub x --no-progress --msgs 10":             false,
	} {
		words, err := SplitWords(line)
		if err != nil {
			t.Fatal(err)
		}
		err = refuseLocalFiles(realcli.Parse(words))
		if (err != nil) != refused {
			t.Errorf("%s: refused=%v (%v), want %v", line, err != nil, err, refused)
		}
		if err != nil && !strings.Contains(err.Error(), "own machine") {
			t.Errorf("%s: %v does not say what to do", line, err)
		}
	}
}
