package collector

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/wire"
)

// FuzzIngest feeds arbitrary bodies through the whole handler, compressed
// and not: it must reply 200, 400 or 413, never panic, and store only what
// decodes.
func FuzzIngest(f *testing.F) {
	f.Add(wire.EncodeBatch(testBatch("n1", 1, 40)), true)
	f.Add(wire.AppendBatch(nil, testBatch("n1", 2, 3)), false)
	f.Add([]byte("CLB\x01"), false)
	s, _ := newTestServer(f, func(c *Config) {
		c.MaxBodyBytes = 1 << 16
		c.Limits = wire.Limits{MaxBytes: 1 << 20, MaxSamples: 1 << 12, MaxString: 1 << 10}
	})
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte, compressed bool) {
		enc := ""
		if compressed {
			enc = wire.Encoding
		}
		rec := post(h, testToken, enc, body)
		switch rec.Code {
		case 200, 400, 413:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
