package broker

import (
	"testing"
	"time"
)

// BenchmarkClusterForm starts the three-node cluster on a fresh store and
// reports how long it took to have every node up (formed) and to have a
// JetStream meta leader that knows every node (elected): the lab promises
// under a second for both.
//
//	go test ./broker/ -run '^$' -bench ClusterForm -benchtime 5x
func BenchmarkClusterForm(b *testing.B) {
	var formed, elected time.Duration
	for i := 0; i < b.N; i++ {
		s, err := Start(Options{StoreDir: b.TempDir(), JetStream: true, Listen: "none", Cluster: ClusterSize})
		if err != nil {
			b.Fatal(err)
		}
		formed += s.cluster.formed
		elected += s.cluster.elected
		b.StopTimer()
		s.Shutdown()
		b.StartTimer()
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((formed/n).Microseconds())/1000, "ms-formed")
	b.ReportMetric(float64((elected/n).Microseconds())/1000, "ms-meta-leader")
	b.Logf("cluster of %d formed in %s, meta leader elected after %s (mean of %d)", ClusterSize, (formed / n).Round(time.Millisecond), (elected / n).Round(time.Millisecond), b.N)
}
