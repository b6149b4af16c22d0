package episode

import (
	"bufio"
	"bytes"
	"context"
	"io"
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
	rep, err := RunScript(ctx, catalog(), id, HeadlessOptions{Deployment: srv, Progress: prog}, lazyLines(script, srv), &out, &errb)
	if err != nil {
		t.Fatalf("lesson %s: %v\nstdout:\n%s\nstderr:\n%s", id, err, out.String(), errb.String())
	}
	return rep, out.String() + errb.String()
}

// lazyLines hands the script to the runner one line per Read, replacing
// {{stopped}} with the node that is down when the line is reached, and
// {{follower ORDERS}} with a node that does not lead ORDERS: which node
// leads a stream is the cluster's choice.
func lazyLines(script string, srv *broker.Server) *lineReader {
	sc := bufio.NewScanner(strings.NewReader(script))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return &lineReader{lines: lines, srv: srv}
}

type lineReader struct {
	lines   []string
	srv     *broker.Server
	pending []byte
}

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if len(r.lines) == 0 {
			return 0, io.EOF
		}
		line := r.lines[0]
		r.lines = r.lines[1:]
		if strings.Contains(line, "{{stopped}}") {
			line = strings.ReplaceAll(line, "{{stopped}}", stoppedNode(r.srv))
		}
		if strings.Contains(line, "{{follower ORDERS}}") {
			line = strings.ReplaceAll(line, "{{follower ORDERS}}", followerNode(r.srv, "ORDERS"))
		}
		r.pending = []byte(line + "\n")
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// followerNode names a node that does not lead stream.
func followerNode(srv *broker.Server, stream string) string {
	leader := srv.StreamLeader(stream)
	for _, n := range broker.NodeNames {
		if n != leader {
			return n
		}
	}
	return "none"
}

// stoppedNode names the cluster node that is down.
func stoppedNode(srv *broker.Server) string {
	for _, n := range srv.Nodes() {
		if !n.Running {
			return n.Name
		}
	}
	return "none-is-stopped"
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
func wrongSolutions(t *testing.T) []wrongSolution {
	t.Helper()
	files, err := filepath.Glob("testdata/wrong/*.txt")
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

// serverFor starts what an episode needs: the three-node cluster for
// replicas, else a single server.
func serverFor(t *testing.T, ep *Episode) *broker.Server {
	t.Helper()
	if ep.Needs.Cluster > 1 {
		return brokertest.Start(t, brokertest.InProcessOnly(), brokertest.Clustered())
	}
	return newServer(t)
}
