package brokertest

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// RealCLI returns the path of the real nats CLI, the version pinned as a
// tool in go.mod (natscli v0.5.0), building it once per test process.
func RealCLI(t testing.TB) string {
	t.Helper()
	return Build(t, "github.com/nats-io/natscli/nats")
}

// CLIResult is what a run of the real CLI printed.
type CLIResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// RunRealCLI runs the real nats CLI against url with no context, no
// terminal and a private HOME, as the reference captures were made.
func RunRealCLI(t testing.TB, url string, args ...string) CLIResult {
	t.Helper()
	return runRealCLI(t, url, "", t.TempDir(), append([]string{"--no-context"}, args...))
}

// runRealCLI runs the real CLI against url (in NATS_URL; "" for none) in
// dir with home as its HOME (and the XDG directories under it).
func runRealCLI(t testing.TB, url, dir, home string, args []string) CLIResult {
	bin := RealCLI(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = homeEnv(home)
	if url != "" {
		cmd.Env = append(cmd.Env, "NATS_URL="+url)
	}
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := CLIResult{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running the real CLI: %v", err)
	}
	return res
}

var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), "DATE"},
	{regexp.MustCompile(`(?m)^\d{2}:\d{2}:\d{2} `), "TIME "},
	{regexp.MustCompile(`\[\d{2}:\d{2}:\d{2}\]`), "[TIME]"}, // consumer next's "[15:04:05] subj: …"
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "DUR"},
	{regexp.MustCompile(`\b(\d+[ywdhm])+(\d+(\.\d+)?s)?\b`), "DUR"},
	{regexp.MustCompile(`\b[A-Za-z0-9]{22}\b`), "NUID"},
	{regexp.MustCompile(`_INBOX\.[A-Za-z0-9.]+`), "INBOX"},
}

// Normalize replaces what differs between two runs of the same command
// (dates, times, durations, unique IDs) with placeholders, so the real
// CLI's output and the lab's can be compared.
func Normalize(s string) string {
	for _, n := range normalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}
