package brokertest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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
// returns the binary's path. The temporary directory is left for the OS:
// several tests share the binary until the process ends.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := built.LoadOrStore(pkg, &buildResult{})
	r := v.(*buildResult)
	r.once.Do(func() {
		dir, err := os.MkdirTemp("", "natslab-build-")
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
