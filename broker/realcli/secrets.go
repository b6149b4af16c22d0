package realcli

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// A process's arguments are public on most systems: any user of the
// machine reads them with ps. The child's arguments are the line a learner
// typed, which may carry a secret (sub greet --password hunter2, a server
// URL with user info), so the child is started with those words masked,
// and their values travel in its environment, which only its own user may
// read; the child puts them back before the real CLI reads its line, so
// the real CLI runs the very line typed.

// secretsVar names the environment variable that carries the masked
// words: a JSON object from the word's index in the arguments to the word.
const secretsVar = "NATSLAB_CLI_SECRETS"

// maskedWord is what a masked word shows in the child's arguments.
const maskedWord = "******"

// secretValueFlags are the real CLI's flags whose value is a secret, or
// may be one (--user takes a token too).
var secretValueFlags = map[string]bool{"password": true, "token": true, "user": true, "seed": true, "jwt": true}

// maskSecrets returns args with each secret word masked, and the masked
// words by index ("" when there is none).
func maskSecrets(args []string) (masked []string, secrets string) {
	hidden := map[string]string{}
	masked = append([]string(nil), args...)
	for i, w := range args {
		if name, value, ok := strings.Cut(strings.TrimPrefix(w, "--"), "="); strings.HasPrefix(w, "--") && ok && secretValueFlags[name] && value != "" {
			hidden[strconv.Itoa(i)] = w
			masked[i] = "--" + name + "=" + maskedWord
			continue
		}
		if i > 0 && strings.HasPrefix(args[i-1], "--") && secretValueFlags[args[i-1][2:]] || hasUserInfo(w) {
			hidden[strconv.Itoa(i)] = w
			masked[i] = maskedWord
		}
	}
	if len(hidden) == 0 {
		return args, ""
	}
	b, err := json.Marshal(hidden)
	if err != nil {
		return args, ""
	}
	return masked, string(b)
}

// hasUserInfo reports whether a word holds a URL with user info
// (nats://user:password@host, nats://token@host), alone or in a list.
func hasUserInfo(w string) bool {
	for _, u := range strings.Split(w, ",") {
		_, rest, ok := strings.Cut(u, "://")
		if !ok {
			continue
		}
		host, _, _ := strings.Cut(rest, "/")
		if strings.Contains(host, "@") {
			return true
		}
	}
	return false
}

// unmaskSecrets is the child's end: args as the lab was given them.
func unmaskSecrets(args []string) []string {
	enc := os.Getenv(secretsVar)
	os.Unsetenv(secretsVar)
	if enc == "" {
		return args
	}
	var hidden map[string]string
	if json.Unmarshal([]byte(enc), &hidden) != nil {
		return args
	}
	out := append([]string(nil), args...)
	for k, w := range hidden {
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(out) {
			out[i] = w
		}
	}
	return out
}
