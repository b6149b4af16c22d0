package command_test

import (
	"regexp"
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// kvSquash evens out table padding after Normalize: a duration such as
// "480ms" or "1.21s" is DUR in both outputs, but its column was padded to
// the real width. Lines outside tables keep their spacing.
func kvSquash(s string) string {
	lines := strings.Split(brokertest.Normalize(s), "\n")
	for i, l := range lines {
		if strings.ContainsAny(l, "│╭├╰") {
			l = kvDashes.ReplaceAllString(l, "─")
			lines[i] = kvSpaces.ReplaceAllString(l, " ")
		}
	}
	return strings.Join(lines, "\n")
}

var (
	kvDashes = regexp.MustCompile(`─+`)
	kvSpaces = regexp.MustCompile(` +`)
)

// TestKVMatchesRealCLI runs the same kv session through the real nats CLI
// and through the lab, on one server, and compares what each printed.
func TestKVMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real nats CLI")
	}
	l := newLab(t)
	url := l.srv.ClientURL()
	steps := []string{
		"kv ls",
		"kv add CONFIG --history 5",
		"kv put CONFIG app.color blue",
		"kv put CONFIG app.color green",
		"kv put CONFIG app.size large",
		"kv get CONFIG app.color",
		"kv get CONFIG app.color --raw",
		"kv get CONFIG app.color --revision 1",
		"kv history CONFIG app.color",
		"kv ls",
		"kv ls -n",
		"kv ls CONFIG",
		"kv del CONFIG app.size -f",
		"kv history CONFIG app.size",
		"kv ls CONFIG",
		"kv ls CONFIG -v --display-value",
		"kv update CONFIG app.color red 2",
		"kv create CONFIG app.mode dark",
		"kv purge CONFIG app.mode -f",
		"kv history CONFIG app.mode",
		"kv info CONFIG",
		"kv ls CONFIG 'app.*'",
		"kv ls",
	}
	// The real CLI first; then the bucket goes, and the lab replays.
	var real []brokertest.CLIResult
	for _, step := range steps {
		words, err := command.SplitWords(step)
		if err != nil {
			t.Fatal(err)
		}
		res := brokertest.RunRealCLI(t, url, words...)
		if res.ExitCode != 0 {
			t.Fatalf("real CLI: %s: exit %d\n%s%s", step, res.ExitCode, res.Stdout, res.Stderr)
		}
		real = append(real, res)
	}
	if res := brokertest.RunRealCLI(t, url, "kv", "del", "CONFIG", "-f"); res.ExitCode != 0 {
		t.Fatalf("real CLI could not remove the bucket: %s", res.Stderr)
	}
	for i, step := range steps {
		r := l.must(step)
		if got, want := kvSquash(r.out), kvSquash(real[i].Stdout); got != want {
			t.Errorf("%s: stdout differs from the real CLI's\nlab:\n%s\nreal:\n%s", step, r.out, real[i].Stdout)
		}
		if got, want := kvSquash(r.err), kvSquash(real[i].Stderr); got != want {
			t.Errorf("%s: stderr differs from the real CLI's\nlab:\n%s\nreal:\n%s", step, r.err, real[i].Stderr)
		}
	}
}
