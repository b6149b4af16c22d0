package lab

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A paste of several commands runs as several commands, as in a shell:
// nothing before Enter (the prompt holds the first, a row says how many
// wait), then each in turn once the one before is in place: the pasted sub
// receives what the pasted pubs after it send. Terminals send \r for a
// line break.
func TestPastedLinesRunInTurnOnEnter(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.send(tea.PasteMsg{Content: "sub greet\r\npub greet one\rpub greet two\n"})
	if v := h.m.cmd.in.Value(); v != "sub greet" {
		t.Errorf("the prompt holds %q, want the first pasted line", v)
	}
	if s := h.screen(); !strings.Contains(s, "2 lines more pasted after this one: enter runs them in turn") {
		t.Errorf("nothing says what waits:\n%s", s)
	}
	if n := len(h.m.cmd.jobs); n != 0 || strings.Contains(h.text(), "❯ sub greet") {
		t.Fatalf("a paste ran before Enter (%d jobs):\n%s", n, h.text())
	}
	h.key("enter")
	h.pump("both messages at the pasted sub", func() bool { return strings.Count(h.text(), `Received on "greet"`) == 2 })
	text := h.text()
	first, second := strings.Index(text, "❯ pub greet one"), strings.Index(text, "❯ pub greet two")
	if first < 0 || second < first {
		t.Errorf("the pasted lines did not run in order:\n%s", text)
	}
	if v := strings.Join(h.m.cmd.hist.items, "|"); !strings.HasSuffix(v, "sub greet|pub greet one|pub greet two") {
		t.Errorf("history: %q", v)
	}
}

// Thousands of pasted lines run, every one, not as one garbled command.
func TestAHugePasteRunsEveryLine(t *testing.T) {
	h := newHarness(t, 100, 30)
	var b strings.Builder
	const n = 2000
	for i := range n {
		fmt.Fprintf(&b, "pub greet hello-%d\n", i)
	}
	h.send(tea.PasteMsg{Content: b.String()})
	h.key("enter")
	h.pump("every pasted line to run", func() bool { return len(h.m.cmd.pasted) == 0 && len(h.m.cmd.jobs) == 0 })
	text := strings.Join(h.m.sb.Lines(), "\n")
	if !strings.Contains(text, fmt.Sprintf("❯ pub greet hello-%d", n-1)) {
		t.Errorf("the last pasted line never ran:\n%s", h.screen())
	}
	if strings.Contains(text, "takes no argument") {
		t.Errorf("a pasted line ran as part of another:\n%s", h.screen())
	}
}

// Ctrl-C gives a paste up: the lines waiting, and the one in the prompt,
// said in one line.
func TestCtrlCDropsPastedLines(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.send(tea.PasteMsg{Content: "pub greet one\npub greet two\npub greet three"})
	h.key("ctrl+c")
	if !strings.Contains(h.text(), "2 lines not run: ctrl+c dropped them") {
		t.Errorf("the drop is not said:\n%s", h.text())
	}
	if v := h.m.cmd.in.Value(); v != "" || len(h.m.cmd.pasted) != 0 || len(h.m.cmd.jobs) != 0 {
		t.Errorf("after ctrl+c: prompt %q, %d waiting, %d jobs", v, len(h.m.cmd.pasted), len(h.m.cmd.jobs))
	}
	h.key("enter")
	if strings.Contains(h.text(), "❯ pub greet") {
		t.Errorf("a dropped line ran:\n%s", h.text())
	}
}

// At 80 columns the row saying what waits is whole.
func TestPastedLinesHintFitsAt80(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.send(tea.PasteMsg{Content: strings.Repeat("pub greet hello\n", 3000)})
	if s := h.screen(); !strings.Contains(s, "2999 lines more pasted: enter runs them in turn · ctrl+c drops them") {
		t.Errorf("the row is not whole:\n%s", s)
	}
}

// A pasted line that fails says so before the next pasted line runs, as in
// a shell: the line after it waits on the one before having ended, and
// the pane learns of that end twice (the job's own end, and the next
// line's turn), in either order. Here the next line's turn comes first,
// which a busy machine can do.
func TestAPastedLinesErrorComesBeforeTheNextLine(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.send(tea.PasteMsg{Content: "kv get NOPE x\npub greet after\n"})
	h.key("enter")
	if len(h.m.cmd.jobs) != 1 {
		t.Fatalf("%d jobs after enter, want the first pasted line's", len(h.m.cmd.jobs))
	}
	<-h.m.cmd.jobs[0].job.Done()
	var ended, next []tea.Msg
	for len(ended) == 0 || len(next) == 0 {
		select {
		case msg := <-h.msgs:
			switch msg.(type) {
			case jobDoneMsg:
				ended = append(ended, msg)
			case pasteNextMsg:
				next = append(next, msg)
			default:
				h.send(msg)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the pane never heard of the line's end (%d) and the next one's turn (%d)", len(ended), len(next))
		}
	}
	h.send(next[0])
	h.send(ended[0])
	h.settle()
	text := h.text()
	failed, after := strings.Index(text, "nats: error: nats: bucket not found"), strings.Index(text, "❯ pub greet after")
	if failed < 0 || after < 0 || after < failed {
		t.Errorf("the failed line's error does not come before the next pasted line:\n%s", text)
	}
	if n := strings.Count(text, "nats: error: nats: bucket not found"); n != 1 {
		t.Errorf("the error is said %d times:\n%s", n, text)
	}
}

// A quote a paste never closes is a slip on its line, not a body over the
// lines after it: that line alone is refused for its quote, and the lines
// after it run, each its own command.
func TestAPastedLineWithAnOpenQuoteSwallowsNoOtherLine(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.send(tea.PasteMsg{Content: "pub a one\npub b \"oops\npub c 'it is\nfine'\npub d four\n"})
	want := []string{`pub b "oops`, "pub c 'it is fine'", "pub d four"}
	if v := h.m.cmd.in.Value(); v != "pub a one" || strings.Join(h.m.cmd.pasted, "|") != strings.Join(want, "|") {
		t.Fatalf("prompt %q, waiting %q; want %q", v, h.m.cmd.pasted, want)
	}
	h.key("enter")
	h.pump("every pasted line to run", func() bool { return len(h.m.cmd.pasted) == 0 && len(h.m.cmd.jobs) == 0 })
	text := h.text()
	for _, w := range []string{"quote is not closed", `Published 10 bytes to "c"`, `Published 4 bytes to "d"`} {
		if !strings.Contains(text, w) {
			t.Errorf("lacks %q:\n%s", w, text)
		}
	}
}

// A line typed right after a background line waits for it to be in place,
// as a pasted line does: a sub, then a pub typed at once, delivers.
func TestTypedLineWaitsForTheBackgroundLineBefore(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("sub greet &")
	h.key("enter")
	h.typeText("pub greet hello")
	h.key("enter")
	h.pump("the message at the sub", func() bool { return strings.Contains(h.text(), `Received on "greet"`) })
	if text := h.text(); strings.Index(text, "❯ pub greet hello") < strings.Index(text, "❯ sub greet &") {
		t.Errorf("the typed lines did not run in order:\n%s", text)
	}
}

// Lines pasted into a lesson run in turn, each once the lesson has looked
// at what the one before did, as natslab run --lesson checks after each
// line: leaf pub then leaf stop, pasted together, tick the step for the
// message the leaf passed, and the next step for what was published while
// it was away.
func TestPastedLinesInALessonEachGetALook(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("lesson leaf-node")
	h.waitScreen("lesson leaf-node 0/6")
	h.run("leaf start")
	h.waitScreen("lesson leaf-node 1/6")
	h.typeText("leaf sub greet &")
	h.key("enter")
	h.waitScreen("lesson leaf-node 2/6")
	h.run(`pub greet "hello leaf"`)
	h.waitScreen("lesson leaf-node 3/6")

	h.send(tea.PasteMsg{Content: "sub \"hub.>\" &\nleaf pub hub.news \"from the leaf\"\nleaf stop\npub greet \"while you were away\""})
	h.key("enter")
	h.pump("every pasted line to run", func() bool {
		return len(h.m.cmd.pasted) == 0 && strings.Contains(h.text(), "❯ pub greet \"while you were away\"")
	})
	h.waitScreen("lesson leaf-node 5/6")
}
