package command_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"natslab/broker/command"
	"natslab/broker/realcli"
)

// The README's counts of natscli's leaf commands are the lab's: how many
// it runs with its own code, how many with the real CLI's code (in a
// child process, broker/realcli), and the ones it refuses. A command
// moved from one side to the other shows here, with the number to change.
func TestREADMECountsWhoRunsEachCommand(t *testing.T) {
	own, real, refused := whoRunsEachLeaf()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkREADMECounts(t, string(readme), own, real, refused)
}

// whoRunsEachLeaf sorts natscli's leaf commands by what runs them in the
// lab, as a session dispatches a line: the lab's own code (a lab verb, or
// a leaf of the lab's own grammar), the real CLI's code (every other
// leaf, diverted to a child process), or neither (censusRefused: the lab
// refuses it in one line, which the census checks).
func whoRunsEachLeaf() (own, real, refused []string) {
	grammar := map[string]bool{} // the lab's own leaves
	natsCmd := map[string]bool{} // first words of the lab's own nats commands
	for _, spec := range command.CommandSpecs() {
		grammar[strings.Join(spec.Path, " ")] = true
		natsCmd[spec.Path[0]] = true
	}
	s := command.NewSession(nil) // only asked what its commands are
	for _, leaf := range realcli.Leaves() {
		first, _, _ := strings.Cut(leaf, " ")
		switch {
		case censusRefused[leaf] != "":
			refused = append(refused, leaf)
		case grammar[leaf], s.IsCommand(first) && !natsCmd[first]:
			own = append(own, leaf)
		default:
			real = append(real, leaf)
		}
	}
	return own, real, refused
}

// readmeCounts are the README's sentences that count commands, each with
// the count it must state.
var readmeCounts = []struct {
	what string
	re   *regexp.Regexp
}{
	{"natscli's leaf commands", regexp.MustCompile(`All (\d+) commands of natscli`)},
	{"the commands the lab's own code runs", regexp.MustCompile(`\*\*The lab's own code\*\* runs the (\d+) commands`)},
	{"the commands the real CLI's own code runs", regexp.MustCompile(`\*\*The real CLI's own code\*\* runs the other (\d+)`)},
	{"the commands the real CLI's own code runs", regexp.MustCompile(`the only way to print exactly what the real CLI prints for (\d+) commands`)},
	{"natscli's leaf commands", regexp.MustCompile(`census \(.*\) runs every one of natscli's (\d+) commands`)},
}

func checkREADMECounts(t testing.TB, readme string, own, real, refused []string) {
	t.Helper()
	want := []int{len(own) + len(real) + len(refused), len(own), len(real), len(real), len(own) + len(real) + len(refused)}
	for i, c := range readmeCounts {
		m := c.re.FindStringSubmatch(readme)
		if m == nil {
			t.Errorf("README.md has no sentence counting %s (%s): say %d", c.what, c.re, want[i])
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n != want[i] {
			t.Errorf("README.md says %q: %s are %d, change %d to %d", m[0], c.what, want[i], n, want[i])
		}
	}
	for _, leaf := range refused {
		if !strings.Contains(readme, "`"+leaf+"`") {
			t.Errorf("README.md does not name `%s`, which the lab refuses (%s)", leaf, censusRefused[leaf])
		}
	}
	if t.Failed() {
		t.Logf("the lab's own code runs: %s", strings.Join(own, ", "))
	}
}

// The check fails when either count in the README is wrong, and says
// which number to change to what.
func TestREADMECountsCheckFailsOnAWrongNumber(t *testing.T) {
	own, real, refused := whoRunsEachLeaf()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readmeCounts[1:] {
		m := c.re.FindStringSubmatchIndex(string(readme))
		if m == nil {
			t.Fatalf("README.md has no sentence counting %s", c.what)
		}
		stated := string(readme[m[2]:m[3]])
		n, _ := strconv.Atoi(stated)
		wrong := string(readme[:m[2]]) + strconv.Itoa(n+1) + string(readme[m[3]:])
		rec := &recorder{TB: t}
		checkREADMECounts(rec, wrong, own, real, refused)
		if !slices.ContainsFunc(rec.errors, func(e string) bool {
			return strings.Contains(e, c.what) && strings.Contains(e, "change "+strconv.Itoa(n+1)+" to ")
		}) {
			t.Errorf("a README that counts %s as %d instead of %s passes the check: %q", c.what, n+1, stated, rec.errors)
		}
	}
}

// recorder keeps the errors a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Failed() bool                    { return len(r.errors) > 0 }
func (r *recorder) Logf(format string, args ...any) {}
