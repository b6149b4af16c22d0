package command

import (
	"context"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/realcli"
)

// Tab completion for the lab's command pane. The grammar comes from the
// same fisk models the commands are parsed with (each command's build func
// declares them), so completion never drifts from what the parser accepts;
// names of streams, consumers and buckets come from the broker as it is now.

// Completion is what Tab offers for the word being typed at the end of a line.
type Completion struct {
	// Start is the byte offset in the line where the word being completed
	// starts (at a quote, if the word opened one).
	Start int
	// Word is the word typed so far, without quotes.
	Word string
	// Candidates are complete replacements for Word, sorted and unique.
	Candidates []string
}

// completeTimeout bounds the broker look-ups one Tab may make.
const completeTimeout = time.Second

// Complete returns what may follow line, which ends where the cursor is.
func (s *Session) Complete(ctx context.Context, line string) Completion {
	words, word, start := splitPartial(line)
	if len(words) > 0 && words[0] == "nats" {
		words = words[1:]
	}
	comp := Completion{Start: start, Word: word}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout)
	defer cancel()
	comp.Candidates = uniqueSorted(withPrefix(s.candidates(ctx, words, word), word))
	return comp
}

// IsCommand reports whether name starts one of the real CLI's commands (or
// an alias) or one of the lab's built-in verbs: the names a verb added later
// must not take over.
func (s *Session) IsCommand(name string) bool {
	if _, ok := natsCommands[name]; ok {
		return true
	}
	_, ok := builtinVerbs[name]
	return ok
}

func (s *Session) candidates(ctx context.Context, words []string, word string) []string {
	if len(words) == 0 {
		return s.firstWords(word)
	}
	first, rest := words[0], words[1:]
	switch first {
	case "help":
		return s.helpCandidates(rest, word)
	case "stop", "kill":
		if len(rest) > 0 {
			return nil
		}
		out := []string{"all"}
		for _, j := range s.Jobs() {
			out = append(out, strconv.Itoa(j.ID))
		}
		return out
	}
	if v, ok := s.verb(first); ok {
		if v.Complete == nil {
			return nil
		}
		return v.Complete(rest)
	}
	real := walkModel(realcli.Model(), words)
	cmd, ok := natsCommands[first]
	if !ok {
		// A command the lab runs through the real CLI's code.
		if real == nil {
			return nil
		}
		return real.next(ctx, s, word)
	}
	w := s.walk(ctx, cmd, words)
	if w == nil {
		// A sub-command only the real CLI has: stream copy, kv compact …
		if real == nil {
			return nil
		}
		return real.next(ctx, s, word)
	}
	out := w.next(ctx, s, word)
	if real != nil && !strings.HasPrefix(word, "-") && len(visibleCommands(w.cur())) > 0 && len(visibleCommands(real.cur())) > 0 {
		// The lab's own sub-commands and the real CLI's others.
		out = append(out, real.next(ctx, s, word)...)
	}
	return out
}

// firstWords are the words a line may start with. Commands' own names come
// first: "str" completes to stream, not to its alias str; aliases are
// offered only when no name fits.
func (s *Session) firstWords(word string) []string {
	var names []string
	for n, c := range natsCommands {
		if n == c.name {
			names = append(names, n)
		}
	}
	for _, c := range visibleCommands(&fisk.CmdModel{CmdGroupModel: realcli.Model().CmdGroupModel}) {
		names = append(names, c.Name)
	}
	for n, v := range builtinVerbs {
		if n == v.Name {
			names = append(names, n)
		}
	}
	s.jobsMu.Lock()
	for n, v := range s.verbs {
		if n == v.Name {
			names = append(names, n)
		}
	}
	s.jobsMu.Unlock()
	if len(withPrefix(names, word)) > 0 {
		return names
	}
	return append(s.commandWords(), realTopNames()...)
}

// helpCandidates completes `help COMMAND SUB…`: command words, then
// sub-commands, never flags.
func (s *Session) helpCandidates(rest []string, word string) []string {
	if len(rest) == 0 {
		return s.firstWords(word)
	}
	// The real CLI's grammar has every sub-command, the lab's own included.
	cur := realcli.Find(realcli.Model().Commands, rest[0])
	if cur == nil {
		return nil
	}
	for _, w := range rest[1:] {
		if cur = realcli.Find(cur.Commands, w); cur == nil {
			return nil
		}
	}
	return subCommandNames(cur)
}

// walker is where a line has got to in a command's grammar.
type walker struct {
	path    []*fisk.CmdModel // from the top-level command down
	flags   []*fisk.FlagModel
	argIdx  int
	args    map[string]string // positional values typed so far, by arg name
	pending *fisk.FlagModel   // the last word is a flag that wants a value
}

// walk follows the complete words of a line through cmd's grammar; nil when
// a word does not fit (nothing sensible to offer then).
func (s *Session) walk(ctx context.Context, cmd *natsCommand, words []string) *walker {
	c := &Call{Ctx: ctx, S: s, Out: io.Discard, Err: io.Discard, Job: &Job{}, timeout: s.timeout}
	app := newApp(c)
	cmd.build(app, c)
	return walkModel(app.Model(), words)
}

// walkModel follows words through the grammar m; nil when a word does not
// fit.
func walkModel(m *fisk.ApplicationModel, words []string) *walker {
	top := realcli.Find(m.Commands, words[0])
	if top == nil {
		return nil
	}
	w := &walker{path: []*fisk.CmdModel{top}, args: map[string]string{}}
	if m.FlagGroupModel != nil {
		w.flags = append(w.flags, m.Flags...)
	}
	w.addFlags(top)
	for _, word := range words[1:] {
		if w.pending != nil {
			w.pending = nil
			continue
		}
		if strings.HasPrefix(word, "-") && len(word) > 1 {
			w.flagWord(word)
			continue
		}
		cur := w.cur()
		if len(visibleCommands(cur)) > 0 {
			sub := realcli.Find(cur.Commands, word)
			if sub == nil {
				return nil
			}
			w.path = append(w.path, sub)
			w.addFlags(sub)
			w.argIdx = 0
			continue
		}
		if cur.ArgGroupModel != nil && w.argIdx < len(cur.Args) {
			w.args[cur.Args[w.argIdx].Name] = word
			if !cur.Args[w.argIdx].IsCumulative() {
				w.argIdx++
			}
		}
	}
	return w
}

func (w *walker) cur() *fisk.CmdModel { return w.path[len(w.path)-1] }

func (w *walker) addFlags(c *fisk.CmdModel) {
	if c.FlagGroupModel != nil {
		w.flags = append(w.flags, c.Flags...)
	}
}

// flagWord notes a flag typed in full; a flag that takes a value makes the
// next word its value.
func (w *walker) flagWord(word string) {
	if strings.HasPrefix(word, "--") {
		name, _, hasValue := strings.Cut(word[2:], "=")
		if fm := w.flag(name); fm != nil && !fm.Boolean && !hasValue {
			w.pending = fm
		}
		return
	}
	if len(word) == 2 {
		for _, fm := range w.flags {
			if fm.Short == rune(word[1]) && !fm.Boolean {
				w.pending = fm
			}
		}
	}
}

func (w *walker) flag(name string) *fisk.FlagModel {
	for _, fm := range w.flags {
		if fm.Name == name {
			return fm
		}
	}
	return nil
}

// next lists what may come at the word being typed.
func (w *walker) next(ctx context.Context, s *Session, word string) []string {
	if w.pending != nil {
		return w.pending.Completions
	}
	if strings.HasPrefix(word, "-") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(word, "--"), "="); ok && strings.HasPrefix(word, "--") {
			// --flag=val: offer the whole word, so the replacement keeps its flag.
			fm := w.flag(name)
			if fm == nil {
				return nil
			}
			var out []string
			for _, v := range fm.Completions {
				out = append(out, "--"+name+"="+v)
			}
			return out
		}
		var out []string
		for _, fm := range w.flags {
			if !fm.Hidden && (fm.Name == "help" || !strings.HasPrefix(fm.Name, "help-") && !strings.HasPrefix(fm.Name, "completion-") && fm.Name != "fisk-introspect") {
				out = append(out, "--"+fm.Name)
				if fm.Boolean && fm.Negatable {
					out = append(out, "--no-"+fm.Name)
				}
			}
		}
		return out
	}
	cur := w.cur()
	if len(visibleCommands(cur)) > 0 {
		names := subCommandNames(cur)
		if len(withPrefix(names, word)) == 0 {
			for _, c := range visibleCommands(cur) {
				names = append(names, c.Aliases...)
			}
		}
		return names
	}
	if cur.ArgGroupModel == nil || w.argIdx >= len(cur.Args) {
		return nil
	}
	return s.argCandidates(ctx, w, cur.Args[w.argIdx].Name)
}

// argCandidates offers the names that exist on the broker for an argument
// named like natscli's: stream, consumer, bucket.
func (s *Session) argCandidates(ctx context.Context, w *walker, arg string) []string {
	kind := argKind(arg)
	if kind == "" {
		return nil
	}
	object := w.path[0].Name == "object"
	// The name a create command is about to make is new: nothing to offer.
	switch w.cur().Name {
	case "add", "create", "new":
		if argKind(w.path[0].Name) == kind || ((w.path[0].Name == "kv" || object) && kind == "bucket") {
			return nil
		}
	}
	switch kind {
	case "stream":
		return s.streamNames(ctx, "")
	case "bucket":
		if object {
			return s.streamNames(ctx, "OBJ_")
		}
		return s.streamNames(ctx, "KV_")
	case "consumer":
		stream := w.args["stream"]
		if stream == "" {
			return nil
		}
		return s.consumerNames(ctx, stream)
	}
	return nil
}

func argKind(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "consumer"):
		return "consumer"
	case strings.Contains(n, "stream"):
		return "stream"
	case strings.Contains(n, "bucket"):
		return "bucket"
	}
	return ""
}

// streamNames lists the streams whose names start with prefix, with the
// prefix removed (KV_ for buckets).
func (s *Session) streamNames(ctx context.Context, prefix string) []string {
	nc, err := s.conn()
	if err != nil {
		return nil
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil
	}
	var out []string
	l := js.StreamNames(ctx)
	for n := range l.Name() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, strings.TrimPrefix(n, prefix))
		}
	}
	return out
}

func (s *Session) consumerNames(ctx context.Context, stream string) []string {
	nc, err := s.conn()
	if err != nil {
		return nil
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil
	}
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil
	}
	var out []string
	l := st.ConsumerNames(ctx)
	for n := range l.Name() {
		out = append(out, n)
	}
	return out
}

func visibleCommands(c *fisk.CmdModel) []*fisk.CmdModel {
	if c == nil || c.CmdGroupModel == nil {
		return nil
	}
	var out []*fisk.CmdModel
	for _, sc := range c.Commands {
		if !sc.Hidden {
			out = append(out, sc)
		}
	}
	return out
}

func subCommandNames(c *fisk.CmdModel) []string {
	var out []string
	for _, sc := range visibleCommands(c) {
		out = append(out, sc.Name)
	}
	return out
}

func withPrefix(list []string, prefix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func uniqueSorted(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// splitPartial splits a line that may end inside a word (or a quote) the
// way SplitWords would: the complete words, the word being typed without
// its quotes, and the byte offset where that word starts.
func splitPartial(line string) (words []string, word string, start int) {
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for i, r := range line {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' {
				escaped = true
			} else {
				cur.WriteRune(r)
			}
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			if !inWord {
				inWord = true
				start = i
			}
			switch r {
			case '\'', '"':
				quote = r
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		}
	}
	if !inWord {
		return words, "", len(line)
	}
	return words, cur.String(), start
}
