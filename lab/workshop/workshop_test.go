package workshop

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	gossh "golang.org/x/crypto/ssh"

	"natslab/lab"
	"natslab/lab/policy"
)

func TestRoomCodes(t *testing.T) {
	re := regexp.MustCompile(`^[` + codeAlphabet + `]{4}-[` + codeAlphabet + `]{4}$`)
	seen := map[string]bool{}
	for range 100 {
		c := NewRoomCode()
		if !re.MatchString(c) {
			t.Fatalf("room code %q is not two groups of four unambiguous characters", c)
		}
		seen[c] = true
	}
	if len(seen) < 100 {
		t.Fatalf("100 room codes gave only %d distinct ones", len(seen))
	}
	for typed, want := range map[string]bool{
		"kq4m-7xtp": true, " KQ4M-7XTP ": true, "kq4m7xtp": true,
		"kq4m-7xt": false, "kq4m-7xtpp": false, "": false, "kq4m 7xtp": false,
	} {
		if got := codeMatches(typed, "kq4m-7xtp"); got != want {
			t.Errorf("codeMatches(%q) = %v, want %v", typed, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"ada": true, "Ada.Lovelace": true, "bob_2": true, "x-y": true,
		"": false, "../x": false, ".hidden": false, "a/b": false, "a b": false,
		strings.Repeat("a", 33): false, "zoë": false,
	} {
		if err := checkName(name); (err == nil) != ok {
			t.Errorf("checkName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestABeyondLoopbackAddressGetsARoomCode(t *testing.T) {
	for _, h := range []string{"0.0.0.0", "192.0.2.7", "::", "workshop.example"} {
		if code, generated := roomFor(h, ""); code == "" || !generated {
			t.Errorf("listening on %s with no --room: code %q, generated %v; want one made up", h, code, generated)
		}
		if code, generated := roomFor(h, "given"); code != "given" || generated {
			t.Errorf("listening on %s with --room given: %q, %v", h, code, generated)
		}
	}
	for _, h := range []string{"127.0.0.1", "localhost", "::1", "127.0.0.2"} {
		if code, _ := roomFor(h, ""); code != "" {
			t.Errorf("on loopback (%s) with no --room the code is %q, want none", h, code)
		}
	}
	w := &Workshop{addr: &net.TCPAddr{IP: net.IPv4zero, Port: 2222}}
	if got := w.JoinCommand(); got != "ssh -p 2222 NAME@THIS-MACHINE" {
		t.Errorf("join command %q should say to use this machine's address", got)
	}
}

func TestABusyPortIsSaidPlainly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Start(Options{SSH: ln.Addr().String(), Store: t.TempDir()})
	if err == nil || err.Error() != "cannot listen on "+ln.Addr().String()+": the port is in use (pick another with --ssh HOST:PORT)" {
		t.Fatalf("a busy port: %v", err)
	}
}

func TestTheStoreIsLocked(t *testing.T) {
	store := t.TempDir()
	startWorkshop(t, Options{Store: store})
	if _, err := Start(Options{SSH: "127.0.0.1:0", Store: store}); err == nil || !strings.Contains(err.Error(), "another natslab workshop") {
		t.Fatalf("a second workshop on the same store: %v, want it refused", err)
	}
}

func TestWrongCodesAreRefusedThenLimited(t *testing.T) {
	w := startWorkshop(t, Options{Room: "abcd-efgh"})
	if _, err := dial(w, "eve", answer("nope")); err == nil {
		t.Fatal("a wrong room code was let in")
	}
	waitEvent(t, w, `wrong room code for "eve" from 127.0.0.1`)
	for _, e := range w.Events(maxEvents) {
		if strings.Contains(e.Text, "nope") {
			t.Fatalf("the log shows what was typed: %q", e.Text)
		}
	}
	if len(w.Rows()) != 0 {
		t.Fatalf("a wrong code made a lab: %+v", w.Rows())
	}
	// Guess after guess from one address: soon even the right code waits.
	for i := 1; i < w.tries.burst; i++ {
		if _, err := dial(w, "eve", answer(fmt.Sprintf("guess-%d", i))); err == nil {
			t.Fatal("a wrong room code was let in")
		}
	}
	if c, err := dial(w, "eve", answer("abcd-efgh")); err == nil {
		c.Close()
		t.Fatalf("after %d wrong codes in a row the right one was let in at once", w.tries.burst)
	}
	waitEvent(t, w, "too many wrong room codes")
	// Another address is not held back by eve's guesses.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", w.Addr().String())
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	}
	cc, chans, reqs, err := gossh.NewClientConn(conn, w.Addr().String(), &gossh.ClientConfig{User: "ada", Auth: []gossh.AuthMethod{answer("ABCD-EFGH")}, HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatalf("the right code from another address: %v", err)
	}
	gossh.NewClient(cc, chans, reqs).Close()
}

func TestOnlyTheLabIsServed(t *testing.T) {
	w := startWorkshop(t, Options{})
	c, err := dial(w, "ada")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func(setup func(*gossh.Session) error) (string, error) {
		s, err := c.NewSession()
		if err != nil {
			return "", err
		}
		defer s.Close()
		out := newScreenBuf()
		s.Stdout, s.Stderr = out, out
		err = setup(s)
		if err == nil {
			err = s.Wait()
		}
		return out.String(), err
	}
	out, err := run(func(s *gossh.Session) error { return s.Start("cat /etc/passwd") })
	if err == nil || !strings.Contains(out, "serves the lab only, not commands: "+fmt.Sprintf("ssh -p %d ada@127.0.0.1", w.Addr().Port)) || strings.Contains(out, "root:") {
		t.Fatalf("a command: %v, %q; want it refused", err, out)
	}
	out, err = run(func(s *gossh.Session) error { return s.Shell() })
	if err == nil || !strings.Contains(out, "needs a terminal") {
		t.Fatalf("a session without a terminal: %v, %q; want it refused", err, out)
	}
	if _, err := run(func(s *gossh.Session) error { return s.RequestSubsystem("sftp") }); err == nil {
		t.Fatal("the sftp subsystem was served")
	}
	if conn, err := c.Dial("tcp", w.Addr().String()); err == nil {
		conn.Close()
		t.Fatal("port forwarding was allowed")
	}
	if _, _, err := c.OpenChannel("x11", nil); err == nil {
		t.Fatal("an x11 channel was opened")
	}
	if len(w.Rows()) != 0 {
		t.Fatalf("refused sessions made labs: %+v", w.Rows())
	}
	bad, err := dial(w, "../etc")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	s, _ := bad.NewSession()
	out2 := newScreenBuf()
	s.Stdout, s.Stderr = out2, out2
	_ = s.RequestPty("xterm", 24, 80, nil)
	_ = s.Shell()
	// Each refusal shows the command that does work, with the address
	// the attendee reached.
	join := fmt.Sprintf("ssh -p %d ada@127.0.0.1", w.Addr().Port)
	if err := s.Wait(); err == nil || !strings.Contains(out2.String(), "cannot name a lab") || !strings.Contains(out2.String(), "("+join+")") {
		t.Fatalf("user ../etc: %v, %q; want the name refused, and %s", err, out2.String(), join)
	}
}

func TestFullWorkshopRefusesNewNamesOnly(t *testing.T) {
	w := startWorkshop(t, Options{Max: 1})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	bob := openLab(t, w, "bob")
	bob.out.waitFor(t, "the workshop is full (1 lab)")
	if err := <-bob.done; err == nil {
		t.Fatal("bob's session ended without an error status")
	}
	ada.typeLine("quit")
	<-ada.done
	again := openLab(t, w, "ada")
	again.out.waitFor(t, "Type help")
}

// waitRoom waits until cond holds of what the instructor sees, looking
// again at each change the workshop announces (Changed).
func waitRoom(t *testing.T, w *Workshop, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		ch := w.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitDrawn waits until cond holds, looking again each time the
// attendee's lab writes a frame to their terminal (the spotlight's copy of
// a frame is taken before it is written).
func waitDrawn(t *testing.T, out *screenBuf, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case <-out.new:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// streams counts name's streams; -1 while their lab is parked.
func streams(w *Workshop, name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	a := w.labs[name]
	if a == nil || a.dep == nil {
		return -1
	}
	return a.dep.Stats().Streams
}

func TestAReconnectTakesTheLabOverAndAParkedLabResumes(t *testing.T) {
	w := startWorkshop(t, Options{ParkAfter: 100 * time.Millisecond})
	first := openLab(t, w, "ada")
	first.out.waitFor(t, "Type help")
	first.typeLine(`stream add ORDERS --subjects "orders.>" --defaults`)
	waitDrawn(t, first.out, "ada's stream", func() bool { return streams(w, "ada") == 1 })

	// The same name again, while the first is still connected: the newer
	// connection gets the lab, the older is told why it ends.
	second := openLab(t, w, "ada")
	second.out.waitFor(t, "Type help")
	first.out.waitFor(t, "opened from another connection")
	<-first.done
	waitEvent(t, w, "ada connected again (from 127.0.0.1) while connected: the newer connection has the lab, the older was closed")
	if rows := w.Rows(); len(rows) != 1 || !rows[0].Connected {
		t.Fatalf("after a takeover: %+v, want ada once, connected", rows)
	}

	second.typeLine("quit")
	<-second.done
	waitEvent(t, w, "ada's lab is parked")
	if r := w.Rows()[0]; r.Connected || !r.Parked {
		t.Fatalf("ada's row after parking: %+v", r)
	}
	if n := streams(w, "ada"); n != -1 {
		t.Fatalf("a parked lab's server still runs (%d streams)", n)
	}

	third := openLab(t, w, "ada")
	third.out.waitFor(t, "Type help")
	waitEvent(t, w, "their lab was parked and runs again")
	if got := streams(w, "ada"); got != 1 {
		t.Fatalf("ada's resumed lab has %d streams, want her ORDERS back", got)
	}
}

func TestInstructorsCommandsReachTheLabs(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	bob := openLab(t, w, "bob")
	bob.out.waitFor(t, "Type help")
	bob.typeLine("quit")
	<-bob.done

	w.Broadcast("Break until 11:00")
	waitDrawn(t, ada.out, "the banner on ada's screen", func() bool {
		s, _, _, ok := w.Spotlight("ada")
		return ok && strings.Contains(s, "📣 Break until 11:00")
	})
	if _, _, _, ok := w.Spotlight("bob"); ok {
		t.Fatal("a spotlight on bob, who left")
	}

	if _, err := w.OpenLesson("no-such-lesson", ""); err == nil {
		t.Fatal("an unknown lesson opened")
	}
	if _, err := w.OpenLesson("hello", "carol"); err == nil {
		t.Fatal("a lesson opened for someone who is not here")
	}
	msg, err := w.OpenLesson("hello", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "1 away") {
		t.Fatalf("open for everyone says %q; want bob counted as away", msg)
	}
	waitRoom(t, w, "ada in lesson hello", func() bool {
		for _, r := range w.Rows() {
			if r.Name == "ada" && r.Lesson == "hello" && r.Step == 1 && r.Steps == 3 {
				return true
			}
		}
		return false
	})
	// Bob gets it when he returns, and sees the banner.
	bob = openLab(t, w, "bob")
	bob.out.waitFor(t, "Lesson 1 · hello")
	bob.out.waitFor(t, "Break until 11:00")

	var out bytes.Buffer
	if err := w.ExportCSV(&out); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][0] != "name" || recs[1][0] != "ada" || recs[1][2] != "hello" || recs[2][0] != "bob" {
		t.Fatalf("export: %q", recs)
	}
}

func TestHintsAndErrorsReachTheTable(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine("lesson hello")
	waitRoom(t, w, "ada in lesson hello", func() bool { return w.Rows()[0].Lesson == "hello" })
	ada.typeLine("hint")
	ada.typeLine("frobnicate")
	waitRoom(t, w, "a hint and an error in ada's row", func() bool {
		r := w.Rows()[0]
		return r.Hints == 1 && strings.Contains(r.LastError, `expected command but got "frobnicate"`)
	})
	r := w.Rows()[0]
	if r.Stuck {
		t.Fatalf("one error and a few seconds on a step: %+v shown as stuck", r)
	}
	ada.typeLine("frobnicate")
	ada.typeLine("frobnicate")
	waitRoom(t, w, "ada stuck after three errors on one step", func() bool { return w.Rows()[0].Stuck })
}

func TestTheRoomsHeapGrowsWithItsSize(t *testing.T) {
	p := roomPolicy(policy.Policy{GovernCores: true, MemoryLimit: policy.SoftMemoryLimit}, 50)
	if want := int64(policy.SoftMemoryLimit + 50*HeapPerAttendee); p.MemoryLimit != want || !p.GovernCores {
		t.Fatalf("room policy for 50: %+v, want the limit %d and governed cores", p, want)
	}
	if p := roomPolicy(policy.Policy{}, 50); p.MemoryLimit != 0 {
		t.Fatalf("a user's GOMEMLIMIT (no limit of ours) became %d", p.MemoryLimit)
	}
}

// The machine is the instructor's: an attendee's commands touch no file on it.
func TestAttendeesCommandsTouchNoLocalFile(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	dir := filepath.Join(t.TempDir(), "dumps")
	ada.typeLine(`sub ">" --dump ` + dir)
	waitRoom(t, w, "the --dump refused in ada's row", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "--dump names a local file")
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("ada's sub --dump made %s on the instructor's machine (stat: %v)", dir, err)
	}
}

// nats-server's configuration reads a $NAME it does not define from the
// server's environment, and a workshop's servers run in the instructor's
// process: an attendee's config add refers to no variable, so no secret of
// the instructor's (here a mapping's destination) reaches their screen.
func TestAttendeesConfigReadsNothingOfTheInstructorsEnvironment(t *testing.T) {
	secret := fmt.Sprintf("instructors-secret-%d", time.Now().UnixNano())
	t.Setenv("NATSLAB_TEST_SECRET", secret)
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine(`config add mappings { "x": $NATSLAB_TEST_SECRET }`)
	waitRoom(t, w, "the variable refused in ada's row", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "config add takes no variables")
	})
	if e := w.Rows()[0].LastError; !strings.Contains(e, "$NATSLAB_TEST_SECRET") {
		t.Errorf("the refusal does not name the variable: %q", e)
	}
	ada.typeLine(`sub ">" &`)
	ada.out.waitFor(t, "Subscribing on >")
	ada.typeLine("pub x hi")
	ada.out.waitFor(t, `Received on "x"`)
	if strings.Contains(ada.out.String(), secret) {
		t.Fatal("the instructor's secret is on ada's screen")
	}
}

// A lesson that puts files of the lab's machine into the server (object
// put) cannot run in a workshop's lab: the attendee's lesson says so in
// one line, and next passes over it.
func TestAttendeesLessonsNeedNoLocalFiles(t *testing.T) {
	w := startWorkshop(t, Options{AttendeeURLs: true})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine("lesson object-store")
	waitRoom(t, w, "lesson object-store refused in ada's row", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "lesson object-store puts files into the server and gets them back")
	})
	ada.typeLine("lesson leaf-node")
	waitRoom(t, w, "ada in leaf-node", func() bool { return w.Rows()[0].Lesson == "leaf-node" })
	ada.typeLine("next")
	waitRoom(t, w, "next after leaf-node opening services", func() bool { return w.Rows()[0].Lesson == "services" })
}

// The instructor's open stops an attendee's jobs, as any lesson's start
// does: their lab says which, not leaving a subscriber to vanish unsaid.
func TestInstructorsOpenSaysWhichJobsItStopped(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine(`sub "events.>" &`)
	ada.out.waitFor(t, "Subscribing on events.>")
	if _, err := w.OpenLesson("hello", ""); err != nil {
		t.Fatal(err)
	}
	ada.out.waitFor(t, "Your instructor opened lesson 1")
	ada.out.waitFor(t, `stopped [1] sub "events.>": lesson hello starts from its own state`)
}

// The real nats CLI's commands reach an attendee's server only when the
// workshop gives each lab a loopback listener (with a token of its own).
func TestRealCLICommandsNeedAttendeeURLs(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine("rtt")
	waitRoom(t, w, "rtt refused without a listener", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "no listener")
	})

	w = startWorkshop(t, Options{AttendeeURLs: true})
	bob := openLab(t, w, "bob")
	bob.out.waitFor(t, "Type help")
	w.mu.Lock()
	a := w.labs["bob"]
	url, token := a.dep.Access().Local, a.token
	w.mu.Unlock()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || len(token) != 32 {
		t.Fatalf("bob's listener %q with a token of %d characters; want loopback and 32", url, len(token))
	}
	if nc, err := nats.Connect(url); err == nil {
		nc.Close()
		t.Fatal("a client without bob's token reached his lab")
	}
	bob.typeLine("rtt")
	bob.out.waitFor(t, url+": ")
	if strings.Contains(bob.out.String(), token) {
		t.Fatal("bob's token is on his screen")
	}
	if r := w.Rows()[0]; r.LastError != "" {
		t.Fatalf("rtt with a listener failed: %s", r.LastError)
	}
}

// An attendee cannot start their lab anew: the node commands and the
// lesson on the lab's cluster say what is so in a workshop instead of
// telling them to start natslab with --cluster 3.
func TestClusterCommandsSayWorkshopLabsRunOneServer(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	ada.typeLine("node ls")
	waitRoom(t, w, "node ls refused in ada's row", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "node works on the lab's cluster")
	})
	if e := w.Rows()[0].LastError; !strings.Contains(e, "a workshop's labs run one server each") || strings.Contains(e, "start natslab") {
		t.Errorf("node ls in a workshop lab: %q", e)
	}
	// The lesson on the cluster says the same.
	ada.typeLine("lesson replicas")
	waitRoom(t, w, "lesson replicas refused in ada's row", func() bool {
		return strings.Contains(w.Rows()[0].LastError, "lesson replicas needs a 3-node cluster")
	})
	if e := w.Rows()[0].LastError; !strings.Contains(e, "a workshop's labs run one server each") || strings.Contains(e, "start natslab") {
		t.Errorf("lesson replicas in a workshop lab: %q", e)
	}
}

// The banner takes the lab's last row only where the lab keeps a window it
// draws in: at the lab's smallest size it would leave one row too few, and
// the lab would ask for a window larger than the attendee's, which is
// already large enough.
func TestABannerLeavesTheLabItsSmallestWindow(t *testing.T) {
	w := startWorkshop(t, Options{})
	ada := openLab(t, w, "ada")
	ada.out.waitFor(t, "Type help")
	w.Broadcast("Break until 11:00")
	waitDrawn(t, ada.out, "the banner on ada's screen", func() bool {
		s, _, _, ok := w.Spotlight("ada")
		return ok && strings.Contains(s, "📣 Break until 11:00")
	})
	minW, minH := lab.MinSize()
	if err := ada.sess.WindowChange(minH, minW); err != nil {
		t.Fatal(err)
	}
	var s string
	waitDrawn(t, ada.out, fmt.Sprintf("ada's lab drawn at %dx%d", minW, minH), func() bool {
		var width, height int
		s, width, height, _ = w.Spotlight("ada")
		return width == minW && height == minH && len(strings.Split(s, "\n")) == minH
	})
	if strings.Contains(s, "needs a window") || strings.Contains(s, "needs at least") {
		t.Errorf("at %dx%d, the lab's smallest window, with a banner:\n%s", minW, minH, s)
	}
}
