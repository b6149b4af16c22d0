package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

// These tests run the natslab binary as a person (or a crash) would.

// natslabBinary builds the binary once per test process.
func natslabBinary(t testing.TB) string {
	t.Helper()
	return brokertest.Build(t, "natslab")
}

var servingURL = regexp.MustCompile(`serving NATS at (nats://127\.0\.0\.1:\d+)`)

// startServe runs `natslab serve` on store and returns the process and its URL.
func startServe(t *testing.T, store string) (*exec.Cmd, string) {
	t.Helper()
	cmd, lines := serveProcess(t, store)
	return cmd, servingURL.FindStringSubmatch(waitLine(t, lines, "serving NATS at"))[1]
}

// serveProcess starts `natslab serve` on store; its stderr comes line by
// line on the channel, which is closed when the process closes stderr.
// Lines nobody waits for are dropped once the channel is full, so a
// process that is left to run never blocks on its stderr.
func serveProcess(t *testing.T, store string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(natslabBinary(t), "serve", "--store", store, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	return cmd, lines
}

// waitLine returns the first line from lines that holds want; it fails the
// test if the lines end, or half a minute passes, first.
func waitLine(t *testing.T, lines <-chan string, want string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("natslab serve ended before printing %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("natslab serve did not print %q", want)
		}
	}
}

func TestServeSurvivesSIGKILLWithEveryAcknowledgedMessage(t *testing.T) {
	store := t.TempDir()
	proc, url := startServe(t, store)
	acked := publishUntilKilled(t, url, func() {
		if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		proc.Wait()
	})
	checkAcknowledgedSurvived(t, store, acked)
}

func TestLabSurvivesSIGKILLWithEveryAcknowledgedMessage(t *testing.T) {
	store := t.TempDir()
	port := freePort(t)
	bin := natslabBinary(t)
	term := brokertest.StartTerminal(t, 120, 40, "HOME="+t.TempDir())
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	term.Type(fmt.Sprintf("%s --store %s --listen 127.0.0.1:%d", bin, store, port))
	// The status bar shows the URL once the server listens on it.
	term.WaitText(fmt.Sprintf("127.0.0.1:%d", port), "JetStream on")
	pid := term.ChildPID("natslab")
	acked := publishUntilKilled(t, url, func() {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid, 30*time.Second)
	})
	checkAcknowledgedSurvived(t, store, acked)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// publishUntilKilled creates a file stream, publishes to it as fast as it
// can with a window of asynchronous acks, and calls kill once a good number
// have been acknowledged. It returns every acknowledged sequence and body.
func publishUntilKilled(t *testing.T, url string, kill func()) map[uint64]string {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(0))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "CRASH", Subjects: []string{"crash.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[uint64]string{}
	enough := make(chan struct{}) // closed at the 20,000th acknowledgement
	stop := make(chan struct{})
	published := make(chan struct{})
	var waiting sync.WaitGroup // the goroutines waiting for acks
	go func() {
		defer close(published)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			body := fmt.Sprintf("msg-%d", i)
			fut, err := js.PublishAsync("crash.x", []byte(body))
			if err != nil {
				return
			}
			waiting.Add(1)
			go func() {
				defer waiting.Done()
				select {
				case ack := <-fut.Ok():
					mu.Lock()
					acked[ack.Sequence] = body
					if len(acked) == 20000 {
						close(enough)
					}
					mu.Unlock()
				case <-fut.Err():
				case <-stop: // the server is gone: no answer is coming
				}
			}()
		}
	}()
	// Let a good number of messages land, then kill the lab mid-flight.
	select {
	case <-enough:
	case <-time.After(10 * time.Second): // a slow machine: kill with what there is
	}
	kill()
	close(stop)
	<-published
	nc.Close()
	// Every acknowledgement that arrived before the kill is recorded; the
	// rest never will be.
	waiting.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) == 0 {
		t.Fatal("nothing was acknowledged before the kill")
	}
	return acked
}

// checkAcknowledgedSurvived starts natslab serve on the store and checks
// every acknowledged message is there and the store takes new ones.
func checkAcknowledgedSurvived(t *testing.T, store string, want map[uint64]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, url := startServe(t, store)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctx, "CRASH")
	if err != nil {
		t.Fatalf("stream lost after the crash: %v", err)
	}
	info, _ := st.Info(ctx)
	var missing []uint64
	for seq, body := range want {
		m, err := st.GetMsg(ctx, seq)
		if err != nil || string(m.Data) != body {
			missing = append(missing, seq)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged messages lost or changed after SIGKILL (stream has %d, last seq %d); e.g. seq %d", len(missing), len(want), info.State.Msgs, info.State.LastSeq, missing[0])
	}
	ack, err := js.Publish(ctx, "crash.after", []byte("after"))
	if err != nil {
		t.Fatalf("store not usable after the crash: %v", err)
	}
	if ack.Sequence != info.State.LastSeq+1 {
		t.Fatalf("new message got sequence %d, want %d: the stream's last was %d", ack.Sequence, info.State.LastSeq+1, info.State.LastSeq)
	}
	t.Logf("%d acknowledged messages all survived SIGKILL; stream holds %d", len(want), info.State.Msgs)
}

func TestSecondServeOnTheSameStoreNamesTheLock(t *testing.T) {
	store := t.TempDir()
	startServe(t, store)
	out, err := exec.Command(natslabBinary(t), "serve", "--store", store, "--listen", "127.0.0.1:0").CombinedOutput()
	if err == nil {
		t.Fatal("a second natslab on the same store should fail")
	}
	if !strings.Contains(string(out), "natslab.lock") || strings.Count(strings.TrimSpace(string(out)), "\n") > 0 {
		t.Fatalf("want one line naming the lock, got:\n%s", out)
	}
}

func TestServeStopsWithExitZeroOnInterrupt(t *testing.T) {
	proc, _ := startServe(t, t.TempDir())
	proc.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- proc.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve should exit 0 on Ctrl-C, got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on Ctrl-C")
	}
}

func TestBadFlagsGetOneLine(t *testing.T) {
	for args, want := range map[string]string{
		"--bogus":           "unknown flag --bogus",
		"--cluster x run":   `--cluster does not take "x"`,
		"run --store":       "--store needs a value",
		"frobnicate":        `unknown command "frobnicate"`,
		"run /nonexistent/": "cannot read the script",
		"--store=":          "--store is blank",
		"--token= serve":    "--token is blank",
		"--user=\t":         "--user is blank",
		"--server= run":     "--server is blank",
		// A workshop refuses the lab's flags it would ignore.
		"workshop --lesson hello":    "not --lesson: open LESSON at the workshop's prompt",
		"workshop --jetstream=false": "not --jetstream",
		"workshop --speed 2":         "not --speed",
	} {
		var out, errb strings.Builder
		code := run(strings.Split(args, " "), strings.NewReader(""), &out, &errb)
		if code == 0 {
			t.Errorf("%s: want a failure", args)
		}
		msg := strings.TrimSpace(errb.String())
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: want one line with %q, got %q", args, want, msg)
		}
	}
}

// The real CLI's commands that reach no server (its error codes, its
// schemas, its contexts, its operators) run in a lab with no listener,
// printing what the real CLI prints in a shell with no server about; one
// of those families that does ask a server is refused as before.
func TestRunRunsTheRealCLIsOfflineCommandsWithoutAListener(t *testing.T) {
	bin := natslabBinary(t)
	lines := [][]string{{"errors", "lookup", "10077"}, {"schema", "search", "stream_create"}, {"context", "ls"}, {"auth", "operator", "ls"}}
	var want strings.Builder
	var script strings.Builder
	for _, words := range lines {
		real := exec.Command(brokertest.RealCLI(t), words...)
		real.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		real.Stdout = &want
		if err := real.Run(); err != nil {
			t.Fatalf("the real CLI's %s: %v", strings.Join(words, " "), err)
		}
		script.WriteString(strings.Join(words, " ") + "\n")
	}
	cmd := exec.Command(bin, "run", "--store", t.TempDir(), "--listen", "none", "-")
	cmd.Stdin = strings.NewReader(script.String() + "schema request svc.info\n")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit status %d, want 1 (the refused line)", code)
	}
	if out.String() != want.String() {
		t.Errorf("stdout\n%s\nwant what the real CLI prints\n%s", out.String(), want.String())
	}
	refused := "natslab: `nats schema request` runs the real nats CLI, which reaches the server over TCP, and this lab has no listener: start natslab without --listen none\n"
	if errb.String() != refused {
		t.Errorf("stderr\n%s\nwant\n%s", errb.String(), refused)
	}
}

// TestRunRefusesInTheLabsVoice runs, through the binary, a line the lab
// itself refuses: one only the real CLI runs, with no listener for it to
// reach (--listen none). natslab says so, one line on stderr, with or
// without --explain: the real CLI never prints such a line, so it is not
// made up in its shape (nats: error: …), and a refusal is no explanation
// to leave out. A word that is no command, after it, is the real CLI's to
// refuse. The run fails.
func TestRunRefusesInTheLabsVoice(t *testing.T) {
	bin := natslabBinary(t)
	// A word that is no command is the real CLI's to refuse: its error
	// line and its usage, the lab's words a note (with --explain).
	real := exec.Command(brokertest.RealCLI(t), "frobnicate")
	real.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var realOut, realErr strings.Builder
	real.Stdout, real.Stderr = &realOut, &realErr
	_ = real.Run()
	for _, explain := range []bool{false, true} {
		want := "natslab: `nats server ping` runs the real nats CLI, which reaches the server over TCP, and this lab has no listener: start natslab without --listen none\n" + realErr.String()
		args := []string{"run", "--store", t.TempDir(), "--listen", "none", "-"}
		if explain {
			args = append(args, "--explain")
			want += "» unknown command \"frobnicate\" (type help for the list)\n"
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader("server ping\nfrobnicate\n")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("explain=%v: exit status %d (%v), want 1", explain, code, err)
		}
		if got := errb.String(); got != want {
			t.Errorf("explain=%v: stderr\n%s\nwant\n%s", explain, got, want)
		}
		if out.String() != realOut.String() {
			t.Errorf("explain=%v: stdout\n%s\nwant the real CLI's\n%s", explain, out.String(), realOut.String())
		}
	}
}

// TestRunPrintsNotesOnlyWithExplain runs a script through natslab run's own
// code path: without --explain it prints what the real CLI prints, no more;
// with it, the lab's notes follow on stderr, each marked.
func TestRunPrintsNotesOnlyWithExplain(t *testing.T) {
	script := "req svc.time 'what time'\nstream add JOBS --subjects 'jobs.>' --retention workqueue --defaults\n"
	for _, explain := range []bool{false, true} {
		args := []string{"run", "--store", t.TempDir(), "--listen", "none", "-"}
		if explain {
			args = append(args, "--explain")
		}
		var out, errb strings.Builder
		code := run(args, strings.NewReader(script), &out, &errb)
		if code != 1 {
			t.Errorf("explain=%v: exit status %d, want 1 (the stream add fails)", explain, code)
		}
		want := "TIME Sending request on \"svc.time\"\nTIME No responders are available\n"
		if explain {
			want += "» nobody subscribes to \"svc.time\"; start a service with: reply svc.time 'answer'\n"
		}
		want += "nats: error: enum value must be one of limits,interest,workq,work, got 'workqueue'\n"
		if explain {
			want += "» the real CLI spells it work or workq: --retention work\n"
		}
		if got := brokertest.Normalize(errb.String()); got != want {
			t.Errorf("explain=%v: stderr\n%s\nwant\n%s", explain, got, want)
		}
		if out.String() != "" {
			t.Errorf("explain=%v: stdout %q, want nothing", explain, out.String())
		}
	}
}

// TestRunShowsWhatBackgroundJobsReceived runs a script with background
// lines through natslab run's own code path: before the end stops them,
// each job (sub, reply, consumer next, kv watch) has printed every
// message the script's lines sent it, however slowly it handles them.
func TestRunShowsWhatBackgroundJobsReceived(t *testing.T) {
	const n = 30
	script := `stream add ORDERS --subjects "orders.>" --defaults
consumer add ORDERS worker --pull --ack explicit --defaults
kv add cfg
kv watch cfg &
sub greet --translate "tr a-z A-Z" &
reply svc --command "echo ok" &
consumer next ORDERS worker --count 1000 --wait 5ms &
`
	for i := 1; i <= n; i++ {
		script += fmt.Sprintf("kv put cfg k%d v%d\n", i, i)
	}
	script += fmt.Sprintf("pub greet \"g{{Count}}\" --count %d\npub svc \"r{{Count}}\" --count %[1]d --reply nowhere\npub orders.new \"o{{Count}}\" --count %[1]d\n", n)
	var out, errb strings.Builder
	code := run([]string{"run", "--store", t.TempDir(), "--listen", "none", "--explain", "-"}, strings.NewReader(script), &out, &errb)
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, errb.String())
	}
	all := out.String() + errb.String()
	for _, c := range []struct{ job, pattern string }{
		{"kv watch", "PUT cfg > k%[1]d: v%[1]d\n"},
		{"sub", "\nG%d\n"},
		{"reply", "\nr%d\n"},
		{"consumer next", "/ str seq: %d / pending"},
	} {
		for i := 1; i <= n; i++ {
			if want := fmt.Sprintf(c.pattern, i); !strings.Contains(all, want) {
				t.Errorf("%s: the output lacks %q (of %d)", c.job, want, n)
				break
			}
		}
	}
	if strings.Contains(errb.String(), "was still receiving") {
		t.Errorf("a job had to be given up on:\n%s", errb.String())
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// natslab run wraps help where the real CLI would, run in its place:
// at $COLUMNS (else its terminal's width, else 80).
func TestRunWrapsHelpAsTheRealCLIWould(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	var out, errb strings.Builder
	if code := run([]string{"run", "--store", t.TempDir(), "--listen", "none", "-"}, strings.NewReader("stream add --help\n"), &out, &errb); code != 0 {
		t.Fatalf("exit status %d: %s", code, errb.String())
	}
	real := exec.Command(brokertest.RealCLI(t), "stream", "add", "--help")
	real.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "COLUMNS=100"}
	want, err := real.Output()
	if err != nil {
		t.Fatal(err)
	}
	if d := brokertest.DiffLines(string(want), out.String()); d != "" {
		t.Errorf("help at COLUMNS=100 differs from the real CLI's (-real +lab):\n%s", d)
	}
}

// --help lists every flag with two dashes, as the usage above the list and
// every message of natslab's spell them, and names the value it takes.
func TestHelpListsFlagsWithTwoDashes(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("natslab --help: exit %d\n%s", code, errb.String())
	}
	for _, want := range []string{"\n  --store DIR\n", "\n  --listen HOST:PORT\n", "\n  --explain\n", "\n  --password SECRET\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, out.String())
		}
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
			t.Errorf("a flag with one dash: %q", l)
		}
		if w := len([]rune(l)); w > 100 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
}

// A learner comparing the lab with a server they installed asks the binary
// which versions it carries, in the two ways tools answer.
func TestVersionNamesTheServerAndCLIItCarries(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, err := exec.Command(natslabBinary(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("natslab %s: %v\n%s", args[0], err, out)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "natslab ") {
			t.Fatalf("natslab %s printed %q, want one line naming natslab", args[0], out)
		}
		for _, want := range []string{"nats-server v" + server.VERSION, "natscli v0.5.0", "nats.go v"} {
			if !strings.Contains(lines[0], want) {
				t.Errorf("natslab %s: %q lacks %q", args[0], lines[0], want)
			}
		}
	}
}

func TestHelpAsACommandPrintsTheUsage(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("natslab help: exit %d\n%s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), usage) || !strings.Contains(out.String(), "\n  --version\n") {
		t.Errorf("natslab help printed:\n%s", out.String())
	}
}
