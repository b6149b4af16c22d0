package broker

import (
	"strings"
	"testing"
)

// Lines as nats-server 2.15 logs them (a full tmpfs, junk in a stream's
// meta.inf, a node of the cluster), and what the lab says of each.
func TestStorageTroubleReadsTheServersLines(t *testing.T) {
	for _, c := range []struct {
		line, stream, want string
	}{
		{`[7] 2026/12/03 16:40:01.098625 [ERR] JetStream stream '$G > ORDERS' critical write error: write /s/jetstream/$G/streams/ORDERS/msgs/1.blk: no space left on device`,
			"ORDERS", "stream ORDERS stopped storing: the disk under the store is full. Free some space, then type restart"},
		{`[7] 2026/12/03 16:40:01.098625 [ERR] [n2] JetStream stream '$G > ORDERS' critical write error: open /s/msgs/2.blk: read-only file system`,
			"ORDERS", "stream ORDERS stopped storing: the server could not write its files (open /s/msgs/2.blk: read-only file system)"},
		{`[7] 2026/12/03 16:40:01.828944 [WRN]   Stream metafile "/s/jetstream/$G/streams/ORDERS/meta.inf": checksums do not match "690c4b5d785548ce" vs "42c569ddfc4c41cc"`,
			"ORDERS", "stream ORDERS was not loaded: its configuration file in /s/jetstream/$G/streams/ORDERS is damaged"},
		{`[7] 2026/12/03 16:40:01.828944 [WRN]   Error unmarshalling stream metafile "/s/jetstream/$G/streams/EVENTS/meta.inf": invalid character 'j'`,
			"EVENTS", "stream EVENTS was not loaded"},
		{`[7] 2026/12/03 16:40:01.828944 [WRN]   Error recreating stream "EVENTS": bad things`,
			"EVENTS", "stream EVENTS was not loaded: bad things."},
		{`[7] 2026/12/03 16:40:01.828944 [ERR] JetStream out of file resources, will be DISABLED`,
			"", "JetStream switched itself off: the disk under the store is full"},
		{`[7] 2026/12/03 16:40:01.828944 [ERR] JetStream file resource limits exceeded for server`,
			"", "JetStream's file is full: the server's storage limit is reached"},
	} {
		got, ok := StorageTrouble(c.line, "type restart")
		if !ok || got.Stream != c.stream || !strings.HasPrefix(got.Line, c.want) {
			t.Errorf("%s\n  gave %+v (ok %v), want stream %q and %q…", c.line, got, ok, c.stream, c.want)
		}
		if strings.Contains(got.Line, "\n") {
			t.Errorf("more than one line: %q", got.Line)
		}
	}
	for _, quiet := range []string{
		`[7] 2026/12/03 16:40:01.892027 [INF]   Restored 10 messages for stream '$G > ORDERS' in 1ms`,
		`[7] 2026/12/03 16:40:01.891667 [WRN] Filestore [ORDERS] Recovering stream state from index errored: corrupt state file`,
	} {
		if got, ok := StorageTrouble(quiet, "type restart"); ok {
			t.Errorf("%s\n  is no trouble to tell, gave %+v", quiet, got)
		}
	}
}
