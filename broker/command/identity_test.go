package command

import (
	"slices"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"

	"natslab/broker/realcli"
)

// The shorts the quick look knows are exactly those the real CLI gives its
// identity flags: a new one would otherwise slip past it.
func TestIdentityShortsAreTheRealCLIs(t *testing.T) {
	var shorts []rune
	for _, f := range realcli.Model().Flags {
		if slices.Contains(identityFlags, f.Name) && f.Short != 0 {
			shorts = append(shorts, f.Short)
		}
	}
	slices.Sort(shorts)
	if got := string(shorts); got != identityShorts {
		t.Fatalf("the real CLI's identity flags have the shorts %q; identityShorts is %q", got, identityShorts)
	}
}

// Where the quick look says no, the real CLI's grammar agrees; and lines
// that do name an identity, in any spelling, are found.
func TestQuickIdentityLookAgreesWithTheGrammar(t *testing.T) {
	for _, line := range []string{
		"stream ls",
		"pub greet hi --count 3",
		"sub greet",
		"stream add S --subjects 's.>' --defaults",
		"kv put B k -- --user",
		"request svc '' --timeout 1s",
		"pub -s nats://127.0.0.1:4222 greet hi",
		"pub greet hi --server=nats://127.0.0.1:4222",
		"pub greet hi --user alice --password secret",
		"--context other stream ls",
		"sub greet --token T",
		"stream ls --creds a.creds",
		"consumer next S C -s x",
		"stream ls --tlsca ca.pem",
	} {
		words, err := shellquote.Split(line)
		if err != nil {
			t.Fatal(err)
		}
		full := false
		l := realcli.Parse(words)
		for _, f := range identityFlags {
			if _, ok := l.Flags[f]; ok {
				full = true
			}
		}
		_, quick := asAnotherClient(words)
		if quick != full {
			t.Errorf("%q: quick look says another client = %v, the real CLI's grammar %v", line, quick, full)
		}
		if full && !mayNameIdentity(words) {
			t.Errorf("%q names an identity the quick look missed", line)
		}
		if !full && strings.Contains(line, "--user") && !strings.Contains(line, "-- --user") {
			t.Errorf("%q: the grammar did not see --user", line)
		}
	}
}
