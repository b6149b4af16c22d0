package brokertest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Differential tests: the same nats command lines through the real CLI
// (the pinned `nats`, one process per line, as a person types them in a
// shell) and through the lab (`natslab run`, the binary's own path),
// against the same kind of server, compared line by line once what differs
// between any two runs (times, IDs, ports) is normalised away.

// Script is a walkthrough: nats command lines, as the docs write them (a
// leading "nats" is optional), and what they need around them.
type Script struct {
	Name  string
	Lines []string
	// Files are created in the working directory both sides run in, by
	// relative name, before the lines run.
	Files map[string][]byte
	// Setup runs against each side's server before the lines: start a
	// service, publish a message. Scripts with a Setup run the lab against
	// a server of the test's (natslab run --server); others against the
	// lab's own embedded server.
	Setup func(t testing.TB, url string)
	// Timeout bounds each side's whole run; 0 means two minutes.
	Timeout time.Duration
	// Shown says, for each background line (one ending in " &", as
	// written in Lines), every line its real CLI process prints on stdout,
	// in order, normalised (Comparable): the script's end waits until it
	// has printed them (a deadline fails the test), then interrupts it as
	// Ctrl-C would. Each background line needs an entry (nil: it prints
	// nothing), and the test fails if it prints anything else.
	Shown map[string][]string
}

// ScriptResult is what a script printed through the real CLI: the
// foreground lines' output, in line order (ExitCode counts the lines that
// failed, background ones that ended by themselves with an error among
// them), and each background line's, in line order.
type ScriptResult struct {
	CLIResult
	Background []CLIResult
}

// Natslab returns the path of the natslab binary built from this module,
// building it once per test process.
func Natslab(t testing.TB) string {
	t.Helper()
	return Build(t, "natslab")
}

// RunRealScript runs each line of s as its own real CLI process against a
// new embedded server (brokertest.Start, in NATS_URL), in dir, with one
// HOME for the whole script, and returns everything they printed, stdout
// and stderr each in line order, the HOME directory written as HOME.
// context commands run with no NATS_URL, as the lab runs them. A
// background line (see Script.Shown) runs as a process of its own, which
// the next line waits to be in place on the server, and which is stopped
// once the last line has run and it has printed what Shown says.
func RunRealScript(t testing.TB, s Script, dir string) ScriptResult {
	t.Helper()
	srv := Start(t)
	if s.Setup != nil {
		s.Setup(t, srv.ClientURL())
	}
	var res ScriptResult
	type background struct {
		line string
		p    *RealProcess
	}
	var running []background
	home := t.TempDir() // one person's: contexts persist from line to line
	for _, line := range s.Lines {
		args, bg, err := splitBackground(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if len(args) > 0 && args[0] == "nats" {
			args = args[1:]
		}
		url := srv.ClientURL()
		if len(args) > 0 && (args[0] == "context" || args[0] == "ctx") {
			// As the lab runs them: the real CLI's own configuration, in
			// a shell with no NATS_URL (see command's passthrough).
			url = ""
		}
		if bg {
			if _, ok := s.Shown[line]; !ok {
				t.Fatalf("%s: a background line needs Script.Shown[%q]: what it prints before it is stopped", s.Name, line)
			}
			p := startInPlace(t, srv, RealEnv{URL: url, Dir: dir, Home: home}, line, args)
			running = append(running, background{line, p})
			continue
		}
		r := runRealCLI(t, url, dir, home, args)
		res.Stdout += strings.ReplaceAll(r.Stdout, home, "HOME")
		res.Stderr += strings.ReplaceAll(r.Stderr, home, "HOME")
		if r.ExitCode != 0 {
			res.ExitCode++
		}
	}
	for _, b := range running {
		r := stopShown(t, b.line, b.p, s.Shown[b.line], home)
		res.Background = append(res.Background, r)
		if r.ExitCode != 0 {
			res.ExitCode++
		}
	}
	return res
}

// RunLabScript runs the lines of s through `natslab run` in dir (see
// Script.Setup for which server) and returns what it printed, the real
// CLI's home in the lab's store written as HOME; ExitCode is natslab's.
func RunLabScript(t testing.TB, s Script, dir string, extra ...string) CLIResult {
	t.Helper()
	bin := Natslab(t)
	scriptFile := filepath.Join(t.TempDir(), "script.nats")
	if err := os.WriteFile(scriptFile, []byte(strings.Join(s.Lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	args := []string{"run", "--store", store}
	if s.Setup != nil {
		srv := Start(t)
		s.Setup(t, srv.ClientURL())
		args = append(args, "--server", srv.ClientURL())
	} else {
		args = append(args, "--listen", "127.0.0.1:0")
	}
	args = append(append(args, extra...), scriptFile)
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = homeEnv(t.TempDir())
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// The real CLI's home in the lab is the cli directory of its store.
	home := filepath.Join(store, "cli")
	res := CLIResult{Stdout: strings.ReplaceAll(out.String(), home, "HOME"), Stderr: strings.ReplaceAll(errb.String(), home, "HOME")}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("natslab run %s did not finish within %s\nstdout:\n%s\nstderr:\n%s", s.Name, timeout, res.Stdout, res.Stderr)
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("running natslab: %v", err)
	}
	return res
}

// CompareScript runs s through the real CLI and through natslab run, each
// in a working directory of its own holding s.Files, and fails t with a
// line-by-line diff of each stream where the two differ once normalised
// (Comparable). Lines that fail must fail on both sides. With background
// lines, whose output the lab prints among the other lines' as they come,
// each of the lab's streams must be the real CLI's foreground lines and
// its background processes' lines interleaved, each in its own order.
func CompareScript(t *testing.T, s Script) {
	t.Helper()
	realDir, labDir := filesDir(t, s.Files), filesDir(t, s.Files)
	real := RunRealScript(t, s, realDir)
	lab := RunLabScript(t, s, labDir)
	// Paths the lines print (object get's "Wrote: … to DIR/file") differ
	// by working directory only.
	inDir := func(r CLIResult, dir string) CLIResult {
		r.Stdout = strings.ReplaceAll(r.Stdout, dir, "WORKDIR")
		r.Stderr = strings.ReplaceAll(r.Stderr, dir, "WORKDIR")
		return r
	}
	real.CLIResult, lab = inDir(real.CLIResult, realDir), inDir(lab, labDir)
	for i := range real.Background {
		real.Background[i] = inDir(real.Background[i], realDir)
	}
	for _, stream := range []struct {
		name string
		of   func(CLIResult) string
	}{{"stdout", func(r CLIResult) string { return r.Stdout }}, {"stderr", func(r CLIResult) string { return r.Stderr }}} {
		if len(real.Background) == 0 {
			if d := DiffLines(Comparable(stream.of(real.CLIResult)), Comparable(stream.of(lab))); d != "" {
				t.Errorf("%s: %s differs from the real CLI's (-real +lab):\n%s", s.Name, stream.name, d)
			}
			continue
		}
		fg := splitLines(Comparable(stream.of(real.CLIResult)))
		var bgs [][]string
		for _, b := range real.Background {
			bgs = append(bgs, splitLines(Comparable(stream.of(b))))
		}
		got := splitLines(Comparable(stream.of(lab)))
		if !interleaves(got, append([][]string{fg}, bgs...)) {
			t.Errorf("%s: %s is not the real CLI's foreground and background lines, each in its order:\n%s", s.Name, stream.name, interleavingDiff(fg, bgs, got))
		}
	}
	if (real.ExitCode == 0) != (lab.ExitCode == 0) {
		t.Errorf("%s: %d lines failed with the real CLI, natslab run exited %d", s.Name, real.ExitCode, lab.ExitCode)
	}
}

func filesDir(t testing.TB, files map[string][]byte) string {
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var comparableRules = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\bN[A-Z0-9]{55}\b`), "SERVER_ID"},
	{regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`), "$1:PORT"},
	{regexp.MustCompile(`\b\d+(\.\d+)? [KMGT]?i?B/s\b`), "RATE"},
	// pub --count above 20 ends with its progress line's rate:
	// " done! [100 in 66ms; 1.50K/s]".
	{regexp.MustCompile(`(\[\d+ in DUR; )\d+(\.\d+)?[KMGT]?/s\]`), "${1}RATE]"},
	// A connection's id counts the server's connections so far, the
	// lab's own among them.
	{regexp.MustCompile(`(Client ID: )\d+`), "${1}CID"},
	// A date and time that a usage text wraps between them (consumer
	// add's --pause: "(eg 2026-12-03" and "21:00:25)" on the next line).
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(\n +)\d{2}:\d{2}:\d{2}\b`), "DATE${1}TIME"},
}

// Comparable is Normalize plus what else differs between two servers and
// two runs: server IDs, ports, transfer rates, client IDs, go-cmp's spaces, and the
// padding and rules of tables whose column widths follow from normalised
// values.
func Comparable(s string) string {
	// go-cmp's diffs (stream edit, consumer edit) space their lines with a
	// random mix of spaces and no-break spaces, on purpose.
	s = strings.ReplaceAll(Normalize(s), "\u00a0", " ")
	for _, r := range comparableRules {
		s = r.re.ReplaceAllString(s, r.with)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.ContainsAny(l, "│─╭╰├┼") {
			l = tableRule.ReplaceAllString(l, "─")
			lines[i] = strings.TrimRight(tableGap.ReplaceAllString(l, " "), " ")
		}
	}
	return strings.Join(lines, "\n")
}

var (
	tableRule = regexp.MustCompile(`─+`)
	tableGap  = regexp.MustCompile(` +`)
)

// DiffLines is a line diff of want and got ("" when equal), for failure
// messages.
func DiffLines(want, got string) string {
	if want == got {
		return ""
	}
	return cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n"))
}

// homeEnv is an environment without the user's NATS settings: PATH, home
// as HOME (the XDG directories under it) and UTC.
func homeEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
}
