package command_test

import (
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// TestKVErrors checks every common mistake gets one line that names the
// problem and the fix.
func TestKVErrors(t *testing.T) {
	l := newLab(t)

	// No buckets at all, then one to suggest.
	l.fails("kv get profiles sue.color", "bucket profiles not found: there are no buckets yet", "kv add profiles")
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")
	l.fails("kv get profile sue.color", "bucket profile not found: did you mean profiles?", "buckets: profiles")
	l.fails("kv get KV_profiles sue.color", "KV_profiles is the stream under bucket profiles", "bucket's name: profiles")
	l.fails("kv ls nope", "bucket nope not found")
	l.fails("kv info nope", "bucket nope not found")
	l.fails("kv watch nope", "bucket nope not found")

	// Missing keys: did-you-mean, revisions that are not kept.
	l.fails("kv get profiles sue.colour", "key sue.colour not found in bucket profiles: did you mean sue.color?", "keys: sue.color")
	l.fails("kv history profiles bob", "key bob not found in bucket profiles")
	l.fails("kv history profiles 'bob.*'", "nats: error: nats: key not found", "no key in bucket profiles matches bob.* (keys: sue.color)")
	l.fails("kv get profiles sue.color --revision 9", "key sue.color has no revision 9", "revisions kept: 1")
	// The real CLI writes a delete marker for any key: the lab notes a typo.
	if r := l.must("kv del profiles sue.colr -f"); !strings.Contains(r.note, "key sue.colr not found in bucket profiles: did you mean sue.color?") || !strings.Contains(r.note, "writes a delete marker for it all the same") {
		t.Errorf("kv del of a key never written should say so in a note: %q", r.note)
	}
	l.fails("kv update profiles ann.color x 3", "compare-and-set failed: key ann.color does not exist", "kv create profiles ann.color")
	l.fails("kv update profiles sue.color x 0", "compare-and-set failed", "is at revision 1 now")

	// Names: which character is wrong.
	l.fails("kv put profiles 'sue color' blue", `invalid key "sue color": a space at position 4`, "like sue.color")
	l.fails("kv put profiles 'sue.*' blue", `'*' at position 5`, "wildcards")
	l.fails("kv put profiles sue..color blue", "two dots in a row")
	l.fails("kv put profiles .sue blue", "starts with a dot")
	l.fails("kv put profiles 'sue#1' blue", `'#' at position 4`)
	l.fails("kv add my.app", `invalid bucket name "my.app": '.' at position 3`, "for example my_app")
	l.fails("kv watch profiles 'sue.>.x'", "> must be the last token")
	l.fails("kv ls profiles 'sue.>.x'", "nats: error: nats: invalid key: key cannot be empty and must be a valid NATS subject", "> must be the last token")
	// sue* is a subject, no wildcard: the library lists what matches it
	// (nothing), and the lab says why.
	if r := l.must("kv ls profiles 'sue*'"); r.out != "No keys found in bucket\n" || !strings.Contains(r.note, "mixes a wildcard with text") {
		t.Errorf("kv ls profiles 'sue*': %q, note %q", r.out, r.note)
	}

	// Flags: durations in natscli's syntax, sizes, limits.
	l.fails("kv add cache --ttl 10", "--ttl wants a duration with a unit", `"10"`)
	l.fails("kv add cache --ttl 50ms", "nats: error: nats: API error: code=500 err_code=10052 description=max age needs to be >= 100ms", "--ttl is too short")
	l.fails("kv add cache --ttl=-5m", "nats: error: nats: API error: code=500 err_code=10052 description=max age can not be negative", "--ttl cannot be negative")
	l.fails("kv add cache --marker-ttl=-1s", "nats: error: nats: API error: code=500 err_code=10052 description=subject delete marker TTL must not be negative", "--marker-ttl cannot be negative")
	l.fails("kv add cache --history 70", "nats: error: history: must be less than or equal to 64", "--history", "from 1 to 64; got 70")
	l.fails("kv add cache --history 0", "nats: error: history: must be greater than or equal to 1")
	l.fails("kv add cache --replicas 3", "nats: error: nats: API error: code=500 err_code=10074 description=replicas > 1 not supported in non-clustered mode", "single server", "--replicas 1")
	l.fails("kv add cache --replicas 9", "nats: error: nats: API error: code=500 err_code=10052 description=maximum replicas is 5", "up to 5")
	l.fails("kv add cache --max-value-size 1x", "nats: error: invalid bytes specification 1x: bytes must end in B, K, KB, M, MB, G, GB, T or TB", "--max-value-size wants a size", `"1x"`)
	l.fails("kv add cache --max-value-size 3GB", "--max-value-size", "too large")
	l.fails("kv add cache --storage disk", "--storage wants one of file, f, memory, m")
	// natscli republishes only with a destination: a source alone is ignored.
	if r := l.must("kv add cache --republish-source 'a.>'"); strings.Contains(r.out, "Republishing") || !strings.Contains(r.note, "ignored without --republish-destination") {
		t.Errorf("republish source alone:\n%s\nnote: %q", r.out, r.note)
	}
	l.must("kv rm cache --force")
	l.must("kv add cache --ttl 1w")
	l.fails("kv create profiles k v --ttl 1m", "does not allow per-key TTLs")

	// Sub-commands and arguments.
	l.fails("kv", "kv needs a sub-command", "add", "watch")
	l.fails("kv ad x", `kv has no sub-command "ad": did you mean add?`)
	l.fails("kv get profiles", "kv get needs <key>", "kv get profiles sue.color")
	l.fails("kv revert profiles sue.color two --force", "whole number")
}

// TestKVJetStreamOff checks the kv commands say JetStream is off.
func TestKVJetStreamOff(t *testing.T) {
	l := newLab(t, brokertest.WithoutJetStream())
	// The real CLI's lines against nats-server without -js; the lab's
	// words are the note.
	noResponders := "nats: error: nats: no responders available for request\n"
	for line, real := range map[string]string{
		"kv ls":                          noResponders,
		"kv add profiles":                "nats: error: nats: API error: code=503 err_code=10076 description=jetstream not enabled\n",
		"kv get profiles sue.color":      noResponders,
		"kv put profiles sue.color blue": noResponders,
		"kv watch profiles":              noResponders,
		"kv info":                        noResponders,
		"kv rm profiles -f":              noResponders,
	} {
		l.fails(line, real, "JetStream is off", "nats-server -js")
	}
}
