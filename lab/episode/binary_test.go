package episode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// The tests of what learners type run the natslab binary, the way a learner
// (or CI) runs a script against a lesson: `natslab run [--cluster 3]
// --lesson ID FILE`, with a fresh store of its own. What they check is what
// that command prints and its exit status.

// binaryRun is one run of the binary: what it printed and its exit status.
type binaryRun struct {
	out  string // stdout then stderr
	code int
}

// runBinary runs script in lesson id through the natslab binary. With
// explain, the lab's notes are printed too (on stderr). A script line with
// {{follower STREAM}} is typed once the binary has said which node leads
// STREAM: which one does is the cluster's choice. A line with {{reply #N}}
// is typed once the binary has printed message [#N] with its reply subject
// (an ack subject holds the server's timestamp), copied as a learner would.
func runBinary(t *testing.T, id, script string, explain bool) binaryRun {
	t.Helper()
	return runBinaryOn(t, id, script, explain, 0)
}

// runBinaryOn is runBinary on a cluster of that many nodes (the lab's
// --cluster), or on what the lesson needs when 0.
func runBinaryOn(t *testing.T, id, script string, explain bool, cluster int) binaryRun {
	t.Helper()
	ep, ok := catalog().Get(id)
	if !ok {
		t.Fatalf("no lesson %s", id)
	}
	if cluster == 0 {
		cluster = ep.Needs.Cluster
	}
	listen := "none"
	if ep.Needs.Listener {
		listen = "127.0.0.1:0"
	}
	args := []string{"run", "--store", t.TempDir(), "--listen", listen, "--lesson", id}
	if cluster > 1 {
		args = append(args, "--cluster", fmt.Sprint(cluster))
	}
	if explain {
		args = append(args, "--explain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if strings.Contains(script, "follower ") && strings.Contains(script, "{{") || strings.Contains(script, "{{reply #") || strings.Contains(script, metaFollower) {
		return runInteractive(t, ctx, args, script)
	}
	file := filepath.Join(t.TempDir(), id+".txt")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, brokertest.Build(t, "natslab"), append(args, file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return finish(t, cmd.Run(), stdout.String()+stderr.String())
}

func finish(t *testing.T, err error, out string) binaryRun {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return binaryRun{out: out}
	case errors.As(err, &exit):
		return binaryRun{out: out, code: exit.ExitCode()}
	}
	t.Fatalf("natslab run: %v\n%s", err, out)
	return binaryRun{}
}

// leaderOf finds the leader in stream info --json, which the scripts
// themselves never ask for: the first such line answers the probe.
var leaderOf = regexp.MustCompile(`^\s+"leader": "(n\d)"`)

// metaLeaderRow finds the meta leader in node ls, which the scripts ask
// for only after the probe: the first such line answers it.
const metaFollower = "{{meta follower}}"

var metaLeaderRow = regexp.MustCompile(`^│ (n\d)\s+│ up\s+│ yes\s`)

// runInteractive feeds the script to the binary on its standard input;
// before a line naming {{follower STREAM}} (or {{other follower STREAM}},
// the second one) it asks stream info STREAM --json and waits for the
// leader's name; before a line naming {{meta follower}}, a node that does
// not lead the meta group, it asks node ls.
func runInteractive(t *testing.T, ctx context.Context, args []string, script string) binaryRun {
	t.Helper()
	cmd := exec.CommandContext(ctx, brokertest.Build(t, "natslab"), append(args, "-")...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	var mu sync.Mutex
	var all bytes.Buffer
	lines := make(chan string, 256)
	cmd.Stdout = io.MultiWriter(pw, lockedBuf{&mu, &all})
	var stderr bytes.Buffer
	cmd.Stderr = lockedBuf{&mu, &stderr}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	follower := regexp.MustCompile(`\{\{(other )?follower (\w+)\}\}`)
	reply := regexp.MustCompile(`\{\{reply #(\d+)\}\}`)
	for _, line := range strings.Split(script, "\n") {
		if m := reply.FindStringSubmatch(line); m != nil {
			printed := regexp.MustCompile(`^\[#` + m[1] + `\] Received on "[^"]*" with reply "([^"]+)"`)
			subject := ""
			for subject == "" {
				l, ok := <-lines
				if !ok {
					t.Fatalf("the binary ended before printing message [#%s] with a reply subject", m[1])
				}
				if pm := printed.FindStringSubmatch(l); pm != nil {
					subject = pm[1]
				}
			}
			line = strings.ReplaceAll(line, m[0], subject)
		}
		if strings.Contains(line, metaFollower) {
			fmt.Fprintln(stdin, "node ls")
			leader := ""
			for leader == "" {
				l, ok := <-lines
				if !ok {
					t.Fatal("the binary ended before node ls named the meta leader")
				}
				if lm := metaLeaderRow.FindStringSubmatch(l); lm != nil {
					leader = lm[1]
				}
			}
			line = strings.ReplaceAll(line, metaFollower, map[string]string{"n1": "n2", "n2": "n3", "n3": "n1"}[leader])
		}
		if m := follower.FindStringSubmatch(line); m != nil {
			fmt.Fprintf(stdin, "stream info %s --json\n", m[2])
			leader := ""
			for leader == "" {
				l, ok := <-lines
				if !ok {
					t.Fatalf("the binary ended before saying who leads %s", m[2])
				}
				if lm := leaderOf.FindStringSubmatch(l); lm != nil {
					leader = lm[1]
				}
			}
			next := map[string]string{"n1": "n2", "n2": "n3", "n3": "n1"}
			other := next[leader]
			if m[1] != "" {
				other = next[other] // the second follower
			}
			line = strings.ReplaceAll(line, m[0], other)
		}
		fmt.Fprintln(stdin, line)
	}
	stdin.Close()
	go func() {
		for range lines {
		}
	}()
	err = cmd.Wait()
	pw.Close()
	mu.Lock()
	defer mu.Unlock()
	return finish(t, err, all.String()+stderr.String())
}

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// summary is the run's last line for a lesson: "lesson ID: N/M steps done".
func summaryLine(id string, steps int) string {
	return fmt.Sprintf("lesson %s: %d/%d steps done", id, steps, steps)
}

// Every episode is completable: its solution in testdata/solutions, run
// through the binary as a learner runs it, ticks every step and exits 0.
func TestEverySolutionCompletesItsLesson(t *testing.T) {
	sols := solutions(t)
	for _, ep := range catalog().Episodes {
		t.Run(ep.ID, func(t *testing.T) {
			t.Parallel()
			script, ok := sols[ep.ID]
			if !ok {
				t.Fatalf("no testdata/solutions/%s.txt", ep.ID)
			}
			r := runBinary(t, ep.ID, script, false)
			if r.code != 0 || !strings.Contains(r.out, summaryLine(ep.ID, len(ep.Steps))) {
				t.Fatalf("lesson %s not complete (exit %d):\n%s", ep.ID, r.code, r.out)
			}
		})
	}
}

// A wrong solution never completes its lesson: the binary exits 1, and
// the failing step says what the broker's state lacks.
func TestWrongSolutionsFailAndSayWhy(t *testing.T) {
	for _, w := range wrongSolutions(t, "testdata/wrong") {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, w.id, w.script, false)
			if r.code != 1 {
				t.Fatalf("a wrong solution of lesson %s exited %d:\n%s", w.id, r.code, r.out)
			}
			if !strings.Contains(r.out, w.want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", w.want, reportLines(r.out))
			}
		})
	}
}

// A dead end is a mistake the lesson warns about (or invites), played
// until the step is stuck, then the recovery the step's hints lead to,
// then the rest of the lesson: testdata/deadends/ID-what.txt holds the
// wrong path, a line "# recover", the recovery, and optionally a line
// "# then" and the later steps. The wrong path alone must leave the step
// undone, saying the # want: line; the whole script must complete the
// lesson; and each line of the recovery must be found in the stuck step's
// hints (a job number as N), so that the hints really lead there. The
// lesson's text is true on that path too: # claim: and # expect: lines,
// as in testdata/claims, hold for the whole script.
func TestDeadEndsRecoverAsTheHintsSay(t *testing.T) {
	for _, w := range wrongSolutions(t, "testdata/deadends") {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			wrong, recovery, ok := strings.Cut(w.script, "\n# recover\n")
			if !ok {
				t.Fatalf("%s has no line # recover", w.name)
			}
			recovery, _, _ = strings.Cut(recovery, "\n# then\n")
			ep, _ := catalog().Get(w.id)
			title := strings.TrimPrefix(w.want, "✗ ")
			title, _, _ = strings.Cut(title, ":")
			step := -1
			for i, s := range ep.Steps {
				if s.Title == title {
					step = i
				}
			}
			if step < 0 {
				t.Fatalf("the # want: line names no step of lesson %s: %q", w.id, title)
			}
			hints := normalHint(strings.Join(ep.Steps[step].Hints, " "))
			for _, line := range splitLines(recovery) {
				if strings.HasPrefix(line, "#") {
					continue
				}
				// A script runs a job in the background with a final &;
				// the pane runs sub and its kind as jobs by themselves.
				line, _ = command.SplitBackground(line)
				if !strings.Contains(hints, normalHint(line)) {
					t.Errorf("the recovery line %q is not in the hints of step %q:\n%s", line, title, hints)
				}
			}

			// The two runs are two binaries with stores of their own: they
			// run at once, as most of their time is spent waiting on the
			// server's timers (an ack wait the script waits out), which
			// the whole script waits on again.
			t.Run("wrong path", func(t *testing.T) {
				t.Parallel()
				r := runBinary(t, w.id, wrong, false)
				if r.code != 1 || !strings.Contains(r.out, w.want) {
					t.Fatalf("the wrong path should leave the step undone with\n  %s\ngot (exit %d):\n%s", w.want, r.code, reportLines(r.out))
				}
			})
			claims := parseClaims(w.script)
			if len(claims.claims) > 0 || len(claims.expect)+len(claims.expectNot) > 0 {
				if !claims.any() {
					t.Fatalf("%s: a # claim: needs an # expect: the run shows, and an # expect: a # claim: of the text", w.name)
				}
				claims.inText(t, w.id, w.name)
			}
			t.Run("whole script", func(t *testing.T) {
				t.Parallel()
				r := runBinary(t, w.id, w.script, claims.any())
				if r.code != 0 || !strings.Contains(r.out, summaryLine(w.id, len(ep.Steps))) {
					t.Fatalf("the recovery did not complete lesson %s (exit %d):\n%s", w.id, r.code, r.out)
				}
				claims.shownBy(t, r.out)
			})
		})
	}
}

var jobNumber = regexp.MustCompile(`\bstop \d+\b`)

// normalHint is text with its spaces collapsed and job numbers as N: the
// number a learner's job gets depends on what else they started.
func normalHint(s string) string {
	return jobNumber.ReplaceAllString(strings.Join(strings.Fields(s), " "), "stop N")
}

// natslab run --lesson takes the number natslab lessons shows, and reports
// the lesson by its ID.
func TestRunLessonByItsNumber(t *testing.T) {
	r := runBinary(t, "1", "# nothing typed yet\n", false)
	first := catalog().Episodes[0]
	if want := fmt.Sprintf("lesson %s: 0/%d steps done", first.ID, len(first.Steps)); r.code != 1 || !strings.Contains(r.out, want) {
		t.Errorf("run --lesson 1: exit %d, want 1 and %q in:\n%s", r.code, want, r.out)
	}
}

// One sub on several subjects holds a subscription per subject, and the
// server delivers through each whatever it matches: the checks count each
// as a subscriber of its own, as the server does, so lesson subjects
// completes with sub "orders.*.created" "orders.>" as with two subs.
func TestOneSubOnSeveralSubjectsIsASubscriberPerSubject(t *testing.T) {
	both := "sub \"orders.*.created\" \"orders.>\" &\npub orders.us.created \"order 1\"\npub orders.created \"order 2\"\n"
	r := runBinary(t, "subjects", both, false)
	if want := "✗ Publish to three subjects and compare: subscribers on orders.> have not received orders.us.west.created yet"; r.code != 1 || !strings.Contains(r.out, want) {
		t.Fatalf("two of the three published: want exit 1 and\n  %s\ngot (exit %d):\n%s", want, r.code, reportLines(r.out))
	}
	r = runBinary(t, "subjects", both+"pub orders.us.west.created \"order 3\"\n", false)
	if ep, _ := catalog().Get("subjects"); r.code != 0 || !strings.Contains(r.out, summaryLine("subjects", len(ep.Steps))) {
		t.Fatalf("all three published: the lesson should be complete (exit %d):\n%s", r.code, r.out)
	}
}
