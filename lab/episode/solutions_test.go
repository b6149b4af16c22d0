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
// own commands, verbatim: each line appears as written in its seed.
func TestSeedSolutionsAreVerbatim(t *testing.T) {
	seeds := map[string]string{"first-stream": "000_*.txt", "stream-log": "003_*.txt"}
	for id, pattern := range seeds {
		files, _ := filepath.Glob(filepath.Join("/work/shared/seeds", pattern))
		if len(files) != 1 {
			t.Skipf("the seed tutorials are not on this machine (%s)", pattern)
		}
		seed, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(solutions(t)[id], "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if !strings.Contains(string(seed), line) {
				t.Errorf("%s: %q is not in %s as written", id, line, files[0])
			}
		}
	}
}
