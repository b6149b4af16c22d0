package command

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/choria-io/fisk"

	"natslab/broker/realcli"
	"natslab/broker/text"
)

// natsCommand is one top-level command of the real CLI that the lab has.
type natsCommand struct {
	name    string
	aliases []string
	summary string // for the command list in help
	// build declares the command, its sub-commands and flags on app, with
	// actions that run against c.
	build func(app *fisk.Application, c *Call)
}

var natsCommands = map[string]*natsCommand{}

// register adds a command; called from each command file's init.
func register(cmd *natsCommand) {
	for _, n := range append([]string{cmd.name}, cmd.aliases...) {
		if natsCommands[n] != nil {
			panic("command registered twice: " + n)
		}
		natsCommands[n] = cmd
	}
}

// examples holds one example per full command ("stream add"), shown when an
// argument is missing. Command files add theirs in init.
var examples = map[string]string{}

// Verb is a command the lab adds beside the real CLI's (scene, lesson, jobs…).
type Verb struct {
	Name    string
	Aliases []string
	Usage   string // e.g. "stop N"
	Summary string
	Run     func(c *Call, args []string) error
	// Complete, if set, lists what may follow args (the words typed after
	// the verb) when Tab is pressed in the lab's command pane.
	Complete func(args []string) []string
	// Unnumbered verbs run at once and take no job number (their Job.ID is
	// 0, and jobs does not list them), so the jobs they start are numbered
	// as if they came first: a lesson's background jobs get the same
	// numbers whether it was opened from the pane or from the command line.
	Unnumbered bool
}

// AddVerb adds a lab verb; a verb with the name of a nats command replaces it.
func (s *Session) AddVerb(v Verb) {
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	for _, n := range append([]string{v.Name}, v.Aliases...) {
		s.verbs[n] = v
	}
}

func (s *Session) verb(name string) (Verb, bool) {
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	v, ok := s.verbs[name]
	if !ok {
		v, ok = builtinVerbs[name]
	}
	return v, ok
}

// Words every line may start with: commands, aliases and verbs.
func (s *Session) commandWords() []string {
	seen := map[string]bool{}
	for n := range natsCommands {
		seen[n] = true
	}
	for n := range builtinVerbs {
		seen[n] = true
	}
	s.jobsMu.Lock()
	for n := range s.verbs {
		seen[n] = true
	}
	s.jobsMu.Unlock()
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// exec runs one line.
func (s *Session) exec(c *Call) (err error) {
	defer func() {
		// No panic ever reaches the user: a bug in a command is an error line.
		if r := recover(); r != nil {
			err = &labError{fmt.Errorf("internal error running %q: %v (the lab carries on; please report this)", c.Job.Shown(), r)}
		}
	}()
	words, err := splitCommand(c.Job.Line)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		if strings.TrimSpace(StripComment(c.Job.Line)) == "" {
			return nil // a blank line, or a comment
		}
		// nats alone: the real CLI prints its usage, the list of its
		// commands.
		return s.runReal(c, words, realcli.Parse(words))
	}
	first := words[0]
	if v, ok := s.verb(first); ok {
		// A verb is the lab's own command: it speaks as the lab.
		return inLabVoice(v.Run(c, words[1:]))
	}
	if s.noLocalFiles {
		if err := refuseLocalFiles(realcli.Parse(words)); err != nil {
			return err
		}
	}
	if cmd, ok := natsCommands[first]; ok {
		return runFisk(c, cmd, words)
	}
	if l, ok := realLine(words); ok {
		return s.runReal(c, words, l)
	}
	return s.unknownCommand(c, words)
}

// unknownCommand answers a line whose first word is no command, neither
// the lab's nor the real CLI's, as the real CLI does (its error and its
// usage), and explains it in a note: what the word may have meant.
func (s *Session) unknownCommand(c *Call, words []string) error {
	why := s.whyUnknown(words)
	if p, ok := c.realAnswer(words); ok && p.Code != 0 {
		return explain(exitErr(p), "%s", why)
	}
	return usageErrorf("%s", why)
}

// whyUnknown says what is wrong with a line whose first word is no command.
func (s *Session) whyUnknown(words []string) string {
	first := words[0]
	if strings.HasPrefix(first, "-") {
		return "a command starts with its name, not a flag: try help"
	}
	if first == "natslab" {
		// A line copied from a shell (natslab --lesson hello): its flags
		// start the program, and this prompt is the program already.
		here := "help lists what works here"
		if _, ok := s.verb("lesson"); ok {
			here = "lesson ID opens a lesson, lessons lists them, help lists the rest"
		}
		return fmt.Sprintf("this prompt is natslab already: leave out the word natslab (its flags are for starting it from a shell); %s", here)
	}
	return fmt.Sprintf("unknown command %q%s (type help for the list)", first, didYouMean(first, append(s.commandWords(), realTopNames()...)))
}

// Check parses line as Run would, without running it or touching the
// broker: nil when it would start, else the error Run would print. Lab
// verbs are only checked for existence.
func (s *Session) Check(line string) error {
	words, err := splitCommand(line)
	if err != nil || len(words) == 0 {
		return err
	}
	if _, ok := s.verb(words[0]); ok {
		return nil
	}
	c := &Call{S: s, Out: io.Discard, Err: io.Discard, parseOnly: true, Job: &Job{Line: line}, timeout: s.timeout}
	if s.noLocalFiles {
		if err := refuseLocalFiles(realcli.Parse(words)); err != nil {
			return err
		}
	}
	cmd, ok := natsCommands[words[0]]
	if !ok {
		if l, ok := realLine(words); ok {
			return s.runReal(c, words, l)
		}
		return s.unknownCommand(c, words)
	}
	return runFisk(c, cmd, words)
}

// errTerminated is how fisk's "exit" (after --help) unwinds back to us.
type terminated struct{}

// actionError marks an error from a command's action, as opposed to the parser.
type actionError struct{ err error }

func (e actionError) Error() string { return e.err.Error() }
func (e actionError) Unwrap() error { return e.err }

// act wraps a command's run function as a fisk action.
func act(c *Call, run func(*Call) error) fisk.Action {
	return func(*fisk.ParseContext) error {
		if c.parseOnly {
			return nil
		}
		if err := run(c); err != nil {
			return actionError{err}
		}
		return nil
	}
}

// newApp makes a fisk application writing to the call's streams. Usage goes
// to Out, like --help in the real CLI.
func newApp(c *Call) *fisk.Application {
	app := fisk.New("nats", "NATS commands in the lab")
	app.Writer(c.Out)
	app.UsageWriter(c.Out)
	app.ErrorWriter(io.Discard)
	app.Terminate(func(int) { panic(terminated{}) })
	if c.timeout == 0 {
		c.timeout = c.S.timeout
	}
	// The real CLI's one global flag the lab's commands honour.
	app.Flag("timeout", "How long to wait for answers from NATS").Default(c.timeout.String()).DurationVar(&c.timeout)
	return app
}

func runFisk(c *Call, cmd *natsCommand, words []string) (err error) {
	if l, ok := asAnotherClient(words); ok {
		return c.S.runReal(c, words, l)
	}
	app := newApp(c)
	cmd.build(app, c)
	if l, ok := divert(app.Model(), words); ok {
		return c.S.runReal(c, words, l)
	}
	// Help is the real CLI's: its words, every sub-command and flag. The
	// lab's own description of the command follows as a note.
	if asksHelp(words) {
		if p, ok := c.realAnswer(words); ok {
			if p.Code == 0 {
				if note := labSummary(app, words); note != "" {
					c.Notef("%s", note)
				}
			}
			return exitErr(p)
		}
		return c.S.runReal(c, words, realcli.Parse(words))
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(terminated); ok {
				err = nil // help was printed
				return
			}
			panic(r)
		}
	}()
	if note := switchValues(app, words); note != "" {
		c.Notef("%s", note)
	}
	defer c.S.onShared(c)()
	_, err = app.Parse(words)
	if err == nil {
		return nil
	}
	var ae actionError
	if errors.As(err, &ae) {
		return ae.err
	}
	labErr := explainParseError(app, words, err)
	if c.parseOnly {
		return labErr
	}
	// The lab's grammar is a part of the real CLI's: a line it refuses is
	// the real CLI's to refuse (with its own error and usage), or to run
	// (a flag the lab has no code for; without a listener the lab says
	// it cannot). The lab's note comes after.
	// A flag only the real CLI has is no fault of the line's: where the
	// real CLI fails all the same, it is for a reason of its own, which its
	// error says.
	parseErr := err
	if err := c.S.runReal(c, words, realcli.Parse(words)); err != nil {
		if note := ErrorNote(labErr); note != "" && !realHasFlag(words, parseErr) {
			return explain(err, "%s", note)
		}
		return err
	}
	return nil
}

// realFlags are the visible flags of the real CLI's command words name
// ("--mirror"), without its global ones.
func realFlags(words []string) []string {
	var out []string
	for _, c := range realcli.Parse(words).Path {
		for _, f := range c.Flags {
			if !f.Hidden {
				out = append(out, "--"+f.Name)
			}
		}
	}
	return out
}

// realHasFlag reports whether err is fisk's refusal of a flag that the real
// CLI's command words name has.
func realHasFlag(words []string, err error) bool {
	if !errors.Is(err, fisk.ErrUnknownLongFlag) && !errors.Is(err, fisk.ErrUnknownShortFlag) {
		return false
	}
	flag := quoted(err.Error())
	for _, c := range realcli.Parse(words).Path {
		for _, f := range c.Flags {
			if flag == "--"+f.Name || (f.Short != 0 && flag == "-"+string(f.Short)) {
				return true
			}
		}
	}
	return false
}

// asksHelp reports whether words ask for help (--help, -h, --help-long …)
// before any "--".
func asksHelp(words []string) bool {
	for _, w := range words {
		switch w {
		case "--":
			return false
		case "--help", "-h", "--help-long", "--help-man", "--help-llm":
			return true
		}
	}
	return false
}

// switchValues explains "--raw=maybe" and "--raw=true": fisk gives a
// switch no value, so the text after = becomes the next argument (another
// subject to listen on, for sub), as in the real CLI. A switch is written
// on its own, or as --no-NAME. "" when the line has none.
func switchValues(app *fisk.Application, words []string) string {
	var flags []*fisk.FlagModel
	for _, w := range words {
		if w == "--" {
			return ""
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if !ok || !strings.HasPrefix(w, "--") {
			continue
		}
		if flags == nil {
			ctx, _ := app.ParseContext(words)
			if ctx == nil || ctx.SelectedCommand == nil {
				return ""
			}
			flags = ctx.SelectedCommand.Model().Flags
		}
		for _, f := range flags {
			if !f.Boolean || (f.Name != name && "no-"+f.Name != name) {
				continue
			}
			if f.Negatable {
				return fmt.Sprintf("--%s is a switch and takes no value: %q was read as one more argument; write --%s to turn it on, --no-%s to turn it off", name, value, f.Name, f.Name)
			}
			return fmt.Sprintf("--%s is a switch and takes no value: %q was read as one more argument; write --%s on its own", name, value, f.Name)
		}
	}
	return ""
}

// explainParseError reports a line fisk refuses as the real CLI reports it
// (natscli's main parses with fisk's MustParseWithUsage) and adds the lab's
// note: what is wrong and what to type instead.
func explainParseError(app *fisk.Application, words []string, err error) error {
	ctx, _ := app.ParseContext(words)
	path := words[0]
	var flags []string
	var subs []string
	if ctx != nil && ctx.SelectedCommand != nil {
		path = ctx.SelectedCommand.FullCommand()
		m := ctx.SelectedCommand.Model()
		for _, f := range m.Flags {
			if !f.Hidden {
				flags = append(flags, "--"+f.Name)
			}
		}
		for _, sc := range m.Commands {
			if !sc.Hidden {
				subs = append(subs, sc.Name)
				subs = append(subs, sc.Aliases...)
			}
		}
	} else if m := app.Model(); len(m.Commands) > 0 {
		for _, sc := range m.Commands {
			subs = append(subs, sc.Name)
			subs = append(subs, sc.Aliases...)
		}
	}
	// The lab's grammar is a part of the real CLI's: a suggestion may be
	// a flag only the real CLI has (stream add --mirror).
	for _, f := range realFlags(words) {
		if !slices.Contains(flags, f) {
			flags = append(flags, f)
		}
	}
	msg := err.Error()
	help := fmt.Sprintf("help %s lists its arguments and flags", path)
	real := func() *parseError { return newParseError(err) }
	switch {
	case errors.Is(err, fisk.ErrUnknownLongFlag), errors.Is(err, fisk.ErrUnknownShortFlag):
		flag := quoted(msg)
		if d := suggest(flag, flags); d != "" {
			var also []string // other flags flag begins, so none is taken for another
			for _, f := range flags {
				if f != d && strings.HasPrefix(f, flag) {
					also = append(also, f)
				}
			}
			if len(also) > 0 {
				return explain(real(), "%s has no flag %s: did you mean %s? (or %s)", path, flag, d, strings.Join(also, ", "))
			}
			return explain(real(), "%s has no flag %s: did you mean %s?", path, flag, d)
		}
		return explain(real(), "%s has no flag %s; %s", path, flag, help)
	case errors.Is(err, fisk.ErrExpectedFlagArgument):
		flag := quoted(msg)
		if v := dashedValue(words, flag); v != "" {
			return explain(real(), "%s %s: a value that starts with - is read as a flag; join it to the flag with =, like %s=%s", flag, v, flag, v)
		}
		return explain(real(), "flag %s needs a value, for example %s=VALUE; %s", flag, flag, help)
	case errors.Is(err, fisk.ErrRequiredArgument):
		arg := quoted(msg)
		if ex, ok := examples[path]; ok {
			return explain(real(), "%s needs <%s>, for example: %s", path, arg, ex)
		}
		return explain(real(), "%s needs <%s>; %s", path, arg, help)
	case errors.Is(err, fisk.ErrExpectedKnownCommand), errors.Is(err, fisk.ErrSubCommandRequired), errors.Is(err, fisk.ErrCommandNotSpecified):
		got := quoted(msg)
		sort.Strings(subs)
		if got == "" || errors.Is(err, fisk.ErrSubCommandRequired) || errors.Is(err, fisk.ErrCommandNotSpecified) {
			return explain(real(), "%s needs a sub-command: one of %s", path, strings.Join(subs, ", "))
		}
		if d := suggest(got, subs); d != "" {
			return explain(real(), "%s has no sub-command %q: did you mean %s?", path, got, d)
		}
		return explain(real(), "%s has no sub-command %q: it has %s", path, got, strings.Join(subs, ", "))
	case errors.Is(err, fisk.ErrUnexpectedArgument):
		extra := strings.TrimSpace(strings.TrimPrefix(msg, fisk.ErrUnexpectedArgument.Error()))
		return explain(real(), "%s takes no argument %q: quote arguments that contain spaces, for example 'Hello NATS!'", path, strings.Trim(extra, `'"`))
	case errors.Is(err, fisk.ErrRequiredFlag):
		return explain(real(), "%s needs the flag %s; %s", path, quoted(msg), help)
	}
	// A value that does not parse: the real CLI prints fisk's message as
	// it is; the lab says which flag it belongs to and what it wants.
	if ctx != nil && ctx.SelectedCommand != nil {
		if note := badFlagValue(ctx.SelectedCommand.Model().Flags, words); note != "" {
			return explain(err, "%s", note)
		}
	}
	return explain(err, "%s", help)
}

// parseError is a line the real CLI's parser refuses: fisk's
// MustParseWithUsage prints "error: MSG" and a blank line on stderr, then
// the command's usage on stdout, which only the real CLI's grammar gives
// (see realcli.Answer): the lab's own grammar has other words. It is what
// Check reports, and the line printed where the real CLI cannot be asked.
type parseError struct{ msg string }

func (e *parseError) Error() string { return e.msg }

// newParseError is err as MustParseWithUsage words it.
func newParseError(err error) *parseError {
	msg := err.Error()
	if errors.Is(err, fisk.ErrSubCommandRequired) {
		msg = "a subcommand from the list below is required, use --help for full help including flags and arguments"
	} else if errors.Is(err, fisk.ErrExpectedKnownCommand) {
		msg += ", use --help for full help including flags and arguments"
	}
	return &parseError{msg: msg}
}

// badFlagValue finds the first flag in words whose value does not parse and
// says what it wants; "" if none is found.
func badFlagValue(flags []*fisk.FlagModel, words []string) string {
	byName := map[string]*fisk.FlagModel{}
	byShort := map[string]*fisk.FlagModel{}
	for _, fm := range flags {
		byName[fm.Name] = fm
		if fm.Short != 0 {
			byShort[string(fm.Short)] = fm
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		var fm *fisk.FlagModel
		var value string
		hasValue := false
		switch {
		case strings.HasPrefix(w, "--"):
			name, v, ok := strings.Cut(w[2:], "=")
			fm, value, hasValue = byName[name], v, ok
		case strings.HasPrefix(w, "-") && len(w) >= 2:
			fm = byShort[w[1:2]]
			if len(w) > 2 {
				value, hasValue = w[2:], true
			}
		default:
			continue
		}
		if fm == nil || fm.Value == nil || fm.Boolean {
			continue
		}
		if !hasValue {
			if i+1 >= len(words) {
				continue
			}
			i++
			value = words[i]
		}
		if err := fm.Value.Set(value); err != nil {
			if note := misspelt(fm.Name, value); note != "" {
				return note
			}
			return fmt.Sprintf("--%s %s, got %q", fm.Name, wants(fm.Value, err), value)
		}
	}
	return ""
}

// misspelt explains a value people commonly expect a flag to take that the
// real CLI spells otherwise.
func misspelt(flag, value string) string {
	switch {
	case flag == "retention" && strings.Contains(strings.ToLower(value), "work"):
		return "the real CLI spells it work or workq: --retention work"
	}
	return ""
}

// wants says in words what kind of value a flag takes.
func wants(v fisk.Value, err error) string {
	t := fmt.Sprintf("%T", v)
	switch {
	case strings.Contains(t, "int"), strings.Contains(t, "Int"):
		return "wants a whole number, like 10"
	case strings.Contains(t, "float"):
		return "wants a number, like 1.5"
	case strings.Contains(t, "duration"):
		return "wants a duration with a unit, like 500ms, 10s, 5m, 1h or 2d"
	case strings.Contains(t, "bytes"):
		return "wants a size, like 512, 64KB or 1GiB"
	case strings.Contains(t, "enum"):
		if _, opts, ok := strings.Cut(err.Error(), "must be one of "); ok {
			opts, _, _ = strings.Cut(opts, ", got")
			return "wants one of " + strings.ReplaceAll(opts, ",", ", ")
		}
	}
	return "has a value that does not parse (" + err.Error() + ")"
}

// quoted returns the last '…' or "…" quoted part of a fisk message.
// dashedValue is the word after flag in words when it is a negative number
// or duration (-1, -5, -1h) that the parser took for a flag of its own, ""
// otherwise.
func dashedValue(words []string, flag string) string {
	for i, w := range words[:max(len(words)-1, 0)] {
		if w == flag && negativeValue().MatchString(words[i+1]) {
			return words[i+1]
		}
	}
	return ""
}

var negativeValue = text.Pattern(`^-[0-9][0-9.]*[a-zA-Zµ]*$`)

func quoted(msg string) string {
	for _, q := range []string{"'", `"`} {
		end := strings.LastIndex(msg, q)
		if end <= 0 {
			continue
		}
		start := strings.LastIndex(msg[:end], q)
		if start >= 0 {
			return msg[start+1 : end]
		}
	}
	return ""
}
