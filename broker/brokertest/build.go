package brokertest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// built remembers each binary built in this test process.
var built sync.Map // package path -> *buildResult

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// Build compiles the main package pkg (an import path, e.g.
// "github.com/nats-io/natscli/nats" or "natslab") once per test process and
// returns the binary's path. Several tests share the binary until the
// process ends, so it is not removed with any one test: it lives in a
// directory named after this process (see buildDir), which the next test
// process to build removes once this one has gone.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := built.LoadOrStore(pkg, &buildResult{})
	r := v.(*buildResult)
	r.once.Do(func() {
		dir, err := buildDir(buildRoot())
		if err != nil {
			r.err = err
			return
		}
		r.path = filepath.Join(dir, path.Base(pkg))
		if out, err := exec.Command("go", "build", "-o", r.path, pkg).CombinedOutput(); err != nil {
			r.err = fmt.Errorf("building %s: %v\n%s", pkg, err, out)
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.path
}

// buildRoot holds each test process's binaries, one directory per process.
func buildRoot() string { return filepath.Join(os.TempDir(), "natslab-test-builds") }

// buildDir returns this process's directory under root, first removing
// those of processes that have ended: a test binary cannot remove its
// shared binaries itself without a TestMain in every package that builds.
func buildDir(root string) (string, error) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || running(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name()))
	}
	dir := filepath.Join(root, strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("a directory for the test's binaries: %w", err)
	}
	return dir, nil
}
