package command

import (
	"fmt"
	"strings"

	"natslab/broker/realcli"
)

// WithNoLocalFiles refuses, in one line, every command whose flags or
// arguments read, write or run files on this machine (object put and get,
// stream backup and restore, --creds, --config, --translate, schema files
// …): in a workshop the machine is the instructor's, not the attendee's.
func WithNoLocalFiles() Option { return func(s *Session) { s.noLocalFiles = true } }

// localUse is a way a command of natscli v0.5.0 reaches the local
// filesystem: the flags and arguments that name a file or a directory (or a
// program to run), or the whole command when it always does.
type localUse struct {
	cmd    string   // a command, or a group whose every command has these flags; "" for the global flags
	flags  []string // flags whose value names a file, a directory or a program
	args   []string // arguments that name a file or a directory
	always bool     // the command itself writes or reads local files
	what   string   // for always: what it does, in a few words
}

// localFileUses is the reviewed list, read from natscli v0.5.0's commands
// (every flag and argument whose value is a file is checked against it by
// TestNoLocalFilesCoversEveryFileFlag).
var localFileUses = []localUse{
	{cmd: "", flags: []string{"creds", "nkey", "jwt", "seed", "tlscert", "tlskey", "tlsca", "translate"}},
	{cmd: "account backup", always: true, what: "writes a backup into a directory"},
	{cmd: "account restore", always: true, what: "reads a backup from a directory"},
	{cmd: "audit", always: true, what: "reads and writes audit archives"},
	{cmd: "auth account mappings add", flags: []string{"config"}},
	{cmd: "auth account query", args: []string{"output"}},
	{cmd: "auth nkey", flags: []string{"entropy", "output"}},
	{cmd: "auth nkey show", args: []string{"key"}},
	{cmd: "auth nkey sign", args: []string{"file", "key"}},
	{cmd: "auth nkey verify", args: []string{"file", "signature", "key"}},
	{cmd: "auth nkey seal", args: []string{"file", "key"}},
	{cmd: "auth nkey unseal", args: []string{"file", "key"}},
	{cmd: "auth operator import", args: []string{"token", "key"}},
	{cmd: "auth operator backup", args: []string{"output"}},
	{cmd: "auth operator restore", args: []string{"input"}},
	{cmd: "auth user add", flags: []string{"credential"}},
	{cmd: "auth user edit", flags: []string{"credential"}},
	{cmd: "auth user credential", args: []string{"file"}},
	{cmd: "backup", always: true, what: "reads and writes backups in local directories"},
	{cmd: "bench", flags: []string{"csv", "payload"}},
	{cmd: "cheat", flags: []string{"save"}},
	{cmd: "consumer add", flags: []string{"config", "output"}},
	{cmd: "consumer edit", flags: []string{"config"}},
	{cmd: "context edit", always: true, what: "opens a local editor"},
	{cmd: "errors", flags: []string{"errors"}},
	{cmd: "errors edit", always: true, what: "edits a local file"},
	{cmd: "errors validate", args: []string{"file"}},
	{cmd: "latency", flags: []string{"histogram"}},
	{cmd: "object get", always: true, what: "writes the object into a local file"},
	{cmd: "object put", args: []string{"file"}},
	{cmd: "plugins register", always: true, what: "runs a local program"},
	{cmd: "reply", flags: []string{"command"}},
	{cmd: "schema validate", args: []string{"file"}},
	{cmd: "server", flags: []string{"archive"}},
	{cmd: "server check", flags: []string{"outfile"}},
	{cmd: "server check credential", flags: []string{"credential"}},
	{cmd: "server check exporter", always: true, what: "reads local certificates and configuration"},
	{cmd: "server generate", always: true, what: "writes a configuration into a local directory"},
	{cmd: "server request profile", args: []string{"dir"}},
	{cmd: "stream add", flags: []string{"config", "output"}},
	{cmd: "stream edit", flags: []string{"config"}},
	{cmd: "stream backup", always: true, what: "writes a backup into a local directory"},
	{cmd: "stream restore", always: true, what: "reads a backup from a local directory"},
	{cmd: "subscribe", flags: []string{"dump"}},
	{cmd: "top", flags: []string{"output"}},
}

// refuseLocalFiles says why a workshop session does not run l; nil when
// it touches no local file.
func refuseLocalFiles(l realcli.Line) error {
	name := l.Name()
	refuse := func(what string) error {
		return usageErrorf("in this workshop the lab reads and writes no files on its machine, and nats %s %s: run that with your own nats CLI on your own machine", name, what)
	}
	if v := l.Flags["context"]; len(v) > 0 && (strings.HasSuffix(v[len(v)-1], ".json") || strings.ContainsAny(v[len(v)-1], `/\`)) {
		return refuse(fmt.Sprintf("--context %s names a file", v[len(v)-1]))
	}
	for _, u := range localFileUses {
		if u.cmd != "" && name != u.cmd && !strings.HasPrefix(name, u.cmd+" ") {
			continue
		}
		if u.always {
			return refuse(u.what)
		}
		for _, f := range u.flags {
			if _, ok := l.Flags[f]; ok {
				return refuse(fmt.Sprintf("--%s names a local file", f))
			}
		}
		for _, a := range u.args {
			if _, ok := l.Args[a]; ok {
				return refuse(fmt.Sprintf("<%s> names a local file", a))
			}
		}
	}
	return nil
}
