package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

// A full disk: a small tmpfs as the store (where this test may mount one).
// The stream that hit it stops storing, and stays so after space is freed,
// until a restart: the pane says so as it happens, and again when a
// publish to it times out; restart brings it back.
func TestFullDiskIsSaidInThePaneWithWhatToDo(t *testing.T) {
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s): the full-disk lines are checked by broker's TestStorageTroubleReadsTheServersLines", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	home := t.TempDir()
	t.Setenv("HOME", home)
	store := filepath.Join(mnt, "store")
	srv := brokertest.Start(t, brokertest.WithStore(store))
	h := newHarnessOn(t, srv, store, 200, 50)
	h.run(`stream add ORDERS --subjects 'orders.>' --defaults`)

	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	nc := brokertest.Connect(t, srv, "filler")
	js, _ := jetstream.New(nc)
	body := make([]byte, 4096)
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.Publish(ctx, "orders.x", body)
		cancel()
		if err != nil {
			break
		}
		if i > 10_000 {
			t.Fatal("the disk never filled")
		}
	}
	h.pump("the pane to say the disk is full", func() bool {
		return strings.Contains(h.text(), "» stream ORDERS stopped storing: the disk under the store is full. Free some space, then type restart")
	})
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	h.run("pub orders.x after --jetstream")
	if s := h.text(); strings.Count(s, "stream ORDERS stopped storing") < 2 || strings.Contains(s, "no stream captures") {
		t.Errorf("the failed publish should say why, again:\n%s", s)
	}
	h.run("restart")
	h.run("pub orders.x after --jetstream")
	if !strings.Contains(h.text(), "Stored in Stream: ORDERS") {
		t.Errorf("after the restart the stream stores again:\n%s", h.text())
	}
}
