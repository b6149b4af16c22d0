package command_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/command"
)

// contains fails the test unless s holds every one of want.
func kvContains(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// TestKVFlow walks curriculum episode 17: a bucket, values, history,
// compare-and-set, delete, purge, listing and removal.
func TestKVFlow(t *testing.T) {
	l := newLab(t)

	r := l.must("kv add profiles --history 5 --description 'user profiles'")
	kvContains(t, "kv add", r.out,
		"Information for Key-Value Store Bucket profiles created ",
		"Configuration:\n",
		"            Bucket Name: profiles\n",
		"           History Kept: 5\n",
		"          Values Stored: 0\n",
		"            Description: user profiles\n",
		"       JetStream Stream: KV_profiles\n",
		"                Storage: File\n",
		"Cluster Information:\n")

	if r := l.must("kv put profiles sue.color blue"); r.out != "blue\n" {
		t.Errorf("kv put printed %q, want the value", r.out)
	}
	l.must("kv put profiles sue.color green")
	l.must("kv put profiles bob.color red")

	r = l.must("kv get profiles sue.color")
	if !regexp.MustCompile(`^profiles > sue.color revision: 2 created @ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n\ngreen\n\n$`).MatchString(r.out) {
		t.Errorf("kv get printed %q", r.out)
	}
	if r := l.must("kv get profiles sue.color --raw"); r.out != "green" {
		t.Errorf("kv get --raw printed %q", r.out)
	}
	kvContains(t, "kv get --revision 1", l.must("kv get profiles sue.color --revision 1").out, "revision: 1 created", "\n\nblue\n\n")

	r = l.must("kv history profiles sue.color")
	kvContains(t, "kv history", r.out, "History for profiles > sue.color", "│ Key       │ Revision │ Op  │", "│ sue.color │        1 │ PUT │", "│ 4      │ blue  │", "│ sue.color │        2 │ PUT │")

	// Compare-and-set: the right revision wins, a stale one is refused
	// with the revision the key is at now.
	if r := l.must("kv update profiles sue.color purple 2"); r.out != "purple\n" {
		t.Errorf("kv update printed %q", r.out)
	}
	l.fails("kv update profiles sue.color yellow 2", "compare-and-set failed: the key is at revision 4 now, not 2", "kv get profiles sue.color")
	l.must("kv update profiles sue.color yellow 0x4") // a number as fisk reads one
	// The revision is the real CLI's required argument, and a number.
	l.fails("kv update profiles sue.color pink", "error: required argument 'revision' not provided")
	l.fails("kv update profiles sue.color pink x", `nats: error: strconv.ParseUint: parsing "x": invalid syntax`, "whole number", "kv get profiles sue.color shows it")
	l.fails("kv update profiles sue.color pink 5 --revision 4", "error: unknown long flag '--revision'")
	l.fails("kv create profiles sue.color teal", "already exists", "at revision 5", "kv update profiles sue.color VALUE 5")
	if r := l.must("kv create profiles ann.color teal"); r.out != "teal\n" {
		t.Errorf("kv create printed %q", r.out)
	}

	// Delete keeps history; without --force a script is told to add it.
	l.fails("kv del profiles bob.color", "--force")
	l.must("kv get profiles bob.color")
	l.must("kv del profiles bob.color --force")
	l.fails("kv get profiles bob.color", "key bob.color in bucket profiles was deleted at revision 7", "kv history profiles bob.color")
	kvContains(t, "history after del", l.must("kv history profiles bob.color").out, "│ DELETE │")
	l.fails("kv update profiles bob.color x 3", "compare-and-set failed", "revision 7 now, where it was deleted")
	l.must("kv create profiles bob.color again")

	// Purge removes the history too.
	l.fails("kv purge profiles sue.color", "--force", "4 revisions")
	l.must("kv purge profiles sue.color -f")
	r = l.must("kv history profiles sue.color")
	kvContains(t, "history after purge", r.out, "│ PURGE │")
	if strings.Contains(r.out, "PUT") {
		t.Errorf("purge left earlier revisions:\n%s", r.out)
	}
	l.fails("kv get profiles sue.color", "was purged at revision")

	// ls: buckets, then keys.
	r = l.must("kv ls")
	kvContains(t, "kv ls", r.out, "Key-Value Buckets", "│ Bucket   │ Description   │ Created ", "│ profiles │ user profiles │")
	if r := l.must("kv ls -n"); r.out != "profiles\n" {
		t.Errorf("kv ls -n printed %q", r.out)
	}
	r = l.must("kv ls profiles")
	if got := strings.Fields(r.out); strings.Join(got, " ") != "ann.color bob.color" {
		t.Errorf("kv ls profiles printed %q", r.out)
	}
	kvContains(t, "kv ls -v", l.must("kv list profiles -v --display-value").out, "Contents for bucket 'profiles'", "│ Key ", "│ Revision │ Value │", "│ again │")
	if r := l.must("kv ls profiles 'ann.>'"); r.out != "ann.color\n" {
		t.Errorf("kv ls with a pattern printed %q", r.out)
	}
	if r := l.must("kv ls profiles 'zed.>'"); r.out != "No keys found in bucket\n" {
		t.Errorf("kv ls with no match printed %q", r.out)
	}

	// info and its aliases; without a bucket the real CLI would ask which,
	// and the note names the buckets there are.
	kvContains(t, "kv info", l.must("kv info profiles").out, "Values Stored: ", "Maximum Age: unlimited")
	l.must("kv status profiles")
	l.fails("kv info", "nats: error: cannot prompt for user input without a terminal", "name one: profiles")

	// rm deletes the bucket, only with --force.
	l.fails("kv rm profiles", "deletes the whole bucket", "--force")
	l.must("kv rm profiles --force")
	if r := l.must("kv ls"); r.out != "No Key-Value buckets found\n" {
		t.Errorf("kv ls after rm printed %q", r.out)
	}
}

// TestKVBucketOptions checks the configuration flags reach the bucket.
func TestKVBucketOptions(t *testing.T) {
	l := newLab(t)
	r := l.must("kv add cache --ttl 1d --storage memory --max-bucket-size 1KB --marker-ttl 1m")
	kvContains(t, "kv add with options", r.out,
		"Maximum Age: 1d0h0m0s\n", "Storage: Memory\n", "Maximum Value Size: unlimited\n", "Maximum Bucket Size: 1.0 KiB\n",
		"Per-Key TTL Supported: true\n", "Limit Marker TTL: 1m0s\n")
	// Same configuration again is fine, as with the real CLI.
	l.must("kv add cache --ttl 1d --storage memory --max-bucket-size 1KB --marker-ttl 1m")
	// A different one: the library's two lines, as the real CLI prints them.
	if r := l.run("kv add cache --history 3"); r.e == nil ||
		command.ErrorLine(r.e) != "nats: error: nats: bucket name already in use: cache\nnats: API error: code=400 err_code=10058 description=stream name already in use" ||
		!strings.Contains(command.ErrorNote(r.e), "already exists with a different configuration") || !strings.Contains(command.ErrorNote(r.e), "kv edit cache") {
		t.Errorf("kv add of an existing bucket, changed: %v\n%s", r.e, command.ErrorNote(r.e))
	}

	kvContains(t, "kv add --max-value-size", l.must("kv add small --max-value-size 16").out, "Maximum Value Size: 16 B\n")
	// The server's refusal is the line, the lab's words a note.
	if r := l.run("kv put small big 'this is more than sixteen bytes'"); r.e == nil ||
		!strings.HasSuffix(command.ErrorLine(r.e), "description=message size exceeds maximum allowed") ||
		!strings.Contains(command.ErrorNote(r.e), "the value is 31 B, larger than bucket small's maximum value size of 16 B") {
		t.Errorf("kv put of a value too large: %q, note %q", command.ErrorLine(r.e), command.ErrorNote(r.e))
	}
	l.fails("kv update small k abc 0", "the value (3 B) and the headers stored with it exceed", "16 B")
	l.must("kv create cache session abc --ttl 30s")
	l.fails("kv create cache other abc --ttl 500ms", "at least 1s")

	kvContains(t, "kv edit", l.must("kv edit cache --history 4 --description tmp").out, "History Kept: 4\n", "Description: tmp\n", "Maximum Age: 1d0h0m0s\n")

	l.must("kv add plain")
	l.fails("kv create plain k v --ttl 1m", "does not allow per-key TTLs", "--marker-ttl")
	l.fails("kv purge plain k -f --ttl 1m", "does not allow per-key TTLs")

	// revert puts an old value back.
	l.must("kv add hist --history 3")
	l.must("kv put hist k one")
	l.must("kv put hist k two")
	l.fails("kv revert hist k 1", "--force")
	r = l.must("kv revert hist k 1 --force")
	kvContains(t, "kv revert", r.out, "│ k   │        3 │ PUT │")
	if r := l.must("kv get hist k --raw"); r.out != "one" {
		t.Errorf("after revert the value is %q", r.out)
	}
	l.must("kv del hist k -f")
	l.must("kv compact hist --force")
}

// TestKVConfirm checks the TUI's confirm hook decides, and a refusal
// deletes nothing.
func TestKVConfirm(t *testing.T) {
	l := newLab(t)
	l.must("kv add profiles")
	l.must("kv put profiles sue.color blue")
	var asked []string
	answer := false
	s := kvConfirmSession(t, l, func(q string) bool { asked = append(asked, q); return answer })
	if r := kvRunOn(t, s, "kv del profiles sue.color"); r.out != "Skipping delete\n" || r.e != nil {
		t.Errorf("declined delete: %q %v", r.out, r.e)
	}
	l.must("kv get profiles sue.color")
	answer = true
	if r := kvRunOn(t, s, "kv rm profiles"); r.e != nil {
		t.Errorf("confirmed rm: %v", r.e)
	}
	if strings.Join(asked, "|") != "Delete key profiles > sue.color?|Delete bucket profiles?" {
		t.Errorf("questions asked: %q", asked)
	}
	l.fails("kv info profiles", "bucket profiles not found")
}

// kvConfirmSession is a second session on the lab's server that asks ask
// before destroying data, as the TUI does.
func kvConfirmSession(t *testing.T, l *lab, ask func(string) bool) *command.Session {
	s := command.NewSession(l.srv, command.WithTimeout(2*time.Second), command.WithConfirm(ask))
	t.Cleanup(s.Close)
	return s
}

// kvRunOn runs a line on another session.
func kvRunOn(t *testing.T, s *command.Session, line string) result {
	t.Helper()
	var out, errb syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e := s.Run(ctx, line, &out, &errb)
	return result{out: out.String(), err: errb.String(), e: e}
}
