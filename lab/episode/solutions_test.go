package episode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportLines picks the step lines out of a run's output.
func reportLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "✓") || strings.HasPrefix(l, "✗") || strings.HasPrefix(l, "lesson ") {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}

// The solutions of first-stream and stream-log are the two seed tutorials'
// own commands, verbatim: each line is one of the commands its seed shows
// (testdata/seeds holds them, copied as written there).
func TestSeedSolutionsAreVerbatim(t *testing.T) {
	for _, id := range []string{"first-stream", "stream-log"} {
		seed, err := os.ReadFile(filepath.Join("testdata", "seeds", id+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		commands := map[string]bool{}
		for _, line := range strings.Split(string(seed), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") {
				commands[line] = true
			}
		}
		n := 0
		for _, line := range strings.Split(solutions(t)[id], "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			n++
			// The seed answered the real CLI's prompts in a terminal;
			// where none is (a script, the lab), --defaults answers them.
			if !commands[line] && !commands[strings.TrimSuffix(line, " --defaults")] {
				t.Errorf("%s: %q is not one of its seed's commands as written", id, line)
			}
		}
		if n != len(commands) {
			t.Errorf("%s: the solution runs %d commands, its seed shows %d: every one of them should be run", id, n, len(commands))
		}
	}
}
