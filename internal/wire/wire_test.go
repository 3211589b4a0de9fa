package wire

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/model"
)

// nodeSecond is one realistic agent batch: the 22 canonical node metrics
// plus per-device and per-CPU ones for one host over secs seconds.
func nodeSecond(host string, t0 int64, secs int) *Batch {
	b := &Batch{Agent: host + "/1a2b3c", Seq: 7}
	for s := 0; s < secs; s++ {
		t := t0 + int64(s)*1000
		for i, name := range model.NodeMetricNames {
			b.Samples = append(b.Samples, model.Sample{Time: t, Host: host, Type: name, Value: float64(i*s) * 1.25})
		}
		for _, dev := range []string{"sda", "sdb", "eth0"} {
			b.Samples = append(b.Samples,
				model.Sample{Time: t, Host: host, Type: "disk_read_bytes_per_s", Target: dev, Value: 4096 * float64(s)},
				model.Sample{Time: t, Host: host, Type: "disk_write_bytes_per_s", Target: dev, Value: 8192 * float64(s)})
		}
		for c := 0; c < 12; c++ {
			b.Samples = append(b.Samples, model.Sample{Time: t, Host: host, Type: "cpu_usage", Target: fmt.Sprintf("cpu%d", c), Value: float64(c) + 0.5})
		}
	}
	return b
}

func TestWireRoundTrip(t *testing.T) {
	cases := []*Batch{
		{Agent: "a", Seq: 1},
		nodeSecond("node-01", 1_700_000_000_000, 1),
		nodeSecond("node-02", 1_700_000_000_000, 30),
		{Agent: "ä/ß", Seq: math.MaxUint64, Samples: []model.Sample{
			{Time: -5, Host: "h", Type: model.ThreadSampleType, Target: "12/34", Value: -1, Text: "exec-1\tmain\tRUNNABLE\tjava.lang.Thread.run\nfoo"},
			{Time: math.MaxInt64, Host: "h", Type: "x", Value: math.Inf(-1)},
			{Time: math.MinInt64, Host: "", Type: "", Value: math.SmallestNonzeroFloat64},
		}},
	}
	for _, b := range cases {
		got, err := DecodeBatch(EncodeBatch(b))
		if err != nil {
			t.Fatalf("decode %s/%d: %v", b.Agent, b.Seq, err)
		}
		want := *b
		if want.Samples == nil {
			want.Samples = []model.Sample{}
		}
		if d := cmp.Diff(&want, got); d != "" {
			t.Errorf("round trip %s/%d (-want +got):\n%s", b.Agent, b.Seq, d)
		}
	}
	// Invalid UTF-8 (a binary log line) is replaced, not refused.
	bad := &Batch{Agent: "a", Seq: 1, Samples: []model.Sample{{Host: "h\xff", Type: "t", Text: "x\xfe\xfdy"}}}
	got, err := DecodeBatch(EncodeBatch(bad))
	if err != nil || got.Samples[0].Text != "x\uFFFDy" || got.Samples[0].Host != "h\uFFFD" {
		t.Fatalf("invalid UTF-8: %+v, %v", got, err)
	}
	// NaN compares unequal to itself; check its bits survive.
	b := &Batch{Agent: "a", Seq: 1, Samples: []model.Sample{{Host: "h", Type: "t", Value: math.NaN()}}}
	got, err = DecodeBatch(EncodeBatch(b))
	if err != nil || !math.IsNaN(got.Samples[0].Value) {
		t.Fatalf("NaN round trip: %v, %v", got, err)
	}
}

// TestWireLayout checks the documented layout byte by byte against an
// encoding written out by hand from the format description.
func TestWireLayout(t *testing.T) {
	b := &Batch{Agent: "n1", Seq: 300, Samples: []model.Sample{
		{Time: 1000, Host: "n1", Type: "load1", Value: 1},
		{Time: 999, Host: "n1", Type: "load1", Target: "x", Value: 0, Text: "hi"},
	}}
	want := []byte{
		'C', 'L', 'B', 1,
		2, 'n', '1', // agent
		0xac, 0x02, // seq 300
		4, // strings: n1, load1, "", x
		2, 'n', '1', 5, 'l', 'o', 'a', 'd', '1', 0, 1, 'x',
		2,          // samples
		0xd0, 0x0f, // time +1000 zigzag = 2000
		0, 1, 2, // host, type, target
		0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // 1.0
		0,    // no text
		0x01, // time -1 zigzag = 1
		0, 1, 3,
		0, 0, 0, 0, 0, 0, 0, 0,
		2, 'h', 'i',
	}
	got := AppendBatch(nil, b)
	if !bytes.Equal(got, want) {
		t.Fatalf("encoding\n got % x\nwant % x", got, want)
	}
	// The compressed form is a standard zstd frame any decoder reads.
	dec, _ := zstd.NewReader(nil)
	raw, err := dec.DecodeAll(EncodeBatch(b), nil)
	if err != nil || !bytes.Equal(raw, want) {
		t.Fatalf("zstd frame: %v, % x", err, raw)
	}
}

func TestWireErrors(t *testing.T) {
	good := AppendBatch(nil, nodeSecond("n", 1, 2))
	lim := Limits{MaxBytes: 1 << 20, MaxSamples: 1000, MaxString: 64}
	cases := []struct {
		name string
		raw  []byte
		lim  Limits
		want string
	}{
		{"empty", nil, lim, `want magic "CLB" at offset 0`},
		{"magic", []byte("PK\x03\x04"), lim, `want magic`},
		{"version", []byte("CLB\x02"), lim, "wire version 2, this build reads version 1"},
		{"truncated", good[:len(good)-3], lim, "want sample count that fits the 1038 remaining bytes, got 80"},
		{"truncated text", []byte("CLB\x01\x01a\x01\x01\x01h\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05ab"), lim, "malformed batch: sample 0 at offset 23: want text of 5 bytes, only 2 remain"},
		{"trailing", append(append([]byte{}, good...), 0), lim, "want the end of the batch, 1 bytes follow"},
		{"samples limit", good, Limits{MaxSamples: 10}, "want sample count ≤ 10, got 80"},
		{"string limit", good, Limits{MaxString: 2}, "want agent id of at most 2 bytes, got 8"},
		{"bytes limit", good, Limits{MaxBytes: 100}, "exceeds the limit of 100 bytes"},
		{"no agent", []byte("CLB\x01\x00\x01\x00\x00"), lim, "want a non-empty agent id"},
		{"seq 0", []byte("CLB\x01\x01a\x00\x00\x00"), lim, "want a sequence number ≥ 1"},
		{"forged count", []byte("CLB\x01\x01a\x01\x00\xff\xff\x03"), Limits{}, "want sample count that fits the 0 remaining bytes, got 65535"},
		{"bad index", append([]byte("CLB\x01\x01a\x01\x01\x01h\x01\x02\x00\x01"), make([]byte, 10)...), lim, "want type index < 1 (string table size), got 1"},
		{"utf8", []byte("CLB\x01\x02\xff\xfe\x01\x00\x00"), lim, "want agent id in UTF-8"},
	}
	for _, c := range cases {
		_, err := UnmarshalBatch(c.raw, c.lim)
		if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ErrMalformed containing %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, err)
		}
	}
}

func TestDecoderLimits(t *testing.T) {
	// A zstd bomb: 32 MiB of zeros compresses to a few KiB.
	enc, _ := zstd.NewWriter(nil)
	bomb := enc.EncodeAll(make([]byte, 32<<20), nil)
	d, err := NewDecoder(Limits{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode(bomb); err == nil || !errors.Is(err, ErrMalformed) {
		t.Fatalf("bomb: got %v, want ErrMalformed", err)
	}
	if _, err := d.Decode([]byte("not zstd")); err == nil || !errors.Is(err, ErrMalformed) {
		t.Fatalf("not zstd: got %v, want ErrMalformed", err)
	}
	if got := d.Limits(); got.MaxSamples != DefaultLimits.MaxSamples || got.MaxBytes != 1<<20 {
		t.Fatalf("limits %+v", got)
	}
}

func FuzzUnmarshalBatch(f *testing.F) {
	f.Add(AppendBatch(nil, nodeSecond("n", 1, 1)))
	f.Add(AppendBatch(nil, &Batch{Agent: "a", Seq: 1, Samples: []model.Sample{{Text: "t"}}}))
	f.Add([]byte("CLB\x01"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		lim := Limits{MaxBytes: 1 << 20, MaxSamples: 1 << 12, MaxString: 1 << 10}
		b, err := UnmarshalBatch(raw, lim)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		// What decodes re-encodes to a batch that decodes the same.
		again, err := UnmarshalBatch(AppendBatch(nil, b), lim)
		if err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		if len(again.Samples) != len(b.Samples) || again.Agent != b.Agent || again.Seq != b.Seq {
			t.Fatalf("re-encoded batch differs")
		}
	})
}

func FuzzDecodeBatch(f *testing.F) {
	f.Add(EncodeBatch(nodeSecond("n", 1, 1)))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	d, _ := NewDecoder(Limits{MaxBytes: 1 << 20, MaxSamples: 1 << 12, MaxString: 1 << 10})
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := d.Decode(body); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error does not wrap ErrMalformed: %v", err)
		}
	})
}

func benchBatch() *Batch { return nodeSecond("node-017.cluster.example", 1_700_000_000_000, 1) }

func BenchmarkEncodeBatch(b *testing.B) {
	batch := benchBatch()
	raw := AppendBatch(nil, batch)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(EncodeBatch(batch))
	}
	b.ReportMetric(float64(len(batch.Samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(n), "wire-bytes")
}

func BenchmarkDecodeBatch(b *testing.B) {
	batch := benchBatch()
	body := EncodeBatch(batch)
	b.SetBytes(int64(len(AppendBatch(nil, batch))))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeBatch(body); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(batch.Samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
