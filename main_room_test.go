package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
)

// natslab for a room (--listen 0.0.0.0:P --token X): serve, the lab's
// status bar and welcome, and the demo's header all show an address the
// room can reach and that a token is needed, and never the token.
func TestRoomURLShowsWhereTheRoomConnectsAndNeverTheToken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	ips := brokertest.HostIPv4(t)
	const token = "room-token-s3cret"
	bin := natslabBinary(t)
	roomURL := func(s string) string {
		for _, ip := range ips {
			if m := regexp.MustCompile(`nats://` + regexp.QuoteMeta(ip) + `:\d+`).FindString(s); m != "" {
				return m
			}
		}
		return ""
	}

	t.Run("serve", func(t *testing.T) {
		port := freePort(t)
		cmd := exec.Command(bin, "serve", "--store", t.TempDir(), "--listen", fmt.Sprintf("0.0.0.0:%d", port), "--token", token)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		lines := make(chan string, 1)
		var all strings.Builder
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				all.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "serving NATS at") {
					lines <- sc.Text()
				}
			}
			io.Copy(io.Discard, stderr)
		}()
		var line string
		select {
		case line = <-lines:
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not say where it serves")
		}
		if u := roomURL(line); u != fmt.Sprintf("nats://%s:%d", ips[0], port) || !strings.Contains(line, "for the room") || !strings.Contains(line, "clients need a token") || !strings.Contains(line, "--token …") {
			t.Errorf("serve should name the room's address and the token:\n%s", line)
		}
		if strings.Contains(line, token) {
			t.Errorf("serve shows the token:\n%s", line)
		}
	})

	t.Run("lab", func(t *testing.T) {
		dir := t.TempDir()
		term := brokertest.StartTerminal(t, 160, 40, "HOME="+dir)
		term.Type(fmt.Sprintf("%s --store %s --listen 0.0.0.0:%d --token %s; echo natslab-exit=$?", bin, filepath.Join(dir, "store"), freePort(t), token))
		s := term.WaitText("Type help for the commands", "(token needed)", "clients need a token")
		u := roomURL(s)
		if u == "" || !strings.Contains(s, u+" (token needed)") {
			t.Errorf("the status bar should show the room's address and that a token is needed:\n%s", s)
		}
		if strings.Contains(s, token) { // the lab's screen covers the line typed into the shell
			t.Errorf("the lab shows the token:\n%s", s)
		}
		term.Type("quit")
		term.WaitFor("natslab to exit", exitedRE.MatchString) // before the store is removed
	})

	t.Run("demo", func(t *testing.T) {
		term := brokertest.StartTerminal(t, 160, 40, "HOME="+t.TempDir())
		term.Type(fmt.Sprintf("%s demo --listen 0.0.0.0:%d --token %s", bin, freePort(t), token))
		s := term.WaitText("natslab demo", "--token …")
		if u := roomURL(s); u == "" || !strings.Contains(s, "--server "+u+" --token …") {
			t.Errorf("the demo's header should show the room's address and the token flag:\n%s", s)
		}
		if strings.Contains(s, token) {
			t.Errorf("the demo shows the token:\n%s", s)
		}
		term.Keys("q")
	})
}
