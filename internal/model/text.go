package model

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Text is a long, rarely read string (a query's plan text or call site)
// kept zstd-compressed: SQL plans repeat their column lists and operator
// names, so they shrink several times, and an application with thousands
// of queries holds megabytes instead of hundreds of them. Short texts, and
// texts that do not shrink by a quarter, are kept as they are. The zero
// value is the empty text.
type Text struct {
	b      []byte
	n      int // the text's length
	packed bool
}

// packMin is the shortest text worth compressing.
const packMin = 256

var (
	textEncOnce sync.Once
	textEnc     *zstd.Encoder
	textDec     *zstd.Decoder
)

func textCodec() (*zstd.Encoder, *zstd.Decoder) {
	textEncOnce.Do(func() {
		// Options that cannot fail: a known level and concurrency.
		textEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), zstd.WithWindowSize(1<<20))
		textDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<30))
	})
	return textEnc, textDec
}

// PackText packs s.
func PackText(s string) Text {
	if len(s) < packMin {
		return Text{b: []byte(s), n: len(s)}
	}
	enc, _ := textCodec()
	z := enc.EncodeAll([]byte(s), make([]byte, 0, len(s)/4))
	if len(z) > len(s)*3/4 {
		return Text{b: []byte(s), n: len(s)}
	}
	return Text{b: z[:len(z):len(z)], n: len(s), packed: true}
}

// String unpacks the text.
func (t Text) String() string {
	if !t.packed {
		return string(t.b)
	}
	_, dec := textCodec()
	out, err := dec.DecodeAll(t.b, nil)
	if err != nil { // only PackText makes packed texts
		return ""
	}
	return string(out)
}

// Empty reports whether the text is "".
func (t Text) Empty() bool { return len(t.b) == 0 }

// Size is the bytes the text occupies packed.
func (t Text) Size() int { return len(t.b) }

// Len is the text's length unpacked.
func (t Text) Len() int { return t.n }

// GobEncode gives gob the text as kept: a flag byte (1 packed), the
// unpacked length as a uvarint, then the bytes.
func (t Text) GobEncode() ([]byte, error) {
	if len(t.b) == 0 {
		return nil, nil
	}
	flag := byte(0)
	if t.packed {
		flag = 1
	}
	return append(binary.AppendUvarint([]byte{flag}, uint64(t.n)), t.b...), nil
}

// GobDecode takes the text from gob.
func (t *Text) GobDecode(b []byte) error {
	if len(b) == 0 {
		*t = Text{}
		return nil
	}
	n, k := binary.Uvarint(b[1:])
	if b[0] > 1 || k <= 0 || n > 1<<40 {
		return fmt.Errorf("text: bad header")
	}
	*t = Text{b: append([]byte(nil), b[1+k:]...), packed: b[0] == 1, n: int(n)}
	return nil
}
