package codec

import (
	"errors"
	"io"
)

// Ning compress-lzf chunk format, as Spark's LZFCompressionCodec writes it:
//
//	'Z' 'V' 0x00 | uncompressed length (2 bytes BE) | data
//	'Z' 'V' 0x01 | compressed length (2 bytes BE) | uncompressed length (2 bytes BE) | LZF block
const (
	lzfTypeUncompressed = 0
	lzfTypeCompressed   = 1
	lzfMaxChunk         = 0xffff
)

// lzfDecoder decodes LZF chunks.
type lzfDecoder struct {
	src *source
	hdr [7]byte
	in  []byte
	out []byte
}

func (d *lzfDecoder) next() ([]byte, error) {
	for {
		at := d.src.off
		n, err := d.src.full(d.hdr[:5])
		if err != nil {
			if n == 0 && err == io.EOF {
				return nil, io.EOF
			}
			return nil, d.src.truncated("chunk header", at, err, 5, n)
		}
		if d.hdr[0] != 'Z' || d.hdr[1] != 'V' {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "bad magic %q, want \"ZV\"", d.hdr[:2])
		}
		typ := d.hdr[2]
		switch typ {
		case lzfTypeUncompressed:
			length := be16(d.hdr[3:5])
			d.in, err = d.src.payload(d.in, length)
			if err != nil {
				return nil, d.src.truncated("chunk", at, err, 5+length, 5+len(d.in))
			}
			if length == 0 {
				continue
			}
			return d.in, nil
		case lzfTypeCompressed:
			if k, err := d.src.full(d.hdr[5:7]); err != nil {
				return nil, d.src.truncated("chunk header", at, err, 7, 5+k)
			}
			clen, ulen := be16(d.hdr[3:5]), be16(d.hdr[5:7])
			d.in, err = d.src.payload(d.in, clen)
			if err != nil {
				return nil, d.src.truncated("chunk", at, err, 7+clen, 7+len(d.in))
			}
			if cap(d.out) < lzfMaxChunk {
				d.out = make([]byte, lzfMaxChunk)
			}
			out := d.out[:ulen]
			k, err := lzfDecode(d.in, out)
			if err != nil {
				return nil, d.src.fail("chunk", at, ErrCorrupt, "lzf data: %v", err)
			}
			if k != ulen {
				return nil, d.src.fail("chunk", at, ErrCorrupt, "decompressed to %d bytes, want %d", k, ulen)
			}
			if ulen == 0 {
				continue
			}
			return out, nil
		default:
			return nil, d.src.fail("chunk", at, ErrCorrupt, "chunk type %d, want 0 (uncompressed) or 1 (compressed)", typ)
		}
	}
}

var (
	errLZFOverflow  = errors.New("output overflows the declared length")
	errLZFTruncated = errors.New("block ends inside an instruction")
	errLZFBackRef   = errors.New("back reference before the start of the block")
)

// lzfDecode decodes the LZF block in into out and returns the number of bytes
// written. Every read and write is bounds-checked.
//
// Each instruction starts with a control byte c: c < 32 is a literal run of
// c+1 bytes; otherwise the top 3 bits are a length (7 meaning "add the next
// byte") and the back reference distance is ((c&31)<<8 | next byte) + 1,
// copying length+2 bytes, possibly overlapping.
func lzfDecode(in, out []byte) (int, error) {
	ip, op := 0, 0
	for ip < len(in) {
		c := int(in[ip])
		ip++
		if c < 32 {
			n := c + 1
			if ip+n > len(in) {
				return op, errLZFTruncated
			}
			if op+n > len(out) {
				return op, errLZFOverflow
			}
			copy(out[op:], in[ip:ip+n])
			ip += n
			op += n
			continue
		}
		n := c >> 5
		if n == 7 {
			if ip >= len(in) {
				return op, errLZFTruncated
			}
			n += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return op, errLZFTruncated
		}
		ref := op - (c&0x1f)<<8 - int(in[ip]) - 1
		ip++
		n += 2
		if ref < 0 {
			return op, errLZFBackRef
		}
		if op+n > len(out) {
			return op, errLZFOverflow
		}
		// The bytes from ref repeat with period op-ref, so an overlapping
		// copy can go in growing chunks.
		for n > 0 {
			k := copy(out[op:op+n], out[ref:op])
			op += k
			n -= k
		}
	}
	return op, nil
}
