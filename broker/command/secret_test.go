package command_test

import (
	"fmt"
	"strings"
	"testing"

	"natslab/broker/command"
)

// The remark names the plainest secret a line carries, whatever order the
// flags come in: a user name beside a password is not what makes it secret.
func TestCarriesSecretNamesThePlainestSecret(t *testing.T) {
	for line, want := range map[string]string{
		"stream ls --user alice --password=hunter2":   "--password",
		"stream ls --password hunter2 --user alice":   "--password",
		"sub x --user alice --creds /tmp/alice.creds": "--creds",
		"sub x --user s3cr3t-token":                   "--user", // natscli's --user takes a token too
		"pub x --token hunter2":                       "--token",
		"pub x --server nats://alice:hunter2@h:4222":  "a server URL with user info",
		"pub x 'see nats://hunter2@127.0.0.1:4222'":   "a URL with user info",
		"pub greet --password":                        "--password", // a refused line is checked the same way
	} {
		what, ok := command.CarriesSecret(line)
		if !ok || what != want {
			t.Errorf("%s: %q %v, want %q", line, what, ok, want)
		}
	}
	if what, ok := command.CarriesSecret("pub greet 'user password'"); ok {
		t.Errorf("a plain line is said to carry %q", what)
	}
}

// Where the lab repeats a typed line, each secret is masked and the rest
// is as typed: quotes, spacing, a user name beside its password.
func TestRedactLineMasksEverySecretAndKeepsTheRest(t *testing.T) {
	for line, want := range map[string]string{
		"stream ls --user alice --password=hunter2":       "stream ls --user alice --password=xxxxx",
		"sub 'a b'  --password hunter2 --count 2":         "sub 'a b'  --password xxxxx --count 2",
		"sub x --token 'hunter 2' &":                      "sub x --token xxxxx &",
		"sub x --user s3cr3t-token":                       "sub x --user xxxxx",
		"pub x -s nats://alice:hunter2@localhost:4222 hi": "pub x -s nats://alice:xxxxx@localhost:4222 hi",
		"pub x 'see nats://hunter2@127.0.0.1:4222'":       "pub x 'see nats://xxxxx@127.0.0.1:4222'",
		"pub x --seed=SUAhunter2 --jwt ey.hunter2":        "pub x --seed=xxxxx --jwt xxxxx",
		"pub greet --password":                            "pub greet --password",
		"bogus --server alice:hunter2@localhost":          "bogus --server xxxxx@localhost",
		"bogus --server=alice:hunter2@localhost":          "bogus --server=xxxxx@localhost",
		"pub greet 'user password'":                       "pub greet 'user password'",
	} {
		if got := command.RedactLine(line); got != want {
			t.Errorf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
}

// A job started with a secret on its line (the real CLI's sub, logging in
// with a password) is listed and stopped with the secret masked.
func TestJobsNeverShowTheirSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	j, out := l.background("sub sec --user bob --password hunter2")
	l.await("the job's subscription", func() bool { return strings.Contains(out.String(), "Subscribing on sec") })
	listed := l.must("jobs").out
	stopped := l.must(fmt.Sprintf("stop %d", j.ID)).out
	<-j.Done()
	for what, text := range map[string]string{"jobs": listed, "stop": stopped} {
		if strings.Contains(text, "hunter2") || !strings.Contains(text, "sub sec --user bob --password xxxxx") {
			t.Errorf("%s shows the job as:\n%s", what, text)
		}
	}
}
