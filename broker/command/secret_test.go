package command_test

import (
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
