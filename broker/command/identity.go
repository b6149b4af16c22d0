package command

import "natslab/broker/realcli"

// identityFlags are the real CLI's global flags that say who a client is
// and where it connects. The lab's own commands connect as natslab's
// clients do; a line that names another identity (a lesson's user, a
// context) runs in the real CLI, which presents exactly what was typed.
var identityFlags = []string{"user", "password", "token", "creds", "nkey", "jwt", "context", "server", "tlscert", "tlskey", "tlsca"}

// asAnotherClient reads words with the real CLI's grammar and reports
// whether they name an identity of their own.
func asAnotherClient(words []string) (realcli.Line, bool) {
	l := realcli.Parse(words)
	for _, f := range identityFlags {
		if _, ok := l.Flags[f]; ok {
			return l, true
		}
	}
	return realcli.Line{}, false
}
