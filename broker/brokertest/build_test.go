//go:build unix

package brokertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A test process's binaries are removed by the next one to build once the
// process has ended; a running process's stay, this one's included.
func TestBuildDirRemovesTheBinariesOfEndedProcesses(t *testing.T) {
	root := t.TempDir()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(root, strconv.Itoa(ended.Process.Pid))
	alive := filepath.Join(root, "1") // init runs as long as the machine does
	other := filepath.Join(root, "not-a-process")
	for _, d := range []string{gone, alive, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := buildDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(root, strconv.Itoa(os.Getpid())) {
		t.Errorf("this process's directory is %s", dir)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the ended process's binaries are still there (%v)", err)
	}
	for _, d := range []string{alive, other, dir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s should stay: %v", d, err)
		}
	}
}
