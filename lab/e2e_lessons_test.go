package lab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"natslab/broker/command"
	"natslab/lab/episode"
)

// The lessons of Parts VII to X, played in the real binary in tmux at
// 120x40 as a learner would: each line of the lesson's solution typed at
// the prompt, each one run to its end before the next (a background line
// until it is running), and the lesson complete in the status bar.
var tmuxLessons = []string{
	"push-pull", "durable-ephemeral", "deliver-policies", "max-ack-pending", "exactly-once",
	"object-store", "services", "republish", "mirrors-sources", "leaf-node", "permissions", "accounts", "subject-mapping",
}

func TestEndToEndNewLessonsInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	cat := episode.MustLoad()
	dir := t.TempDir()
	bin := buildNatslab(t, dir)
	for _, id := range tmuxLessons {
		t.Run(id, func(t *testing.T) {
			ep, ok := cat.Get(id)
			if !ok {
				t.Fatalf("no lesson %s", id)
			}
			raw, err := os.ReadFile(filepath.Join("episode", "testdata", "solutions", id+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			sub := t.TempDir()
			l := startTmuxLab(t, bin, sub, filepath.Join(sub, "store"), "--lesson", id)
			l.waitText(fmt.Sprintf("lesson %s 0/%d", id, len(ep.Steps)))
			p := &player{l: l}
			for _, line := range strings.Split(string(raw), "\n") {
				if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
					continue
				}
				p.play(line)
			}
			done := fmt.Sprintf("lesson %s ✓ %d/%d", id, len(ep.Steps), len(ep.Steps))
			l.waitText(done)
			l.typeLine("quit")
			if code := l.waitExit(); code != "0" {
				t.Fatalf("natslab exited %s", code)
			}
		})
	}
}

// player types a solution's lines into the lab, one at a time.
type player struct {
	l          *tmuxLab
	background int // jobs left running on purpose (a line ending in &)
}

var (
	jobsRE  = regexp.MustCompile(`│ (\d+) jobs? │`)
	replyRE = regexp.MustCompile(`\{\{reply #(\d+)\}\}`)
)

// rows splits a screen into its rows, without the blank ones at the end.
func rows(screen string) []string {
	return strings.Split(strings.TrimRight(screen, "\n "), "\n")
}

// prompt is the input row (above the status bar); jobs is the number of
// jobs the status bar counts.
func prompt(screen string) string {
	r := rows(screen)
	if len(r) < 2 {
		return ""
	}
	return strings.TrimSpace(r[len(r)-2])
}

func jobs(screen string) int {
	r := rows(screen)
	m := jobsRE.FindStringSubmatch(r[len(r)-1])
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// play types one line: {{reply #N}} becomes the reply subject of message
// [#N] on screen, as a learner would copy it.
func (p *player) play(line string) {
	l := p.l
	l.t.Helper()
	if m := replyRE.FindStringSubmatch(line); m != nil {
		printed := regexp.MustCompile(`\[#` + m[1] + `\] Received on "[^"]*" with reply "([^"]+)"`)
		s := l.waitFor("message [#"+m[1]+"] with its reply subject", func(s string) bool { return printed.MatchString(s) })
		line = strings.ReplaceAll(line, m[0], printed.FindStringSubmatch(s)[1])
	}
	_, bg := command.SplitBackground(line)
	tail := line
	if len(tail) > 20 {
		tail = tail[len(tail)-20:]
	}
	l.tmux("send-keys", "-l", line)
	l.waitFor("the line typed: "+line, func(s string) bool { return strings.Contains(prompt(s), tail) })
	l.tmux("send-keys", "Enter")
	l.waitFor("the prompt cleared after "+line, func(s string) bool { return prompt(s) == "❯" })
	if bg {
		p.background++
	}
	want := p.background
	l.waitFor(fmt.Sprintf("%d running jobs after %s", want, line), func(s string) bool { return jobs(s) == want })
}
