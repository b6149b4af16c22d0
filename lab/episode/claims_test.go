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
//	# expect: TEXT   printed somewhere in the run (the lab's notes too)
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
			var claims []string
			var expect, expectNot []string
			cluster := 0
			for _, line := range strings.Split(string(raw), "\n") {
				switch {
				case strings.HasPrefix(line, "# lesson:"):
					id = strings.TrimSpace(strings.TrimPrefix(line, "# lesson:"))
				case strings.HasPrefix(line, "# text:"):
					textID = strings.TrimSpace(strings.TrimPrefix(line, "# text:"))
				case strings.HasPrefix(line, "# claim:"):
					claims = append(claims, strings.TrimSpace(strings.TrimPrefix(line, "# claim:")))
				case strings.HasPrefix(line, "# expect:"):
					expect = append(expect, strings.TrimSpace(strings.TrimPrefix(line, "# expect:")))
				case strings.HasPrefix(line, "# cluster:"):
					if _, err := fmt.Sscan(strings.TrimPrefix(line, "# cluster:"), &cluster); err != nil {
						t.Fatalf("%s: # cluster: N, a number of nodes: %v", f, err)
					}
				case strings.HasPrefix(line, "# expect-not:"):
					expectNot = append(expectNot, strings.TrimSpace(strings.TrimPrefix(line, "# expect-not:")))
				}
			}
			if textID == "" {
				textID = id
			}
			_, ok := catalog().Get(id)
			ep, okText := catalog().Get(textID)
			if !ok || !okText || len(claims) == 0 || len(expect)+len(expectNot) == 0 {
				t.Fatalf("%s needs # lesson: ID (a lesson), # claim: and an # expect:", f)
			}
			for _, claim := range claims {
				if !strings.Contains(collapse(ep.Text), collapse(claim)) {
					t.Fatalf("lesson %s no longer says %q: update or remove %s", textID, claim, f)
				}
			}
			claim := strings.Join(claims, " / ")
			r := runBinaryOn(t, id, string(raw), true, cluster)
			for _, want := range expect {
				if !strings.Contains(r.out, want) {
					t.Errorf("the claim %q: the run does not show %q:\n%s", claim, want, r.out)
				}
			}
			for _, not := range expectNot {
				if strings.Contains(r.out, not) {
					t.Errorf("the claim %q: the run shows %q:\n%s", claim, not, r.out)
				}
			}
		})
	}
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
