package episode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
)

// catalog is the embedded catalog, loaded once for all tests.
var catalog = sync.OnceValue(func() *Catalog { return MustLoad() })

// syncBuf is a buffer safe for the concurrent writes of jobs.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runLesson runs script against a fresh real server in the lesson id, as
// `natslab run --lesson id` does, and returns the report and what the run
// printed on stdout.
func runLesson(t *testing.T, srv *broker.Server, prog *Progress, id string, script string) (Report, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb syncBuf
	rep, err := RunScript(ctx, catalog(), id, HeadlessOptions{Deployment: srv, Progress: prog}, strings.NewReader(script), &out, &errb)
	if err != nil {
		t.Fatalf("lesson %s: %v\nstdout:\n%s\nstderr:\n%s", id, err, out.String(), errb.String())
	}
	return rep, out.String() + errb.String()
}

// solutions lists testdata/solutions/*.txt by episode ID.
func solutions(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/solutions/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".txt")] = string(raw)
	}
	return out
}

// wrongSolution is a script that must not complete its lesson, and the
// line the report must contain.
type wrongSolution struct {
	name, id, script, want string
}

// wrongSolutions reads testdata/wrong/ID-what.txt files; the first line is
// "# want: ✗ Step title: why".
func wrongSolutions(t *testing.T, dir string) []wrongSolution {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ids := catalog().IDs()
	sort.Slice(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) }) // longest prefix first
	var out []wrongSolution
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		w := wrongSolution{name: name, script: string(raw)}
		for _, id := range ids {
			if strings.HasPrefix(name, id+"-") {
				w.id = id
				break
			}
		}
		first, _, _ := strings.Cut(string(raw), "\n")
		w.want = strings.TrimSpace(strings.TrimPrefix(first, "# want:"))
		if w.id == "" || !strings.HasPrefix(first, "# want: ✗ ") {
			t.Fatalf("%s: name it ID-what.txt and start it with # want: ✗ Step: why", f)
		}
		out = append(out, w)
	}
	return out
}

// newServer starts a real single server with JetStream, in-process only.
func newServer(t *testing.T) *broker.Server { return newServerB(t) }

func newServerB(t testing.TB) *broker.Server {
	t.Helper()
	return brokertest.Start(t, brokertest.InProcessOnly())
}

// splitLines splits a script, dropping blank lines.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
