package command

import (
	"strings"

	"natslab/broker"
)

// secretFlags are the real CLI's connection flags whose values are secrets
// or name where one is kept (natscli's --user takes a user name or a token),
// the plainest secret first: a line with --user and --password is said to
// carry its --password.
var secretFlags = []string{"password", "token", "seed", "nkey", "jwt", "creds", "user"}

// CarriesSecret says whether a command line holds a secret: one of the
// connection flags that take one, or a URL with user info anywhere in it.
// what names it for a one-line remark ("--password", "a URL with user
// info"); the secret itself is never part of it. The line need not be
// valid: a refused line is checked the same way.
func CarriesSecret(line string) (what string, ok bool) {
	words, err := SplitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	flag := len(secretFlags) // the plainest secret flag on the line, by its index
	for i, w := range words {
		name, isFlag := strings.CutPrefix(w, "--")
		if !isFlag {
			if w == "-s" && i+1 < len(words) && strings.Contains(words[i+1], "@") {
				return "a server URL with user info", true
			}
			continue
		}
		name, value, hasValue := strings.Cut(name, "=")
		for j, f := range secretFlags {
			if name == f && j < flag {
				flag = j
			}
		}
		if name == "server" {
			if !hasValue && i+1 < len(words) {
				value = words[i+1]
			}
			if strings.Contains(value, "@") {
				return "a server URL with user info", true
			}
		}
	}
	if flag < len(secretFlags) {
		return "--" + secretFlags[flag], true
	}
	if broker.HasUserInfo(line) {
		return "a URL with user info", true
	}
	return "", false
}
