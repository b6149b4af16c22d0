package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// A deployment that needs a password, reached with the password in the URL
// as people type it: nothing natslab draws or prints shows the password,
// on a projector or in a terminal's scrollback.
func TestSecretsInServerURLsNeverShow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	const secret = "hunter2secret"
	srv, err := broker.Start(broker.Options{StoreDir: t.TempDir(), JetStream: true, Listen: "127.0.0.1:0", User: "alice", Password: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	hostPort := strings.TrimPrefix(srv.ClientURL(), "nats://")
	withSecret := "nats://alice:" + secret + "@" + hostPort
	shown := "nats://" + hostPort // the user and password go apart, and never show
	bin := natslabBinary(t)
	dir := t.TempDir()

	t.Run("lab", func(t *testing.T) {
		term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
		term.Type(fmt.Sprintf("%s --store %s --server %s; echo natslab-exit=$?", bin, filepath.Join(dir, "store"), withSecret))
		s := term.WaitText("Type help for the commands", "external "+shown+" (user and password needed)", "--user alice --password …")
		if strings.Contains(s, secret) {
			t.Errorf("the lab shows the password:\n%s", s)
		}
		term.Type("quit")
		term.WaitFor("natslab to exit", exitedRE.MatchString)
	})
	t.Run("demo", func(t *testing.T) {
		term := brokertest.StartTerminal(t, 120, 40, "HOME="+dir)
		term.Type(fmt.Sprintf("%s demo --server %s", bin, withSecret))
		s := term.WaitText("--server " + shown + " --user alice --password …")
		if strings.Contains(s, secret) {
			t.Errorf("the demo's header shows the password:\n%s", s)
		}
		term.Keys("q")
	})
	t.Run("the real CLI", func(t *testing.T) {
		// A command the lab runs through the real CLI reaches the
		// deployment with the user and password from the URL.
		cmd := exec.Command(bin, "run", "--server", withSecret, "-")
		cmd.Stdin = strings.NewReader("rtt\n")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), secret) {
			t.Errorf("rtt through the real CLI: %v\n%s", err, out)
		}
	})
	for name, url := range map[string]string{
		"a wrong password":        "nats://alice:" + secret + "-wrong@" + hostPort,
		"a URL that cannot parse": "nats://alice:" + secret + " x@" + hostPort,
		"no scheme":               "alice:" + secret + "-wrong@" + hostPort,
		"a cluster's list":        "nats://alice:" + secret + "-wrong@" + hostPort + ",nats://bob:" + secret + "@" + hostPort,
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, "run", "--server", url, "-")
			cmd.Stdin = strings.NewReader("stream ls\n")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("connecting with %s should fail:\n%s", name, out)
			}
			if strings.Contains(string(out), secret) || !strings.Contains(string(out), "cannot connect to nats://") {
				t.Errorf("the error shows the password, or not which URL:\n%s", out)
			}
		})
	}
}

// A blank secret would open the lab to anyone; a blank store would
// quietly use another. Each gets one line, before anything starts.
func TestBlankValuesAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--store", ""},
		{"--token", " "},
		{"serve", "--listen", "0.0.0.0:0", "--token", "  "},
		{"--user", "alice", "--password", " "},
		{"run", "--server", "", "-"},
	} {
		var out, errb strings.Builder
		code := run(args, strings.NewReader(""), &out, &errb)
		msg := strings.TrimSpace(errb.String())
		if code != 2 || !strings.Contains(msg, "is blank") || strings.Contains(msg, "\n") {
			t.Errorf("%q: exit %d, want 2 and one line saying the value is blank, got %q", args, code, msg)
		}
	}
}
