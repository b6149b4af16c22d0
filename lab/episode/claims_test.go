package episode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lesson text is true: a claim the text makes about NATS is played on the
// real server, through the binary, and its output must show it.
// testdata/claims/NAME.txt starts with header lines:
//
//	# lesson: ID     the lesson whose starting state the script runs in
//	# text: ID       the lesson whose text makes the claim, if another
//	# claim: TEXT    words of the lesson's Markdown (spaces collapsed); one
//	                 or more, each a claim the run shows
//	# expect: TEXT   printed somewhere in the run (the lab's notes too), on
//	                 one line or across lines (spaces collapsed)
//	# expect-not: TEXT  printed nowhere
//	# cluster: N     run on a cluster of N nodes (natslab run --cluster N)
//
// then the script. Claims the lab's commands cannot show (a server's
// permissions, a raw client) are Go tests in claims_nats_test.go.
func TestLessonClaimsHoldOnTheServer(t *testing.T) {
	files, err := filepath.Glob("testdata/claims/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no claims: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var id, textID string
			cluster := 0
			for _, line := range strings.Split(string(raw), "\n") {
				switch {
				case strings.HasPrefix(line, "# lesson:"):
					id = strings.TrimSpace(strings.TrimPrefix(line, "# lesson:"))
				case strings.HasPrefix(line, "# text:"):
					textID = strings.TrimSpace(strings.TrimPrefix(line, "# text:"))
				case strings.HasPrefix(line, "# cluster:"):
					if _, err := fmt.Sscan(strings.TrimPrefix(line, "# cluster:"), &cluster); err != nil {
						t.Fatalf("%s: # cluster: N, a number of nodes: %v", f, err)
					}
				}
			}
			if textID == "" {
				textID = id
			}
			c := parseClaims(string(raw))
			_, ok := catalog().Get(id)
			_, okText := catalog().Get(textID)
			if !ok || !okText || !c.any() {
				t.Fatalf("%s needs # lesson: ID (a lesson), # claim: and an # expect:", f)
			}
			c.inText(t, textID, f)
			c.shownBy(t, runBinaryOn(t, id, string(raw), true, cluster).out)
		})
	}
}

// claimSet is what a script's header says the run shows of a lesson's
// text: # claim: lines (words of the text), and what the run must print
// (# expect:) or never print (# expect-not:).
type claimSet struct {
	claims, expect, expectNot []string
}

func parseClaims(script string) claimSet {
	var c claimSet
	for _, line := range strings.Split(script, "\n") {
		for prefix, to := range map[string]*[]string{"# claim:": &c.claims, "# expect:": &c.expect, "# expect-not:": &c.expectNot} {
			if strings.HasPrefix(line, prefix) {
				*to = append(*to, strings.TrimSpace(strings.TrimPrefix(line, prefix)))
			}
		}
	}
	return c
}

// any is whether the set has a claim and something the run must show.
func (c claimSet) any() bool {
	return len(c.claims) > 0 && len(c.expect)+len(c.expectNot) > 0
}

// inText fails the test if lesson id no longer says one of the claims.
func (c claimSet) inText(t *testing.T, id, file string) {
	t.Helper()
	ep, _ := catalog().Get(id)
	for _, claim := range c.claims {
		if !strings.Contains(collapse(ep.Text), collapse(claim)) {
			t.Fatalf("lesson %s no longer says %q: update or remove %s", id, claim, file)
		}
	}
}

// shownBy fails the test if out does not show what the claims expect.
func (c claimSet) shownBy(t *testing.T, out string) {
	t.Helper()
	claim := strings.Join(c.claims, " / ")
	for _, want := range c.expect {
		if !shows(out, want) {
			t.Errorf("the claim %q: the run does not show %q:\n%s", claim, want, out)
		}
	}
	for _, not := range c.expectNot {
		if shows(out, not) {
			t.Errorf("the claim %q: the run shows %q:\n%s", claim, not, out)
		}
	}
}

// shows is whether out prints want: as it is, or across lines, spaces
// collapsed, so that one expect can hold two lines of an answer together
// ("Outstanding Acks: 0 out of maximum 3 Redelivered Messages: 0").
func shows(out, want string) bool {
	return strings.Contains(out, want) || strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " "))
}

// collapse is Markdown as one line of words: line breaks, indents and
// quote marks (>) gone, so a claim matches however the text is wrapped.
func collapse(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), ">")
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}
