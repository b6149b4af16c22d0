package command_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// The real CLI's commands the lab has no code for run the real CLI's own
// code in a child process: what they print must be what `nats` prints
// against the same kind of server.
func TestPassthroughObjectStoreMatchesRealCLI(t *testing.T) {
	l := newLab(t)
	peer := brokertest.Start(t)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("NATS object store notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"object add FILES",
		"object put FILES " + file + " --name notes.txt --no-progress",
		"object ls FILES",
		"object info FILES notes.txt",
		"obj ls",
		"object get FILES missing.txt",
	}
	for _, line := range lines {
		got := l.run(line)
		want := brokertest.RunRealCLI(t, peer.ClientURL(), strings.Fields(line)...)
		if g, w := brokertest.Normalize(got.out), brokertest.Normalize(want.Stdout); g != w {
			t.Errorf("%s: stdout differs from the real CLI's\nlab:\n%s\nreal:\n%s", line, g, w)
		}
		if g, w := brokertest.Normalize(got.err), brokertest.Normalize(want.Stderr); g != w {
			t.Errorf("%s: stderr differs from the real CLI's\nlab:\n%s\nreal:\n%s", line, g, w)
		}
		if failed := got.e != nil; failed != (want.ExitCode != 0) {
			t.Errorf("%s: lab error %v, real CLI exit status %d", line, got.e, want.ExitCode)
		}
		if got.e != nil && !command.Reported(got.e) {
			t.Errorf("%s: the real CLI's failure %v is not marked as printed already", line, got.e)
		}
	}
}

func TestPassthroughHelpIsTheRealCLIs(t *testing.T) {
	l := newLab(t)
	peer := brokertest.Start(t)
	for line, real := range map[string][]string{
		"help object put":   {"help", "object", "put"},
		"object put --help": {"object", "put", "--help"},
		"nats obj put -h":   {"obj", "put", "-h"},
		"help stream copy":  {"help", "stream", "copy"},
		"help server":       {"help", "server"},
	} {
		want := brokertest.RunRealCLI(t, peer.ClientURL(), real...)
		if got := l.must(line); got.out != want.Stdout || want.Stdout == "" {
			t.Errorf("%s:\n%s\nwant the real CLI's:\n%s", line, got.out, want.Stdout)
		}
	}
}

// A failure the real CLI printed itself is counted once and never printed
// a second time by natslab run.
func TestPassthroughFailureIsPrintedOnce(t *testing.T) {
	l := newLab(t)
	var out, errb syncBuf
	res, err := script.Run(context.Background(), l.s, strings.NewReader("object add FILES\nobject get FILES missing.txt\n"), command.Streams{Out: &out, Err: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 {
		t.Errorf("failed lines: %d, want 1", res.Failed)
	}
	if got := errb.String(); got != "nats: error: nats: object not found\n" {
		t.Errorf("stderr:\n%q\nwant the real CLI's one error line", got)
	}
}

func TestPassthroughRefusals(t *testing.T) {
	t.Run("no listener", func(t *testing.T) {
		l := newLab(t, brokertest.InProcessOnly())
		r := l.run("object ls")
		if r.e == nil || !command.IsUsage(r.e) || !strings.Contains(r.e.Error(), "--listen none") {
			t.Fatalf("object ls with --listen none: %v", r.e)
		}
		// Help needs no server.
		if r := l.must("object ls --help"); !strings.Contains(r.out, "usage: nats object ls") {
			t.Errorf("help without a listener:\n%s", r.out)
		}
	})
	l := newLab(t)
	l.must("context add lab")
	errorsFile := filepath.Join(t.TempDir(), "errors.json")
	if err := os.WriteFile(errorsFile, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"top n1":                         "top --output FILE",
		"bench pub x --msgs 10":          "--no-progress",
		"bench js pub sync x --progress": "--no-progress",
		"context edit lab":               "context add NAME",
		"errors edit " + errorsFile:      "editor",
	} {
		r := l.run(line)
		if r.e == nil || !command.IsUsage(r.e) || !strings.Contains(r.e.Error(), want) {
			t.Errorf("%s: %v, want a refusal naming %q", line, r.e, want)
		}
		if r.out != "" || r.err != "" {
			t.Errorf("%s printed before its refusal: %q %q", line, r.out, r.err)
		}
	}
}

// An editor line naming what does not exist fails in the real CLI's own
// words, as it does before it would look for an editor; the lab's note on
// editors follows.
func TestPassthroughEditorLineNamingNothingFailsAsTheRealCLI(t *testing.T) {
	l := newLab(t)
	missing := filepath.Join(t.TempDir(), "errors.json")
	for line, want := range map[string]string{
		"context edit nosuch":    "nats: error: unknown context \"nosuch\"\n",
		"context edit ../x":      "nats: error: unknown context \"../x\"\n",
		"errors edit " + missing: "nats: error: path '" + missing + "' does not exist\n",
	} {
		r := l.run(line)
		if r.err != want || r.out != "" || !command.Reported(r.e) {
			t.Errorf("%s: %v\nstdout %q\nstderr %q\nwant the real CLI's %q", line, r.e, r.out, r.err, want)
		}
		if !strings.Contains(r.note, "editor") {
			t.Errorf("%s: note %q, want the lab's note on editors", line, r.note)
		}
	}
}

// The lab's own connections show among the real CLI's when it lists
// them: a note says whose they are.
func TestPassthroughConnectionReportsSayWhichAreTheLabs(t *testing.T) {
	l := newLab(t)
	r := l.must("account report connections")
	if !regexp.MustCompile(`│ natslab +│`).MatchString(r.out) {
		t.Fatalf("the report lists no connection named natslab:\n%s", r.out)
	}
	if !strings.Contains(r.note, "named natslab … are the lab's own") {
		t.Errorf("account report connections: note %q, want one saying the natslab connections are the lab's", r.note)
	}
	if r := l.must("account report statistics"); !strings.Contains(r.note, "the lab's own") {
		t.Errorf("account report statistics: note %q, want one saying the natslab connections are the lab's", r.note)
	}
	if r := l.must("object ls"); r.note != "" {
		t.Errorf("object ls: note %q, want none", r.note)
	}
}

// The child sees the lab's broker and store, never the user's own NATS_*
// variables or contexts.
func TestPassthroughKeepsTheUsersConfigOut(t *testing.T) {
	own := t.TempDir()
	if err := os.MkdirAll(filepath.Join(own, "nats", "context"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "nats", "context", "mine.json"), []byte(`{"url":"nats://127.0.0.1:1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "nats", "context.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", own)
	t.Setenv("NATS_URL", "nats://127.0.0.1:1")
	t.Setenv("NATS_CONTEXT", "mine")
	t.Setenv("NATS_TOKEN", "users-own-token")

	l := newLab(t, brokertest.WithToken("s3cret-lab-token"))
	if r := l.must("object add FILES"); !strings.Contains(r.out, "Bucket Name: FILES") {
		t.Fatalf("object add against the lab's broker:\n%s", r.out)
	}
	if r := l.must("context ls"); strings.Contains(r.out+r.err, "mine") {
		t.Errorf("context ls shows the user's own context:\n%s%s", r.out, r.err)
	}
	l.must("context add lab --description 'the lab'")
	saved, err := os.ReadFile(filepath.Join(l.srv.StoreDir(), "cli", ".config", "nats", "context", "lab.json"))
	if err != nil {
		t.Fatalf("context add did not save inside the lab's store: %v", err)
	}
	// Contexts are managed as in a fresh shell: neither the lab's
	// credentials nor the user's environment end up in one.
	for _, leak := range []string{"s3cret", "users-own-token", "127.0.0.1:1\""} {
		if strings.Contains(string(saved), leak) {
			t.Errorf("the context saved %q:\n%s", leak, saved)
		}
	}
	if !strings.Contains(string(saved), l.srv.ClientURL()) {
		t.Errorf("a new context does not point at the lab's server:\n%s", saved)
	}
	if r := l.must("context info lab"); strings.Contains(r.out+r.err, "WARNING") {
		t.Errorf("context info warns of environment overrides:\n%s%s", r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(own, "nats", "context", "lab.json")); err == nil {
		t.Errorf("context add wrote into the user's own config")
	}
}

// Stopping a passthrough job ends the real CLI: the service it ran is gone.
func TestPassthroughStopEndsTheChild(t *testing.T) {
	l := newLab(t)
	var out, errb syncBuf
	j := l.s.Start(context.Background(), "service serve lab-echo", &out, &errb)
	select {
	case <-j.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("service serve never said it was in place")
	}
	if r := l.must("service ls"); !strings.Contains(r.out, "lab-echo") {
		t.Fatalf("service ls while it serves:\n%s", r.out)
	}
	if r := l.must("request lab-echo.echo hello"); !strings.Contains(r.out, "hello") {
		t.Fatalf("the service did not answer:\n%s", r.out)
	}
	j.Stop()
	<-j.Done()
	if err := j.Err(); err != nil {
		t.Errorf("a stopped job is not a failure: %v", err)
	}
	if r := l.run("request lab-echo.echo hello"); strings.Contains(r.out, "hello") {
		t.Errorf("the stopped service still answers:\n%s%s", r.out, r.err)
	}
}

// Where the real CLI wants a terminal to ask in, it says so in its own
// line; the lab's note names what to type instead, and the command as the
// learner typed it (object rm is the real CLI's alias of object del).
func TestPassthroughNotesNameTheFlagThatAvoidsAQuestion(t *testing.T) {
	l := newLab(t)
	l.must("object add FILES")
	var out, errb, note syncBuf
	err := l.s.RunStreams(context.Background(), "object rm FILES", command.Streams{Out: &out, Err: &errb, Note: &note})
	if !command.Reported(err) {
		t.Fatalf("object rm without --force: %v", err)
	}
	if got := errb.String(); !strings.HasPrefix(got, "nats: error: ") || !strings.Contains(got, "cannot ask for confirmation without a terminal") {
		t.Errorf("stderr is not the real CLI's refusal:\n%s", got)
	}
	if got := note.String(); !strings.Contains(got, "nats object rm asks before it goes ahead") || !strings.Contains(got, "add --force") {
		t.Errorf("note:\n%s\nwant one that names object rm, as typed, and --force", got)
	}
	r := l.run("object del FILES")
	if !strings.Contains(r.note, "nats object del asks before it goes ahead") {
		t.Errorf("object del FILES: the note %q does not name object del", r.note)
	}
	l.must("object rm FILES --force")
}

// The auth commands ask for values, an operator or an account: the notes
// name what the line needs so they need not ask.
func TestPassthroughAuthNotesNameWhatAvoidsAQuestion(t *testing.T) {
	l := newLab(t)
	l.must("auth operator add op")
	for line, want := range map[string]string{
		"auth account add A":         "add --defaults",
		"auth user add U NOPE":       "name one of them on the line (auth account ls lists them)",
		"auth user add U --defaults": "name one of them on the line (auth account ls lists them)",
	} {
		r := l.run(line)
		if !command.Reported(r.e) || !strings.HasPrefix(r.err, "nats: error: ") {
			t.Fatalf("%s: %v %q, want the real CLI's refusal", line, r.e, r.err)
		}
		if !strings.Contains(r.note, want) {
			t.Errorf("%s: note %q, want one saying %q", line, r.note, want)
		}
	}
	// What the notes say works.
	l.must("auth account add A --defaults")
	l.must("auth user add U A --defaults")
	l.must("auth operator add other")
	if r := l.run("auth account ls"); !strings.Contains(r.note, "help auth account ls says how") || !strings.Contains(r.note, "auth operator select NAME") {
		t.Errorf("auth account ls with two operators: note %q, want one naming its help and auth operator select", r.note)
	}
	l.must("auth account ls op")
	l.must("auth operator select op")
	l.must("auth account ls")
}

// A workshop session (WithNoLocalFiles) refuses what would touch the
// machine's files, in one line, before anything runs; the rest runs.
func TestWorkshopSessionRefusesLocalFiles(t *testing.T) {
	srv := brokertest.Start(t)
	s := command.NewSession(srv, command.WithNoLocalFiles())
	t.Cleanup(s.Close)
	file := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(file, []byte("instructor's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(line string) (string, error) {
		var out, errb syncBuf
		err := s.Run(context.Background(), line, &out, &errb)
		return out.String() + errb.String(), err
	}
	if out, err := run("object add FILES"); err != nil {
		t.Fatalf("object add: %v\n%s", err, out)
	}
	for _, line := range []string{"object put FILES " + file, "stream add S --config " + file, "sub x --translate cat", "object get FILES secret.txt"} {
		out, err := run(line)
		if err == nil || !command.IsUsage(err) || !strings.Contains(err.Error(), "own machine") {
			t.Errorf("%s: %v", line, err)
		}
		if out != "" {
			t.Errorf("%s printed %q before its refusal", line, out)
		}
	}
	if out, err := run("object ls"); err != nil || !strings.Contains(out, "FILES") {
		t.Errorf("object ls: %v\n%s", err, out)
	}
	// The real CLI run on the lab's leaf node is refused the same.
	if out, err := run("leaf start"); err != nil {
		t.Fatalf("leaf start: %v\n%s", err, out)
	}
	dump := filepath.Join(t.TempDir(), "dumps")
	for _, line := range []string{"leaf sub x --dump " + dump, "leaf object put FILES " + file} {
		// Refused, it returns at once; run, the sub would wait for messages.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var o syncBuf
		err := s.Run(ctx, line, &o, &o)
		cancel()
		out := o.String()
		if err == nil || !command.IsUsage(err) || !strings.Contains(err.Error(), "own machine") {
			t.Errorf("%s: %v\n%s", line, err, out)
		}
	}
	if _, err := os.Stat(dump); !os.IsNotExist(err) {
		t.Errorf("leaf sub --dump made %s (stat: %v)", dump, err)
	}
}

// A command that needs the system account gets the real CLI's error and a
// note that fits where the lab runs: the lab's own server has no system
// user at all; a deployment named with --server may, so the note says how
// to connect as one.
func TestPassthroughSystemAccountNoteFitsTheDeployment(t *testing.T) {
	own := newLab(t)
	dep, err := broker.Dial(broker.ExternalOptions{URL: brokertest.Start(t).ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	external := command.NewSession(dep, command.WithTimeout(2*time.Second))
	t.Cleanup(external.Close)
	for _, c := range []struct {
		name    string
		s       *command.Session
		want    string
		notWant string
	}{
		{"own", own.s, "has none configured", "--creds"},
		{"external", external, "--creds", "the lab's server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb, note syncBuf
			err := c.s.RunStreams(context.Background(), "server info --timeout 300ms", command.Streams{Out: &out, Err: &errb, Note: &note})
			if !command.Reported(err) {
				t.Fatalf("server info without a system user: %v", err)
			}
			if got := errb.String(); !strings.HasPrefix(got, "nats: error: no results received, ensure the account used has system privileges") {
				t.Errorf("stderr is not the real CLI's error:\n%s", got)
			}
			if got := note.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.notWant) {
				t.Errorf("note:\n%s\nwant one with %q and without %q", got, c.want, c.notWant)
			}
		})
	}
}

// A flag the lab's own grammar lacks but the real CLI has (stream add
// --mirror) sends the line to the real CLI; when the real CLI then fails
// for another reason, its error stands alone: no note says the command has
// no such flag.
func TestPassthroughFailureWithARealFlagGetsNoUnknownFlagNote(t *testing.T) {
	l := newLab(t)
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	r := l.run(`stream add BACKUP --mirror ORDERS --subjects "backup.>" --defaults`)
	if !command.Reported(r.e) {
		t.Fatalf("a mirror with subjects: want the real CLI's refusal, got %v\n%s", r.e, r.all())
	}
	if !strings.Contains(r.err, "mirrors cannot listen for messages on subjects") {
		t.Errorf("stderr is not the real CLI's refusal:\n%s", r.err)
	}
	if n := command.ErrorNote(r.e); strings.Contains(n, "no flag") {
		t.Errorf("note %q: stream add has --mirror in the real CLI", n)
	}
	// A flag neither has still gets the lab's note.
	l.fails(`stream add BACKUP --mirorr ORDERS --defaults`, "did you mean --mirror?")
}

// A line of the real CLI's that subscribes is in place once the server
// holds its subscription, not at its first line: the real CLI says
// "Subscribing on" before its subscription has reached the server, and a
// script's next line (a pub) must find it there.
func TestPassthroughSubscriberIsInPlaceOnceTheServerHasIt(t *testing.T) {
	l := newLab(t)
	for _, c := range []struct{ line, subject string }{
		{"sub 'y.>' --report-subjects", "y.>"},
		{"sub svc --match-replies", "svc"},
		{"sub a b --report-subscriptions", "b"},
	} {
		j, _ := l.background(c.line)
		select {
		case <-j.Ready():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s never said it was in place", c.line)
		}
		if n := l.srv.Monitor().Subscribed(c.subject); n != 1 {
			t.Errorf("%s in place: the server holds %d subscriptions to %s, want 1", c.line, n, c.subject)
		}
		j.Stop()
		<-j.Done()
	}
}

// config add in a workshop session: nats-server's configuration can make
// the server read a file (include) or write one (pid_file, log_file,
// store_dir …) anywhere on the machine, which is the instructor's; only an
// include of the lesson's own files passes (subject-mapping's
// include "files/canary.conf").
// A variable in nats-server's configuration that the text does not define
// is read from the server process's environment: in a workshop, the
// instructor's. config add there refuses every such reference, and only
// those: a $ in quotes is a character.
func TestWorkshopSessionConfigTakesNoVariables(t *testing.T) {
	t.Setenv("NATSLAB_TEST_SECRET", "instructors-secret")
	srv := brokertest.Start(t)
	s := command.NewSession(srv, command.WithNoLocalFiles())
	t.Cleanup(s.Close)
	run := func(line string) (string, error) {
		var out, errb syncBuf
		err := s.Run(context.Background(), line, &out, &errb)
		return out.String() + errb.String(), err
	}
	for line, ref := range map[string]string{
		`config add mappings { "x": $NATSLAB_TEST_SECRET }`:                                                           "$NATSLAB_TEST_SECRET",
		`config add authorization { users: [{user: a, password: $NATSLAB_TEST_SECRET}] }`:                             "$NATSLAB_TEST_SECRET",
		`config add no_auth_user: $NATSLAB_TEST_SECRET`:                                                               "$NATSLAB_TEST_SECRET",
		`config add mappings { "x": $NATSLAB_TEST_UNSET }`:                                                            "$NATSLAB_TEST_UNSET",
		`config add mappings { "a": "$JS.x", "b": $NATSLAB_TEST_SECRET }`:                                             "$NATSLAB_TEST_SECRET",
		`config add mappings: $mappings`:                                                                              "$mappings",
		`config add accounts { A { users: [{user: a, password: "$x"}, {user: b, password: $NATSLAB_TEST_SECRET}] } }`: "$NATSLAB_TEST_SECRET",
	} {
		out, err := run(line)
		if err == nil || !command.IsUsage(err) || !strings.Contains(err.Error(), "config add takes no variables: nats-server would read "+ref+" from the environment") {
			t.Errorf("%s: %v", line, err)
		}
		if out != "" {
			t.Errorf("%s printed %q before its refusal", line, out)
		}
	}
	for _, line := range []string{
		`config add mappings { "a": "$JS.x" }`,
		`config add authorization { users: [{user: js, password: js-pw, permissions: {publish: "$JS.API.>", subscribe: '$JS.>'}}] }`,
		`config add authorization { users: [{user: h, password: $2a$11$pBwUBpza8vdJ7tWZcP5GRO13qRgh4dwNn8g67k5i/41yIKBp.sHke}] }`,
	} {
		if _, err := run(line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	// Text that does not parse is the server's to refuse, saying where.
	if _, err := run(`config add mappings { "a": "$JS.x"`); err == nil || strings.Contains(err.Error(), "variables") {
		t.Errorf("a mapping cut short: %v", err)
	}
}

func TestWorkshopSessionConfigNamesNoLocalFile(t *testing.T) {
	srv := brokertest.Start(t)
	s := command.NewSession(srv, command.WithNoLocalFiles())
	t.Cleanup(s.Close)
	run := func(line string) (string, error) {
		var out, errb syncBuf
		err := s.Run(context.Background(), line, &out, &errb)
		return out.String() + errb.String(), err
	}
	for _, line := range []string{
		`config add include "../../../../../../../etc/hostname"`,
		`config add include /etc/hostname`,
		`config add include '/etc/passwd'`,
		`config add pid_file: "/tmp/natslab-attendee.pid"`,
		`config add log_file: /tmp/natslab-attendee.log`,
		`config add jetstream { store_dir: "/tmp/elsewhere" }`,
		`config add accounts { A { users: [{user: a}] } } include x; include "/etc/hostname"`,
		`config add http: 0.0.0.0:18222`,
		`config add listen: 0.0.0.0:14222`,
		`config add leafnodes { remotes: [{url: "nats://192.0.2.1:7422"}] }`,
	} {
		out, err := run(line)
		if err == nil || !command.IsUsage(err) || !strings.Contains(err.Error(), "reads and writes no files on its machine") {
			t.Errorf("%s: %v", line, err)
		}
		if out != "" {
			t.Errorf("%s printed %q before its refusal", line, out)
		}
	}
	for _, line := range []string{`config add include "files/canary.conf"`, `config add mappings {"jobs.*": "jobs.{{partition(3,1)}}.{{wildcard(1)}}"}`, `config add authorization { users: [{user: shop, password: shop-pw}] }`} {
		if _, err := run(line); err != nil && strings.Contains(err.Error(), "reads and writes no files") {
			t.Errorf("%s: %v", line, err)
		}
	}
}
