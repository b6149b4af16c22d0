package episode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every episode is completable: its solution in testdata/solutions,
// run the way `natslab run --lesson ID FILE` runs it on a real server,
// ticks every step.
func TestEverySolutionCompletesItsLesson(t *testing.T) {
	sols := solutions(t)
	for _, ep := range catalog().Episodes {
		t.Run(ep.ID, func(t *testing.T) {
			script, ok := sols[ep.ID]
			if !ok {
				t.Fatalf("no testdata/solutions/%s.txt", ep.ID)
			}
			rep, out := runLesson(t, serverFor(t, ep), nil, ep.ID, script)
			if !rep.Complete {
				t.Fatalf("lesson %s not complete:\n%s", ep.ID, out)
			}
			if !strings.Contains(out, "lesson "+ep.ID+": ") {
				t.Errorf("no summary line in:\n%s", out)
			}
		})
	}
}

// A wrong solution never completes its lesson, and the failing step says
// what the broker's state lacks.
func TestWrongSolutionsFailAndSayWhy(t *testing.T) {
	for _, w := range wrongSolutions(t) {
		t.Run(w.name, func(t *testing.T) {
			ep, _ := catalog().Get(w.id)
			rep, out := runLesson(t, serverFor(t, ep), nil, w.id, w.script)
			if rep.Complete {
				t.Fatalf("a wrong solution completed lesson %s:\n%s", w.id, out)
			}
			if !strings.Contains(out, w.want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", w.want, reportLines(out))
			}
		})
	}
}

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
