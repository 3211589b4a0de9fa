package source

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// BenchmarkFind lists the logs of shared/data/logs (about 140 files, a
// third of them compressed): stat, sniff and classify every file.
func BenchmarkFind(b *testing.B) {
	dir := sharedtest.Dir(b, "logs")
	b.ReportAllocs()
	for b.Loop() {
		logs, _, err := Find([]string{dir}, testOpts)
		if err != nil || len(logs) == 0 {
			b.Fatal(logs, err)
		}
	}
}
