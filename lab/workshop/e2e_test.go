package workshop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// The end-to-end test: the built natslab binary runs `natslab workshop` in
// a real terminal (tmux), and attendees join it with the real OpenSSH
// client in terminals of their own, answering the room-code prompt by
// typing, as people would. Skipped only when tmux or ssh is missing
// (.ci/run installs both).

// room is a workshop in a terminal of its own and one terminal per
// attendee, each a shell the test types into (brokertest.Terminal).
type room struct {
	t     *testing.T
	dir   string
	bin   string
	port  string
	terms map[string]*brokertest.Terminal
}

func (r *room) term(name string) *brokertest.Terminal {
	r.t.Helper()
	x, ok := r.terms[name]
	if !ok {
		x = brokertest.StartTerminal(r.t, 120, 40, "HOME="+r.dir)
		r.terms[name] = x
	}
	return x
}

func (r *room) screen(win string) string { return r.term(win).Screen() }

func (r *room) typeLine(win, text string) { r.t.Helper(); r.term(win).Type(text) }

func (r *room) waitFor(win, what string, cond func(string) bool) string {
	r.t.Helper()
	return r.term(win).WaitFor(what+" in "+win+"'s terminal", cond)
}

func (r *room) waitText(win string, want ...string) string {
	r.t.Helper()
	return r.term(win).WaitText(want...)
}

// ssh runs OpenSSH as name in a terminal of its own, with no user
// configuration and no keys, so that only the room code can let it in.
func (r *room) ssh(win, name string) {
	r.t.Helper()
	r.typeLine(win, fmt.Sprintf("ssh -F none -p %s -o StrictHostKeyChecking=no -o UserKnownHostsFile=%s -o PubkeyAuthentication=no -o NumberOfPasswordPrompts=1 %s@127.0.0.1; echo ssh-ended",
		r.port, filepath.Join(r.dir, "known_hosts"), name))
}

// join connects name and answers the room-code prompt with code.
func (r *room) join(win, name, code string) {
	r.t.Helper()
	r.ssh(win, name)
	r.waitText(win, "Room code:")
	r.typeLine(win, code)
}

var portRE = regexp.MustCompile(`ssh -p (\d+) NAME@127\.0\.0\.1`)

func startRoom(t *testing.T, code string) *room {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux over ssh")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed (.ci/run installs openssh-client)")
	}
	dir := t.TempDir()
	r := &room{t: t, dir: dir, bin: filepath.Join(dir, "natslab"), terms: map[string]*brokertest.Terminal{}}
	if out, err := exec.Command("go", "build", "-o", r.bin, "natslab").CombinedOutput(); err != nil {
		t.Fatalf("building natslab: %v\n%s", err, out)
	}
	r.terms["instructor"] = brokertest.StartTerminal(t, 150, 45, "HOME="+dir)
	r.typeLine("instructor", fmt.Sprintf("%s workshop --store %s --ssh 127.0.0.1:0 --room %s; echo workshop-ended", r.bin, filepath.Join(dir, "store"), code))
	s := r.waitText("instructor", "attendees type ssh -p")
	m := portRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no ssh command on the instructor's screen:\n%s", s)
	}
	r.port = m[1]
	return r
}

// tableRow is the instructor's table row of name ("" when absent).
func tableRow(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(strings.TrimLeft(l, "! "))
		if len(f) > 1 && f[0] == name {
			return l
		}
	}
	return ""
}

func TestWorkshopOverSSH(t *testing.T) {
	const code = "kq4m-7xtp"
	r := startRoom(t, code)

	r.join("alice", "alice", code)
	r.waitText("alice", "Type help for the commands")
	r.join("bob", "bob", code)
	r.waitText("bob", "Type help for the commands")

	// Each attendee's streams are their own.
	r.typeLine("alice", `stream add ALICE --subjects "alice.>" --defaults`)
	r.waitText("alice", "Active Consumers: 0")
	r.typeLine("bob", `stream add BOB --subjects "bob.>" --defaults`)
	r.waitText("bob", "Active Consumers: 0")
	r.typeLine("alice", "clear")
	r.typeLine("alice", "stream ls")
	s := r.waitText("alice", "ALICE", "Streams")
	if strings.Contains(s, "BOB") {
		t.Fatalf("alice sees bob's stream:\n%s", s)
	}
	r.typeLine("bob", "clear")
	r.typeLine("bob", "stream ls")
	s = r.waitText("bob", "BOB", "Streams")
	if strings.Contains(s, "ALICE") {
		t.Fatalf("bob sees alice's stream:\n%s", s)
	}

	// Bob opens a lesson and ticks its first step; the instructor's table
	// shows both attendees, and bob on step 2 of 3.
	r.typeLine("bob", "lesson hello")
	r.waitText("bob", "Lesson 1 · hello")
	r.typeLine("bob", "sub greet &")
	// The lesson pane folds to the next step once one ticks.
	r.waitText("bob", "Step 2 of 3 · 1 done")
	s = r.waitFor("instructor", "bob on step 2/3 of hello", func(s string) bool {
		f := strings.Fields(tableRow(s, "bob"))
		return len(f) >= 4 && f[1] == "yes" && f[2] == "hello" && f[3] == "2/3"
	})
	if f := strings.Fields(tableRow(s, "alice")); len(f) < 3 || f[1] != "yes" || f[2] != "sandbox" {
		t.Fatalf("alice's row is %q, want connected, in the sandbox:\n%s", tableRow(s, "alice"), s)
	}

	// A wrong room code gets no lab: refused, no row, no store.
	r.join("eve", "eve", "not-the-code")
	r.waitText("eve", "Permission denied", "ssh-ended")
	s = r.waitText("instructor", `wrong room code for "eve"`)
	if tableRow(s, "eve") != "" {
		t.Fatalf("eve has a row after a wrong code:\n%s", s)
	}
	if strings.Contains(s, "not-the-code") {
		t.Fatalf("the instructor's screen shows what eve typed:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "store", attendeesDir, "eve")); !os.IsNotExist(err) {
		t.Fatalf("eve has a store after a wrong code (stat: %v)", err)
	}
	for _, who := range []string{"alice", "bob"} {
		if strings.Contains(r.screen(who), code) {
			t.Fatalf("the room code is on %s's screen", who)
		}
	}

	// Alice leaves and comes back: her stream is there.
	r.typeLine("alice", "quit")
	r.waitText("alice", "ssh-ended")
	r.waitFor("instructor", "alice shown as left", func(s string) bool {
		return strings.Contains(tableRow(s, "alice"), "left")
	})
	r.join("alice2", "alice", code)
	r.waitText("alice2", "Type help for the commands")
	r.typeLine("alice2", "stream ls")
	s = r.waitText("alice2", "ALICE", "Streams")
	if strings.Contains(s, "BOB") {
		t.Fatalf("alice sees bob's stream after reconnecting:\n%s", s)
	}
	r.waitFor("instructor", "alice connected again", func(s string) bool {
		f := strings.Fields(tableRow(s, "alice"))
		return len(f) > 1 && f[1] == "yes"
	})

	// The instructor ends the workshop: every attendee is told.
	r.typeLine("instructor", "quit")
	r.waitText("instructor", "workshop-ended")
	s = r.waitText("bob", "the workshop has ended", "ssh-ended")
	if strings.Contains(s, "closed by remote host") || strings.Contains(s, "Connection reset") {
		t.Errorf("bob's ssh saw its connection cut rather than closed:\n%s", s)
	}
}
