package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/lab/episode"
)

// The end-to-end test: the built natslab binary in a real terminal (tmux),
// typed at and read back as a person would. Skipped only when tmux is not
// installed (.ci/run installs it).

type tmuxLab struct {
	t        *testing.T
	sock     string
	dir      string
	exitFile string          // where the shell writes natslab's exit status
	printed  <-chan struct{} // the pane printed something
}

func (l *tmuxLab) tmux(args ...string) string {
	l.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", l.sock}, args...)...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (l *tmuxLab) screen() string { return l.tmux("capture-pane", "-p") }

// typeLine types text literally and presses Enter.
func (l *tmuxLab) typeLine(text string) {
	l.t.Helper()
	l.tmux("send-keys", "-l", text)
	l.tmux("send-keys", "Enter")
}

// waitFor reads the screen until cond holds, again each time the pane
// prints.
func (l *tmuxLab) waitFor(what string, cond func(screen string) bool) string {
	l.t.Helper()
	return brokertest.WaitScreen(l.t, what, l.printed, l.screen, cond)
}

func (l *tmuxLab) waitText(want ...string) string {
	l.t.Helper()
	return l.waitFor(strings.Join(want, " and "), func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// startTmuxLab runs the binary in a new tmux server at 120x40; when it
// ends, the shell writes its exit status to a file and signals the tmux
// channel "exited".
func startTmuxLab(t *testing.T, bin, dir, store string, args ...string) *tmuxLab {
	t.Helper()
	l := &tmuxLab{t: t, sock: fmt.Sprintf("natslab-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), dir: dir}
	l.exitFile = filepath.Join(dir, fmt.Sprintf("exit-%d", time.Now().UnixNano()))
	extra := ""
	for _, a := range args {
		extra += fmt.Sprintf(" %q", a)
	}
	script := fmt.Sprintf("HOME=%q %q --store %q --listen 127.0.0.1:0%s; echo $? > %q; tmux -L %q wait-for -S exited; sleep 60",
		dir, bin, store, extra, l.exitFile, l.sock)
	l.tmux("new-session", "-d", "-x", "120", "-y", "40", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", l.sock, "kill-server").Run() })
	l.printed = brokertest.WatchTmux(t, l.sock)
	return l
}

// waitExit waits for natslab to end and returns its exit status.
func (l *tmuxLab) waitExit() string {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A signal sent before anyone waits is kept for the first waiter.
	if out, err := exec.CommandContext(ctx, "tmux", "-L", l.sock, "wait-for", "exited").CombinedOutput(); err != nil {
		l.t.Fatalf("natslab did not exit: %v %s; screen:\n%s", err, out, l.screen())
	}
	b, err := os.ReadFile(l.exitFile)
	if err != nil {
		l.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

var urlRE = regexp.MustCompile(`nats://127\.0\.0\.1:\d+`)

func TestEndToEndInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "natslab")
	build := exec.Command("go", "build", "-o", bin, "natslab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building natslab: %v\n%s", err, out)
	}
	store := filepath.Join(dir, "store")
	l := startTmuxLab(t, bin, dir, store)

	s := l.waitText("Type help for the commands", "JetStream on")
	url := urlRE.FindString(s)
	if url == "" {
		t.Fatalf("no URL on screen:\n%s", s)
	}

	// The seed tutorial's commands, typed as written.
	l.typeLine(`stream add EVENTS --subjects "events.>" --defaults`)
	l.waitText("Active Consumers: 0", "1 stream")
	l.typeLine(`pub events.page_loaded '{"page":"/home"}' --jetstream`)
	l.waitText("Stored in Stream: EVENTS Sequence: 1")
	l.typeLine(`stream info EVENTS`)
	l.waitText("Messages: 1", "Number of Subjects: 1")

	// A nonsense command: one clear error, and the lab carries on.
	l.typeLine("frobnicate the stream")
	l.waitText(command.NoteMarker + `unknown command "frobnicate"`)

	// A sub in the pane receives what a client outside publishes to the URL.
	l.typeLine("sub greet")
	l.waitText("Subscribing on greet", "ctrl+c stops [1]")
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("connecting to the lab's URL: %v", err)
	}
	if err := nc.Publish("greet", []byte("hello from outside")); err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	nc.Close()
	l.waitText("hello from outside", "(1 received)")
	l.tmux("send-keys", "C-c")
	l.waitText("[1] stopped: sub greet")

	// Smaller than the full layout, then back: still working.
	l.tmux("resize-window", "-x", "50", "-y", "15")
	l.waitFor("the compact layout, saying what size shows the panes", func(s string) bool {
		return !strings.Contains(s, "lesson:") && strings.Contains(s, "─ commands") && strings.Contains(s, "80x24+ (now 50x15)")
	})
	l.typeLine("pub greet small")
	l.waitText(`Published 5 bytes to "greet"`)
	l.tmux("resize-window", "-x", "120", "-y", "40")
	l.waitText("lesson: Welcome", "scene")
	l.typeLine("stream ls")
	l.waitText("│ EVENTS │")

	l.typeLine("quit")
	if code := l.waitExit(); code != "0" {
		t.Fatalf("natslab exited %s", code)
	}
	// The terminal is restored: the shell line after natslab is plain text.
	if s := l.screen(); strings.Contains(s, "lesson: Welcome") {
		t.Errorf("the lab's screen is still up after quit:\n%s", s)
	}

	// A new start on the same store shows the same stream, and the history.
	l2 := startTmuxLab(t, bin, dir, store)
	l2.waitText("Type help for the commands")
	l2.typeLine("stream ls")
	l2.waitText("│ EVENTS │", "│ 1        │")
	l2.tmux("send-keys", "Up")
	l2.waitText("❯ stream ls")
	l2.tmux("send-keys", "C-u", "C-d")
	if code := l2.waitExit(); code != "0" {
		t.Fatalf("natslab exited %s after ctrl+d", code)
	}
}

func TestBinaryWithoutTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "natslab")
	if out, err := exec.Command("go", "build", "-o", bin, "natslab").CombinedOutput(); err != nil {
		t.Fatalf("building natslab: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--store", filepath.Join(dir, "store"))
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != ExitNoTerminal {
		t.Fatalf("exit: %v (want %d)\n%s", err, ExitNoTerminal, out)
	}
	if !strings.Contains(string(out), "natslab run") || !strings.Contains(string(out), "natslab serve") {
		t.Errorf("message: %s", out)
	}
}

// buildNatslab builds the binary into dir.
func buildNatslab(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "natslab")
	if out, err := exec.Command("go", "build", "-o", bin, "natslab").CombinedOutput(); err != nil {
		t.Fatalf("building natslab: %v\n%s", err, out)
	}
	return bin
}

// lessonColumn is the lesson pane's column of a 120-column screen (the
// right-hand pane above the command pane), so that a step's line is read
// where the checklist draws it.
func lessonColumn(screen string) string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "││"); i >= 0 {
			out = append(out, l[i+len("││"):])
		}
	}
	return strings.Join(out, "\n")
}

// The walk-through: natslab --lesson first-stream, the seed's
// commands typed one by one, each step ticking as its command ends, the
// lesson complete; natslab lessons afterwards says done. Also at 80x24.
func TestEndToEndLessonInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := buildNatslab(t, dir)
	store := filepath.Join(dir, "store")
	l := startTmuxLab(t, bin, dir, store, "--lesson", "first-stream")
	l.waitText("lesson 6 · first-stream", "[▸] Turn JetStream on", "JetStream off", "lesson first-stream 0/4", "without JetStream")

	ticks := []struct {
		lines []string
		done  string // what the folded list shows next: the step after it
	}{
		{[]string{"nats-server -js"}, "[▸] Create the EVENTS stream on events.>"},
		{[]string{`stream add EVENTS --subjects "events.>" --defaults`}, "[▸] Store three events on two subjects"},
		{[]string{
			`pub events.page_loaded '{"page":"/home"}' --jetstream`,
			`pub events.input_changed '{"field":"email"}' --jetstream`,
			`pub events.page_loaded '{"page":"/pricing"}' --jetstream`,
			"stream info EVENTS",
		}, "[▸] Replay every stored event"},
		{[]string{`sub "events.>" --all --terminate-at-end`}, "✓ Lesson complete"},
	}
	for i, tick := range ticks {
		for _, line := range tick.lines {
			l.typeLine(line)
			if strings.HasPrefix(line, "pub ") {
				l.waitText("Stored in Stream: EVENTS")
			}
		}
		want := fmt.Sprintf("lesson first-stream %d/4", i+1)
		if i == len(ticks)-1 {
			want = "lesson first-stream ✓ 4/4"
		}
		l.waitFor(tick.done+" and "+want, func(s string) bool {
			return strings.Contains(lessonColumn(s), tick.done) && strings.Contains(s, want)
		})
	}
	s := l.waitText("Lesson complete: all 4 steps done.", "first-stream is complete")
	if strings.Contains(lessonColumn(s), "[▸]") {
		t.Errorf("a step is still to do:\n%s", s)
	}

	// The small window: the lesson and its status still read.
	l.tmux("resize-window", "-x", "80", "-y", "24")
	l.waitFor("the 80x24 layout", func(s string) bool {
		return strings.Contains(s, "lesson first-stream ✓ 4/4") && strings.Contains(s, "Lesson complete") && len(strings.Split(strings.TrimRight(s, "\n"), "\n")) <= 24
	})

	l.typeLine("quit")
	if code := l.waitExit(); code != "0" {
		t.Fatalf("natslab exited %s", code)
	}
	out, err := exec.Command(bin, "lessons", "--store", store).CombinedOutput()
	if err != nil {
		t.Fatalf("natslab lessons: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), " 6  first-stream      done") || !strings.Contains(string(out), fmt.Sprintf("1 of %d done", len(episode.MustLoad().Episodes))) {
		t.Errorf("natslab lessons after the lesson:\n%s", out)
	}
}

// natslab --lesson with an unknown ID says so in one line that lists the
// lessons, and exits 2 before any screen or server starts.
func TestBinaryUnknownLesson(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildNatslab(t, dir)
	store := filepath.Join(dir, "store")
	cmd := exec.Command(bin, "--store", store, "--lesson", "first-strem")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit: %v (want 2)\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "did you mean first-stream?") || !strings.Contains(lines[0], "hello, subjects, request-reply") {
		t.Errorf("want one line naming the lessons, got:\n%s", out)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("a server was started for an unknown lesson (store exists: %v)", err)
	}
}
