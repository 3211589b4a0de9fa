package codec

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// sampleLog returns about n bytes of text shaped like a Spark event log.
func sampleLog(n int) []byte {
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":%d,"Index":%d,"Attempt":0,"Launch Time":%d,"Executor ID":"%d","Host":"host-%d.example.com","Locality":"PROCESS_LOCAL","Speculative":false,"Finish Time":%d,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":%d,"JVM GC Time":%d,"Result Size":%d}}`+"\n",
			i/200, i, i%200, 1700000000000+int64(i)*37, rng.IntN(16), rng.IntN(8), 1700000000000+int64(i)*37+int64(rng.IntN(9000)), rng.IntN(9000), rng.IntN(300), 1000+rng.IntN(2000))
	}
	return b.Bytes()
}

// randomBytes returns n incompressible bytes.
func randomBytes(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// flushMark records, after a Flush, how many compressed bytes were written
// and how many plain bytes they hold.
type flushMark struct{ compressed, plain int }

// compress writes plain in codec c, flushing every flushEvery bytes (0: never),
// and returns the stream and the flush marks (the last one after Close).
func compress(t testing.TB, c Codec, plain []byte, flushEvery int) ([]byte, []flushMark) {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(c, &out)
	if err != nil {
		t.Fatal(err)
	}
	var marks []flushMark
	for p := 0; p < len(plain); {
		n := len(plain) - p
		if flushEvery > 0 {
			n = min(n, flushEvery)
		}
		if _, err := w.Write(plain[p : p+n]); err != nil {
			t.Fatal(err)
		}
		p += n
		if flushEvery > 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			marks = append(marks, flushMark{out.Len(), p})
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	marks = append(marks, flushMark{out.Len(), len(plain)})
	return out.Bytes(), marks
}

// decodeAll opens data as a file named name and reads it to the end.
func decodeAll(name string, data []byte) ([]byte, Codec, error) {
	r, c, err := Open(name, bytes.NewReader(data))
	if err != nil {
		return nil, c, err
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	return out, c, err
}
