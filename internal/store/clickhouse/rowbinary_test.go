package clickhouse

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/model"
)

// decodeAll decodes samples until the input ends or is malformed.
func decodeAll(data []byte) ([]model.Sample, error) {
	d := clickhttp.NewRowReader(bytes.NewReader(data))
	var out []model.Sample
	for {
		end, err := d.AtEOF()
		if end || err != nil {
			return out, err
		}
		var s model.Sample
		if err := readSample(d, &s); err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// encodeQueryRows encodes samples in the column order of Query's SELECT
// (host, type, target, time, value, text), which differs from the insert
// order appendSample writes.
func encodeQueryRows(ss []model.Sample) []byte {
	var b []byte
	for _, s := range ss {
		b = clickhttp.AppendString(b, s.Host)
		b = clickhttp.AppendString(b, s.Type)
		b = clickhttp.AppendString(b, s.Target)
		b = clickhttp.AppendInt64(b, s.Time)
		b = clickhttp.AppendFloat64(b, s.Value)
		b = clickhttp.AppendString(b, s.Text)
	}
	return b
}

func TestRowBinaryRoundTrip(t *testing.T) {
	in := []model.Sample{
		{Time: -1, Host: "h", Type: "t", Value: math.Inf(-1)},
		{Time: 1 << 62, Host: "h", Type: "t", Target: string(make([]byte, 300)), Value: 5e-324, Text: "ü\n\t"},
		{Time: 0, Host: "", Type: "", Value: math.Float64frombits(0x7ff8000000000bad)},
	}
	got, err := decodeAll(encodeQueryRows(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("decoded %d samples, want %d", len(got), len(in))
	}
	for i := range in {
		if got[i].Key() != in[i].Key() || got[i].Text != in[i].Text || math.Float64bits(got[i].Value) != math.Float64bits(in[i].Value) {
			t.Errorf("sample %d: got %+v, want %+v", i, got[i], in[i])
		}
	}
}

func TestRowBinaryMalformed(t *testing.T) {
	whole := encodeQueryRows([]model.Sample{{Time: 5, Host: "host", Type: "type", Value: 1, Text: "text"}})
	for cut := 1; cut < len(whole); cut++ {
		_, err := decodeAll(whole[:cut])
		if !errors.Is(err, clickhttp.ErrFormat) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d: err %v, want a malformed RowBinary error at unexpected EOF", cut, err)
		}
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x0f} // a string length of 2^39-1
	if _, err := decodeAll(huge); !errors.Is(err, clickhttp.ErrFormat) {
		t.Errorf("huge string length: err %v, want malformed", err)
	}
}

// FuzzRowReader: any input decodes without panicking, and what decodes
// re-encodes to the bytes it came from.
func FuzzRowReader(f *testing.F) {
	f.Add(encodeQueryRows([]model.Sample{{Time: 1, Host: "a", Type: "b", Target: "c", Value: 2, Text: "d"}}))
	f.Add([]byte{0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := decodeAll(data)
		if err == nil {
			if re := encodeQueryRows(ss); !bytes.Equal(re, data) {
				// Only non-minimal length varints may differ.
				if len(re) >= len(data) {
					t.Fatalf("re-encoding %x gave %x", data, re)
				}
			}
		}
	})
}
