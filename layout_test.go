package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// importRule is one line of the package map (README, Development): the
// packages matching Of must not depend on any matching Not, directly or
// not. With Tests, their tests are held to it too.
type importRule struct {
	Of, Why string
	Not     []string
	Tests   bool
}

// importRules are what the packages' doc comments promise. A pattern is an
// import path below natslab; "x/..." is x and everything below it.
var importRules = []importRule{
	{Of: "assets", Not: []string{"..."}, Tests: true,
		Why: "lesson text and episode definitions are data: anything may read them"},
	{Of: "broker/...", Not: []string{"lab/...", "scenes/...", "assets"}, Tests: true,
		Why: "the broker layer is what every other layer builds on"},
	{Of: "broker", Not: []string{"broker/command/...", "broker/script", "broker/walkthrough", "broker/brokertest"},
		Why: "the deployment knows nothing of the command language"},
	{Of: "broker/text", Not: []string{"..."}, Tests: true,
		Why: "the shared text helpers stand alone"},
	{Of: "broker/realcli", Not: []string{"..."},
		Why: "the real CLI's child process runs only this"},
	{Of: "scenes/...", Not: []string{"lab/..."}, Tests: true,
		Why: "scenes never import the lab: the lab hosts them"},
	{Of: "scenes/...", Not: []string{"broker/script", "broker/walkthrough"},
		Why: "a scene watches the broker; it does not run scripts"},
	{Of: "lab/episode", Not: []string{"lab", "lab/demo", "lab/workshop", "scenes/..."},
		Why: "the curriculum engine knows nothing of the screen"},
	{Of: "lab/policy", Not: []string{"lab/...", "broker/command/..."},
		Why: "process and terminal decisions stand apart from what runs under them"},
	{Of: "lab/policy/startup", Not: []string{"..."},
		Why: "it is initialised before the packages it pauses the collector for"},
	{Of: "lab/policy/prefault", Not: []string{"..."}, Tests: true,
		Why: "it is initialised before the packages whose memory it maps"},
	{Of: "broker/keytables", Not: []string{"..."},
		Why: "it is initialised early, so that its tables are ready when the server starts"},
	{Of: "broker/jsonwarm", Not: []string{"..."},
		Why: "it is initialised before the command language, so that its tables are ready for the first answer"},
	{Of: "lab/prose", Not: []string{"..."},
		Why: "the rendered lesson text is data the binary embeds"},
	{Of: "lab", Not: []string{"lab/demo", "lab/workshop"},
		Why: "the demo and the workshop build on the lab, not the other way"},
	{Of: "lab/demo", Not: []string{"lab", "lab/episode", "lab/workshop"},
		Why: "the presenter demo is a scene and a story, not the lab"},
}

// matches reports whether the natslab package pkg (below natslab) matches
// pattern.
func matches(pattern, pkg string) bool {
	switch {
	case pattern == "...":
		return true
	case strings.HasSuffix(pattern, "/..."):
		base := strings.TrimSuffix(pattern, "/...")
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// TestImportRules checks the package map with go list -deps -test: the
// rules hold for every package and, where a rule says so, for its tests.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// local turns "natslab/lab/episode [natslab/lab.test]" into
	// "lab/episode", and a test binary or external test package into the
	// package it tests; ok is false outside natslab.
	local := func(p string) (name string, test, ok bool) {
		p, variant, _ := strings.Cut(p, " ")
		if p != "natslab" && !strings.HasPrefix(p, "natslab/") {
			return "", false, false
		}
		test = variant != "" || strings.HasSuffix(p, ".test") || strings.HasSuffix(p, "_test")
		p = strings.TrimSuffix(strings.TrimSuffix(p, ".test"), "_test")
		return strings.TrimPrefix(strings.TrimPrefix(p, "natslab"), "/"), test, true
	}
	checked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		from, deps, _ := strings.Cut(line, "\t")
		pkg, test, ok := local(from)
		if !ok || pkg == "" {
			continue // natslab itself (main) may import anything
		}
		for _, r := range importRules {
			if !matches(r.Of, pkg) || (test && !r.Tests) {
				continue
			}
			checked[r.Of] = true
			for _, d := range strings.Fields(deps) {
				dep, _, ok := local(d)
				if !ok || dep == "" || dep == pkg {
					continue
				}
				for _, not := range r.Not {
					if matches(not, dep) {
						t.Errorf("%s depends on natslab/%s (via %s), but %s: %s", from, dep, d, r.Of, r.Why)
					}
				}
			}
		}
	}
	for _, r := range importRules {
		if !checked[r.Of] {
			t.Errorf("no package matches rule %q: the map is out of date", r.Of)
		}
	}
}

// The rules can fail: matches sees through a pattern, and a dependency of a
// test variant counts.
func TestImportRulesMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"lab/...", "lab", true},
		{"lab/...", "lab/episode", true},
		{"lab/...", "labx", false},
		{"lab", "lab/episode", false},
		{"...", "assets", true},
		{"scenes/...", "scenes/kit/kittest", true},
	} {
		if got := matches(c.pattern, c.pkg); got != c.want {
			t.Errorf("matches(%q, %q) = %v", c.pattern, c.pkg, got)
		}
	}
	if !slices.ContainsFunc(importRules, func(r importRule) bool {
		return r.Of == "scenes/..." && r.Tests && slices.Contains(r.Not, "lab/...")
	}) {
		t.Error("the rule that scenes never import the lab, tests included, is missing")
	}
}

// The top level holds what the layout names and nothing else: main's own
// files, the module files, the README, the four package trees and CI. A
// stray file (a store, a script's output) committed by accident fails here.
func TestTopLevelIsTheLayout(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	dirs := []string{"assets", "broker", "lab", "scenes", ".ci"}
	files := []string{"go.mod", "go.sum", "README.md", ".gitignore"}
	for _, f := range strings.Fields(string(out)) {
		top, _, nested := strings.Cut(f, "/")
		switch {
		case nested && slices.Contains(dirs, top):
		case !nested && (slices.Contains(files, top) || strings.HasSuffix(top, ".go")):
		default:
			t.Errorf("%s is outside the layout (main.go and main's files, go.mod, go.sum, README.md, %s)", f, strings.Join(dirs, ", "))
		}
	}
}

// Every start of natslab initialises every package it links, whatever it
// then runs, so a pattern compiled at package level is paid for by every
// `natslab run` before its first answer. natslab's own patterns are
// text.Pattern, compiled the first time they are asked for; this compiles
// each of them here, so a mistake in one fails now rather than on the path
// that first uses it.
func TestPatternsCompileOnFirstUse(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if or (eq .ImportPath "natslab") (eq (printf "%.8s" .ImportPath) "natslab/")}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	compiles := func(call *ast.CallExpr) bool {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile")
	}
	patterns := 0
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, files, _ := strings.Cut(line, " ")
		for _, name := range strings.Fields(files) {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.VAR {
					continue
				}
				// A function literal in the value runs later, if at all.
				ast.Inspect(gen, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && compiles(call) {
						t.Errorf("%s: a pattern compiled while the package initialises: use text.Pattern", fset.Position(call.Pos()))
					}
					_, lit := n.(*ast.FuncLit)
					return !lit
				})
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Pattern" {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "text" {
					return true
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: text.Pattern takes a literal, so this test can compile it", fset.Position(call.Pos()))
					return true
				}
				expr, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := regexp.Compile(expr); err != nil {
					t.Errorf("%s: %v", fset.Position(call.Pos()), err)
				}
				patterns++
				return true
			})
		}
	}
	if patterns == 0 {
		t.Error("no text.Pattern found: the scan reads nothing")
	}
}
