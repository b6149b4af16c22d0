package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/command"
)

// A history file is the lab's own, but anything can happen to it: a paste
// of a megabyte run once, an editor's binary junk, a crash mid-write. None
// of it may stop the lines after it from being recalled.
func TestHistoryLoadingSurvivesAnyLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), historyFile)
	content := "pub a one\n" +
		strings.Repeat("x", 2<<20) + "\n" + // over a MiB
		"pub a two\n" +
		"pub a secret --password hunter2\n" + // kept by an older natslab: never recalled
		"\x00\x01\xff\xfe junk\x1b[31m\n" + // binary junk
		strings.Repeat("y", command.MaxLineLength+10) + "\n" + // longer than a line may be
		"pub a three\n" +
		"pub a fou" // cut off mid-write
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	h := loadHistory(path, 100)
	want := []string{"pub a one", "pub a two", "pub a three", "pub a fou"}
	if strings.Join(h.items, "|") != strings.Join(want, "|") {
		t.Fatalf("recalled %q, want %q", clipItems(h.items), want)
	}
	// Walking back reaches the oldest line.
	var got []string
	for {
		l, ok := h.prev("")
		if !ok {
			break
		}
		got = append(got, l)
	}
	if len(got) != 4 || got[3] != "pub a one" {
		t.Errorf("↑ walked %q", got)
	}
	// The file was rewritten without what cannot be recalled: bounded again.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != strings.Join(want, "\n")+"\n" {
		t.Errorf("the file keeps what cannot be recalled (%d bytes)", len(data))
	}
	// New lines go on after it.
	h.add("pub a five")
	if again := loadHistory(path, 100); len(again.items) != 5 || again.items[4] != "pub a five" {
		t.Errorf("after adding, reloaded %q", again.items)
	}
}

func TestHistoryFileIsBoundedInBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), historyFile)
	var b strings.Builder
	for range 3 {
		b.WriteString(strings.Repeat("z", 2<<20) + "\n")
	}
	b.WriteString("pub kept\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h := loadHistory(path, 10)
	if len(h.items) != 1 || h.items[0] != "pub kept" {
		t.Fatalf("recalled %d items", len(h.items))
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len("pub kept\n")) {
		t.Errorf("the file was not compacted: %v %v", fi.Size(), err)
	}
}

func TestLinesWithSecretsStayOutOfTheHistory(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.run("pub greet hello")
	secrets := []string{
		"pub greet hi --password hunter2", // accepted or not, a password
		"stream ls --user alice --password=hunter2",
		"sub x --token hunter2 &", // a job: its name shows while it runs
		"pub x --creds /home/me/alice.creds",
		"pub x -s nats://alice:hunter2@localhost:4222", // a refused flag, a URL with a password
		"pub x 'see nats://hunter2@127.0.0.1:4222'",    // a token in a URL, anywhere
		"bogus --server alice:hunter2@localhost",       // a refused command
	}
	for _, l := range secrets {
		h.runOrStart(l)
	}
	data, err := os.ReadFile(filepath.Join(h.store, historyFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "pub greet hello\n" {
		t.Errorf("the history file holds:\n%s", data)
	}
	if strings.Contains(string(data), "hunter2") || strings.Join(h.m.cmd.hist.items, "\n") != "pub greet hello" {
		t.Errorf("a secret was kept: %q", h.m.cmd.hist.items)
	}
	h.key("up")
	if v := h.m.cmd.in.Value(); v != "pub greet hello" {
		t.Errorf("↑ brought back %q", v)
	}
	if n := strings.Count(h.text(), "Kept out of the history"); n != 1 {
		t.Errorf("the pane said %d times that lines were kept out (want once):\n%s", n, h.text())
	}
	if !strings.Contains(h.text(), "secret: --password") {
		t.Errorf("the remark does not say what the secret was:\n%s", h.text())
	}
}

func clipItems(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		out[i] = s
	}
	return out
}
