package codec

import (
	"io"

	"github.com/pierrec/lz4/v4"
)

// newLZ4FrameReader reads the LZ4 frame format (and its legacy form), which
// the lz4 command line writes. Spark writes lz4-java's LZ4Block framing
// instead, so errors say which format was being read.
func newLZ4FrameReader(name string, r io.Reader) io.ReadCloser {
	cr := &countReader{r: r}
	zr := lz4.NewReader(cr)
	return &streamReader{name: name, codec: LZ4Frame, where: "LZ4 frame (lz4 command line format; Spark writes LZ4Block)", cr: cr, dec: zr}
}
