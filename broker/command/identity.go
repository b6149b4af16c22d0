package command

import (
	"strings"

	"natslab/broker/realcli"
)

// identityFlags are the real CLI's global flags that say who a client is
// and where it connects. The lab's own commands connect as natslab's
// clients do; a line that names another identity (a lesson's user, a
// context) runs in the real CLI, which presents exactly what was typed.
var identityFlags = []string{"user", "password", "token", "creds", "nkey", "jwt", "context", "server", "tlscert", "tlskey", "tlsca"}

// identityShorts are the one-letter forms of identityFlags in the real CLI
// (-s for --server).
const identityShorts = "s"

// asAnotherClient reads words with the real CLI's grammar and reports
// whether they name an identity of their own.
func asAnotherClient(words []string) (realcli.Line, bool) {
	if !mayNameIdentity(words) {
		return realcli.Line{}, false
	}
	l := realcli.Parse(words)
	for _, f := range identityFlags {
		if _, ok := l.Flags[f]; ok {
			return l, true
		}
	}
	return realcli.Line{}, false
}

// mayNameIdentity reports whether any word could be one of identityFlags.
// Only such lines are read with the real CLI's whole grammar, which the
// process builds once and which costs more than most commands take: a
// line like `stream ls` answers without it. It errs on the side of yes
// (a -s that is some command's own flag): the grammar then decides.
func mayNameIdentity(words []string) bool {
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w[2:], "=")
			for _, f := range identityFlags {
				if name == f {
					return true
				}
			}
		case len(w) > 1 && w[0] == '-' && strings.ContainsAny(w[1:], identityShorts):
			return true
		}
	}
	return false
}
