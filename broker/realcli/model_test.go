package realcli

import (
	"os"
	"regexp"
	"testing"
)

func TestLeavesAreNatscliV050s(t *testing.T) {
	leaves := Leaves()
	if len(leaves) != 235 {
		t.Fatalf("natscli v0.5.0 has 235 leaf commands; the model has %d", len(leaves))
	}
	want := map[string]bool{"server mappings": false, "object put": false, "stream copy": false, "help": false, "bench js pub sync": false}
	for _, l := range leaves {
		if _, ok := want[l]; ok {
			want[l] = true
		}
	}
	for l, ok := range want {
		if !ok {
			t.Errorf("%q is not among the leaves", l)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
		leaf bool
	}{
		{"stream copy ORDERS ARCHIVE --subjects x", "stream copy", true},
		{"--server nats://x:4222 obj put FILES a.txt", "object put", true},
		{"-s nats://x:4222 server mapping foo", "server mappings", true},
		{"--timeout 2s bench js pub sync x", "bench js pub sync", true},
		{"server", "server", false},
		{"server nope", "server", false},
		{"nope", "", false},
	} {
		l := Parse(splitFields(tc.line))
		if got := l.Name(); got != tc.want || l.Leaf != tc.leaf {
			t.Errorf("Parse(%q) names %q leaf=%v, want %q leaf=%v", tc.line, got, l.Leaf, tc.want, tc.leaf)
		}
	}
}

func TestParseFlagsAndArgs(t *testing.T) {
	l := Parse(splitFields("--context=lab obj get FILES notes.txt -O out.txt --no-progress"))
	if l.Name() != "object get" {
		t.Fatalf("names %q", l.Name())
	}
	if got := l.Flags["context"]; len(got) != 1 || got[0] != "lab" {
		t.Errorf("--context = %q", got)
	}
	if got := l.Flags["output"]; len(got) != 1 || got[0] != "out.txt" {
		t.Errorf("-O = %q", got)
	}
	if got := l.Flags["progress"]; len(got) != 1 || got[0] != "false" {
		t.Errorf("--no-progress = %q", got)
	}
	if got := l.Args["bucket"]; len(got) != 1 || got[0] != "FILES" {
		t.Errorf("bucket = %q (args %v)", got, l.Args)
	}
	if got := l.Args["file"]; len(got) != 1 || got[0] != "notes.txt" {
		t.Errorf("file = %q (args %v)", got, l.Args)
	}
	if l := Parse([]string{"server", "nope"}); l.Next != "nope" || l.Leaf {
		t.Errorf("server nope: next %q leaf %v", l.Next, l.Leaf)
	}
	if l := Parse([]string{"--version"}); !l.AllFlags || len(l.Path) != 0 {
		t.Errorf("--version: %+v", l)
	}
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, r := range s + " " {
		if r == ' ' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(r)
	}
	return out
}

func BenchmarkModel(b *testing.B) {
	for b.Loop() {
		app, _, err := newApp(true)
		if err != nil {
			b.Fatal(err)
		}
		app.Model()
	}
}

func TestPinnedIsGoModsVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(Module) + `\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatalf("go.mod does not require %s", Module)
	}
	if got := string(m[1]); got != Pinned {
		t.Errorf("go.mod requires %s %s, realcli.Pinned says %s", Module, got, Pinned)
	}
}
