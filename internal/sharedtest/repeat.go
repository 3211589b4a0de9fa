package sharedtest

import "io"

// Repeat returns a reader of n copies of byte b, generated as it is read:
// inputs of gigabytes (one huge line, runs of blank lines) without holding
// them.
func Repeat(b byte, n int64) io.Reader { return &repeat{b: b, n: n} }

type repeat struct {
	b byte
	n int64
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}
