package realcli

import (
	"bytes"
	"errors"
	"fmt"
	"go/doc"
	"go/doc/comment"
	"io"
	"os"
	"strings"
	"sync"
	"text/template"

	"github.com/choria-io/fisk"
)

// buildMu serialises building the real CLI on a fisk application in the
// lab's process (see newApp).
var buildMu sync.Mutex

// Printed is what the real CLI printed for a line, and how it exited.
type Printed struct {
	Stdout, Stderr string
	Code           int
}

// Answer is what the real CLI prints for words (a line without its leading
// `nats`) when it answers them from its grammar alone, running nothing:
// help (X --help, help X, --help-long, --version), or its refusal of a line
// its parser rejects — the error, and the usage fisk prints after it
// (natscli's main parses with fisk's MustParseWithUsage). ok is false when
// the real CLI would run the line, and for the few help-shaped lines fisk
// prints straight to the process's own stdout or stderr (--help-man, the
// completion scripts, the hidden deprecated commands): those are the
// child's to print.
//
// The text is rendered in the lab's process, byte for byte as the real CLI
// renders it, with help wrapped at width columns: natscli wraps at its
// terminal's width, or at 80 when its stdout is no terminal.
//
// It builds the real CLI's grammar afresh (about a millisecond) so that no
// earlier line's flags linger in it, and parses with natscli's own fisk
// application, stopped before any command's action by a validator of the
// lab's (fisk validates a line after its help and its parse errors, just
// before it runs it). Nothing it reads or sets reaches a command: the
// settings natscli's commands parse into are package state the lab's
// process never uses (see Model).
func Answer(words []string, width int) (p Printed, ok bool) {
	p, reached, ok := answer(words, width, errWouldRun)
	if !ok || !reached {
		return p, ok
	}
	// A line that names no command, only global flags, ends in fisk
	// after the actions (there are none) with the application's usage.
	return topUsage(words, width)
}

// Refuse is what the real CLI prints when the action of the command words
// name returns err (a fisk error such as fisk.ErrRequiredArgument, which
// natscli's main reports with the command's usage, or any other): as
// Answer prints, for a line the lab has run itself. ok is false for the
// lines Answer leaves to the child.
func Refuse(words []string, err error, width int) (p Printed, ok bool) {
	p, _, ok = answer(words, width, err)
	return p, ok
}

// answer parses words with natscli's application as its main does, and
// ends where the command's action would run with stop as the action's
// error; reached says whether the line got there.
func answer(words []string, width int, stop error) (p Printed, reached, ok bool) {
	if printsToProcess(words) {
		return Printed{}, false, false
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	// prepare false: the line must not load the user's NATS contexts in
	// the lab's process (the child has a home of the lab's).
	app, _, err := newApp(false)
	if err != nil || envarsMatter(app) {
		return Printed{}, false, false
	}
	var out, errOut bytes.Buffer
	configure(app, &out, &errOut, width)
	app.Validate(func(*fisk.Application) error {
		reached = true
		return stop
	})
	code, parsed := mustParse(app, words)
	if parsed {
		return Printed{}, false, false // cannot be: the validator stops every line that parses
	}
	return Printed{Stdout: out.String(), Stderr: errOut.String(), Code: code}, reached, true
}

// topUsage is the application's usage, which fisk prints for a line of
// global flags only.
func topUsage(words []string, width int) (Printed, bool) {
	buildMu.Lock()
	defer buildMu.Unlock()
	app, _, err := newApp(false)
	if err != nil {
		return Printed{}, false
	}
	var out, errOut bytes.Buffer
	configure(app, &out, &errOut, width)
	ctx, err := app.ParseContext(words)
	if err != nil || ctx.SelectedCommand != nil {
		return Printed{}, false
	}
	if err := app.UsageForContext(ctx); err != nil {
		return Printed{}, false
	}
	return Printed{Stdout: out.String()}, true
}

// configure points app's output at out and errOut and wraps its help at
// width, as the child's real CLI would print it.
func configure(app *fisk.Application, out, errOut io.Writer, width int) {
	app.UsageWriter(out)
	app.ErrorWriter(errOut)
	// The child's environment has no LLMFORMAT nor CLAUDECODE (see
	// Child.env): the real CLI it runs prints its plain help, and so does
	// this.
	app.UsageTemplate(fisk.CompactMainUsageTemplate)
	app.ErrorUsageTemplate(fisk.CompactMainUsageTemplate)
	app.UsageFuncs(usageFuncs(width))
	app.Terminate(func(code int) { panic(exited(code)) })
}

// exited is fisk's terminate(code), caught.
type exited int

var errWouldRun = errors.New("the line parses: the real CLI would run it")

// mustParse runs fisk's MustParseWithUsage, as natscli's main does, until
// fisk terminates: its exit status, or parsed when it returned.
func mustParse(app *fisk.Application, words []string) (code int, parsed bool) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exited)
			if !ok {
				panic(r)
			}
			code, parsed = int(e), false
		}
	}()
	app.MustParseWithUsage(words)
	return 0, true
}

// printsToProcess reports whether words ask for something fisk or natscli
// prints on the process's own stdout or stderr rather than the
// application's writers (a man page, completion scripts and data, the
// application's model, a deprecated command's warning), or whether
// parsing them reads files: the real CLI reads them in its working
// directory, the child's (see Child.Dir), and the lab may keep local files
// out of reach (a workshop).
func printsToProcess(words []string) bool {
	for _, w := range words {
		if strings.HasPrefix(w, "@") && fisk.EnableFileExpansion {
			return true // fisk reads more words from the file named
		}
		for _, flag := range []string{"--help-man", "--completion-", "--fisk-introspect"} {
			if strings.HasPrefix(w, flag) {
				return true
			}
		}
	}
	l := Parse(words)
	return deprecated[l.Name()] || namesFiles(l)
}

// namesFiles reports whether the line gives a value to a flag or an
// argument that must name an existing file or directory: fisk looks for
// it as it parses.
func namesFiles(l Line) bool {
	isFile := func(v fisk.Value) bool { return fmt.Sprintf("%T", v) == "*fisk.fileStatValue" }
	flags := map[string]*fisk.FlagModel{}
	for _, f := range Model().Flags {
		flags[f.Name] = f
	}
	var args []*fisk.ArgModel
	for _, c := range l.Path {
		if c.FlagGroupModel != nil {
			for _, f := range c.Flags {
				flags[f.Name] = f
			}
		}
		if c.ArgGroupModel != nil {
			args = c.Args
		}
	}
	for name := range l.Flags {
		if f := flags[name]; f != nil && isFile(f.Value) {
			return true
		}
	}
	for _, a := range args {
		if _, given := l.Args[a.Name]; given && isFile(a.Value) {
			return true
		}
	}
	return false
}

// deprecated are the commands natscli v0.5.0 keeps under their old names,
// hidden, whose pre-action warns on the process's stderr (its
// deprecatedCommand) before fisk prints their help or refuses a line.
var deprecated = map[string]bool{
	"stream backup": true, "stream restore": true,
	"account backup": true, "account restore": true,
}

// envarsMatter reports whether a variable in the lab's environment could
// change the real CLI's answer: fisk reads a flag's variable as its value
// before it validates a line, and a value that does not parse (a
// NATS_TIMEOUT of "soon", a NATS_CERT that names no file) is an error of
// its own. The child's environment has none of the user's NATS_* variables
// (see Child.env); a text-valued variable cannot fail.
func envarsMatter(app *fisk.Application) bool {
	for _, f := range app.Model().Flags {
		if f.Envar == "" || os.Getenv(f.Envar) == "" {
			continue
		}
		if fmt.Sprintf("%T", f.Value) != "*fisk.stringValue" {
			return true
		}
	}
	return false
}

// usageFuncs are fisk's template functions that wrap text, at width
// columns rather than the width fisk guesses from its writer (a terminal's,
// or 80). They are fisk v0.9.1's own (usage.go), width aside.
func usageFuncs(width int) template.FuncMap {
	if width <= 0 {
		width = 80
	}
	const indent = 2 // every template fisk's parse and help render uses
	return template.FuncMap{
		"Wrap": func(indent int, s string) string {
			indentText := strings.Repeat(" ", indent)
			d := new(doc.Package).Parser().Parse(s)
			pr := &comment.Printer{
				TextPrefix:     indentText,
				TextCodePrefix: "  " + indentText,
				TextWidth:      width - indent,
			}
			return string(pr.Text(d))
		},
		"FormatTwoColumns": func(rows [][2]string) string {
			var b bytes.Buffer
			formatTwoColumns(&b, indent, indent, width, rows)
			return b.String()
		},
		"FormatTwoColumnsWithIndent": func(rows [][2]string, indent, padding int) string {
			var b bytes.Buffer
			formatTwoColumns(&b, indent, padding, width, rows)
			return b.String()
		},
		"IsLLMContext": func() bool { return false },
	}
}

// formatTwoColumns is fisk v0.9.1's (usage.go).
func formatTwoColumns(w io.Writer, indent, padding, width int, rows [][2]string) {
	limit := int(float32(width) * 0.75 / 2)
	if limit < 30 {
		limit = 30
	}
	s := 0
	for _, row := range rows {
		if c := len(row[0]); c > s && c < limit {
			s = c
		}
	}
	indentStr := strings.Repeat(" ", indent)
	offsetStr := strings.Repeat(" ", s+padding)
	for _, row := range rows {
		d := new(doc.Package).Parser().Parse(row[1])
		pr := &comment.Printer{
			TextPrefix:     "",
			TextCodePrefix: "  ",
			TextWidth:      width - s - padding - indent,
		}
		lines := strings.Split(strings.TrimRight(string(pr.Text(d)), "\n"), "\n")
		fmt.Fprintf(w, "%s%-*s%*s", indentStr, s, row[0], padding, "")
		if len(row[0]) >= limit {
			fmt.Fprintf(w, "\n%s%s", indentStr, offsetStr)
		}
		fmt.Fprintf(w, "%s\n", lines[0])
		for _, line := range lines[1:] {
			fmt.Fprintf(w, "%s%s%s\n", indentStr, offsetStr, line)
		}
	}
}
