package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/nats-io/nats-server/v2/conf"

	"natslab/broker/text"
)

func init() {
	addBuiltin(Verb{
		Name:     "config",
		Usage:    "config [reload|add TEXT]",
		Summary:  "Show the lab's nats-server configuration file, read it again after an edit (reload), or add TEXT to it and reload",
		Run:      runConfig,
		Complete: func(args []string) []string { return configWords(args) },
	})
}

func configWords(args []string) []string {
	if len(args) > 0 {
		return nil
	}
	return []string{"reload", "add"}
}

// runConfig shows or changes the configuration the lab's server runs
// with: a lesson's users, permissions and mappings are nats-server's own
// configuration, read and reloaded the way nats-server does.
func runConfig(c *Call, args []string) error {
	if err := embeddedOnly(c, "config"); err != nil {
		return err
	}
	dep := c.S.dep
	switch {
	case len(args) == 0:
		path, text := dep.Config()
		if path != "" {
			fmt.Fprintf(c.Out, "# %s\n", path)
		}
		fmt.Fprint(c.Out, text)
		return nil
	case args[0] == "reload" && len(args) == 1:
		return c.S.reloadConfig(c, dep.ReloadConfig)
	case args[0] == "add" && len(args) > 1:
		add := rawAfter(c.Job.Line, "add")
		if c.S.noLocalFiles {
			if ref := configVariable(add); ref != "" {
				return usageErrorf("in this workshop config add takes no variables: nats-server would read %s from the environment of the instructor's machine; write the value itself (in quotes a $ is only a character)", ref)
			}
			if what := configNamesFiles(add); what != "" {
				return usageErrorf("in this workshop the lab reads and writes no files on its machine, and config add %s: include only the lesson's own files, like include \"files/canary.conf\"", what)
			}
		}
		path, _ := dep.Config()
		if path == "" {
			return c.S.reloadConfig(c, func() error { return dep.Configure(add) })
		}
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(old)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if err := os.WriteFile(path, []byte(text+add+"\n"), 0o644); err != nil {
			return err
		}
		return c.S.reloadConfig(c, dep.ReloadConfig)
	case args[0] == "add":
		return usageErrorf("config add takes the text to add, in nats-server's syntax: config add mappings { \"greet.*\": \"hello.{{wildcard(1)}}\" }")
	}
	return usageErrorf("config takes reload, add TEXT, or nothing (to show the file), not %q", strings.Join(args, " "))
}

// Settings of nats-server's configuration that name a file or a directory
// on the server's machine: pid_file, log_file, cert_file, store_dir,
// ports_file_dir, a resolver's dir, an operator's JWT.
var fileSettingRE = text.Pattern(`(?i)\b([a-z_]*_file|[a-z_]*_dir|dir|operator|trusted_keys|trusted)\b\s*[:=]?`)

// includeRE is an include directive and the path it names.
var includeRE = text.Pattern(`(?i)\binclude\s+(?:"([^"]*)"|'([^']*)'|([^\s;,}]+))`)

// includeWordRE is the word include, with or without a path after it.
var includeWordRE = text.Pattern(`(?i)\binclude\b`)

// configNamesFiles says how text, added to the configuration, would make
// the server read or write a file outside the lesson's own directory:
// an include of a path that is absolute or climbs out (..), or a setting
// that names a file or a directory. "" when it names none.
func configNamesFiles(text string) string {
	if m := fileSettingRE().FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("%s names a file or a directory", m[1])
	}
	includes := includeRE().FindAllStringSubmatch(text, -1)
	if n := len(includeWordRE().FindAllString(text, -1)); n != len(includes) {
		return "include names a file"
	}
	for _, m := range includes {
		path := m[1] + m[2] + m[3]
		if !filepath.IsLocal(path) {
			return fmt.Sprintf("include %q names a file outside the lesson's directory", path)
		}
	}
	// What the lessons configure is users, accounts and mappings; the
	// rest (listen, http, leafnodes, cluster …) would open ports or
	// connections from the instructor's machine. Text the parser refuses
	// is left to the server, which refuses it the same.
	m, err := conf.Parse(includeRE().ReplaceAllString(text, ""))
	if err != nil {
		return ""
	}
	for k := range m {
		if !workshopConfigKeys[strings.ToLower(k)] {
			return fmt.Sprintf("sets %s, and a workshop lab's configuration takes authorization, accounts, mappings, no_auth_user and include only", k)
		}
	}
	return ""
}

// configVariable is a variable the configuration text refers to ($NAME)
// and does not define itself, or "". nats-server resolves such a
// reference from the server process's environment, which in a workshop
// is the instructor's: a mapping's destination or a user's password
// would carry a secret of theirs back to an attendee. The parser itself
// says which $ are references (a quoted "$JS.API.>" is none): the text is
// read once as it is and once with every name after a $ defined ahead of
// it, which the environment cannot reach; where the two differ, or only
// the second reads, a reference reached the environment.
func configVariable(text string) string {
	var words, names []string
	for _, m := range configVariableRE().FindAllStringSubmatch(text, -1) {
		words, names = append(words, m[0]), append(names, m[1])
	}
	if len(names) == 0 || !readsEnvironment(text, names, names) {
		return ""
	}
	for i, name := range names {
		if readsEnvironment(text, names, []string{name}) {
			return words[i]
		}
	}
	return words[0]
}

// readsEnvironment says whether text, read by nats-server with the
// variables names defined ahead of it, would look one of these up in the
// environment.
func readsEnvironment(text string, names, these []string) bool {
	defined, derr := conf.Parse(configDefinitions(names, nil) + text)
	without, err := conf.Parse(configDefinitions(names, these) + text)
	if err != nil {
		// Text that does not parse either way is left to the server, which
		// says where; unless what failed was reading a variable.
		return derr == nil || strings.Contains(err.Error(), "variable reference")
	}
	if derr != nil {
		return true
	}
	for _, name := range these {
		if _, set := without[name]; !set {
			delete(defined, name)
		}
	}
	return !reflect.DeepEqual(defined, without)
}

// configDefinitions defines the variables names but those in except. A
// key in single quotes is read as it is, and no name holds one.
func configDefinitions(names, except []string) string {
	var b strings.Builder
	for _, name := range names {
		if !slices.Contains(except, name) {
			fmt.Fprintf(&b, "'%s': %q\n", name, configUnresolved)
		}
	}
	return b.String()
}

// configVariableRE is a $ and the name after it, as nats-server's
// configuration lexer ends an unquoted value.
var configVariableRE = text.Pattern(`\$([^ \t\r\n,;\]}']*)`)

// configUnresolved is the value configVariable gives every name it defines.
const configUnresolved = "natslab: not from the environment"

// workshopConfigKeys are the top-level settings config add takes in a
// workshop: those the lessons use.
var workshopConfigKeys = map[string]bool{"authorization": true, "accounts": true, "mappings": true, "no_auth_user": true, "system_account": true}

// rawAfter is what follows word in line as typed: quotes and braces kept,
// as the configuration syntax needs them.
func rawAfter(line, word string) string {
	i := strings.Index(line, word)
	return strings.TrimSpace(line[i+len(word):])
}

// reloadConfig applies a configuration change and prints what the server
// logged about it (its Reloaded: lines, as nats-server --signal reload
// logs). It returns once the lab is ready for the next line (Reloading):
// nats-server disconnects the clients a reload no longer lets in, and a
// restart (where accounts change) drops every client until it reconnects.
func (s *Session) reloadConfig(c *Call, apply func() error) error {
	log := s.dep.Log()
	mark := log.Total()
	err := s.Reloading(apply)
	var notReady *NotReadyError
	if err != nil && !errors.As(err, &notReady) {
		return err
	}
	// The change was applied: what the server said of it is shown even
	// when the lab was not ready in time, which err then says after it.
	lines, _ := log.Since(mark)
	reloaded := false
	for _, l := range lines {
		if strings.Contains(l, "Reloaded") {
			fmt.Fprintln(c.Out, l)
			reloaded = true
		}
	}
	if !reloaded {
		c.Statusf("The lab restarted its server with the configuration (where accounts change, it restarts rather than reloads)")
	}
	return err
}
