package codec

import (
	"bytes"
	"io"

	"github.com/pierrec/lz4/v4"
)

// lz4-java LZ4BlockOutputStream framing, as Spark's LZ4CompressionCodec
// writes it. Each block is
//
//	"LZ4Block" | token | compressed length | decompressed length | checksum | data
//
// with the token = method | (level - 10), the three ints little endian, and
// the checksum the XXH32 (seed 0x9747b28c) of the decompressed data masked to
// 28 bits. An empty block (lengths 0, checksum 0) ends a stream; another
// stream may follow it.
const (
	lz4HeaderLen    = 8 + 1 + 4 + 4 + 4
	lz4MethodRaw    = 0x10
	lz4MethodLZ4    = 0x20
	lz4LevelBase    = 10
	lz4Seed         = 0x9747b28c
	lz4ChecksumMask = 0x0FFFFFFF
)

// lz4Checksum is lz4-java's block checksum of decompressed data.
func lz4Checksum(b []byte) uint32 { return xxh32(b, lz4Seed) & lz4ChecksumMask }

// lz4Decoder decodes lz4-java blocks.
type lz4Decoder struct {
	src    *source
	hdr    [lz4HeaderLen]byte
	in     []byte // compressed payload
	out    []byte // decompressed block
	blocks int    // blocks read, end blocks included
	ended  bool   // the last block read was an end block
}

func (d *lz4Decoder) next() ([]byte, error) {
	for {
		at := d.src.off
		n, err := d.src.full(d.hdr[:])
		if err != nil {
			if n == 0 && err == io.EOF {
				if d.ended || d.blocks == 0 {
					return nil, io.EOF
				}
				return nil, d.src.fail("block", at, io.ErrUnexpectedEOF, "stream ends without its end block")
			}
			return nil, d.src.truncated("block header", at, err, lz4HeaderLen, n)
		}
		d.blocks++
		h := d.hdr[:]
		if !bytes.Equal(h[:8], magicLZ4Block) {
			return nil, d.src.fail("block", at, ErrCorrupt, "bad magic %q, want %q", h[:8], magicLZ4Block)
		}
		method := int(h[8] & 0xf0)
		level := lz4LevelBase + int(h[8]&0x0f)
		clen := int64(int32(le32(h[9:13])))
		olen := int64(int32(le32(h[13:17])))
		check := le32(h[17:21])
		switch {
		case method != lz4MethodRaw && method != lz4MethodLZ4:
			return nil, d.src.fail("block", at, ErrCorrupt, "unknown compression method 0x%02x, want 0x10 (raw) or 0x20 (lz4)", method)
		case clen < 0 || olen < 0:
			return nil, d.src.fail("block", at, ErrCorrupt, "negative length (compressed %d, decompressed %d)", clen, olen)
		case olen > MaxBlockSize || clen > MaxBlockSize:
			return nil, d.src.fail("block", at, ErrTooLarge, "declares %d bytes (compressed %d), limit %d", olen, clen, MaxBlockSize)
		case olen > 1<<level:
			return nil, d.src.fail("block", at, ErrCorrupt, "decompressed length %d exceeds the block size 2^%d of its token", olen, level)
		case (olen == 0) != (clen == 0):
			return nil, d.src.fail("block", at, ErrCorrupt, "compressed length %d with decompressed length %d", clen, olen)
		case method == lz4MethodRaw && clen != olen:
			return nil, d.src.fail("block", at, ErrCorrupt, "raw block with compressed length %d != decompressed length %d", clen, olen)
		case method == lz4MethodLZ4 && clen > int64(lz4.CompressBlockBound(int(olen))):
			return nil, d.src.fail("block", at, ErrCorrupt, "compressed length %d exceeds the bound %d for %d bytes", clen, lz4.CompressBlockBound(int(olen)), olen)
		}
		if olen == 0 {
			if check != 0 {
				return nil, d.src.fail("block", at, ErrCorrupt, "end block with checksum 0x%08x, want 0", check)
			}
			d.ended = true
			continue
		}
		d.ended = false
		d.in, err = d.src.payload(d.in, int(clen))
		if err != nil {
			return nil, d.src.truncated("block", at, err, lz4HeaderLen+int(clen), lz4HeaderLen+len(d.in))
		}
		var data []byte
		if method == lz4MethodRaw {
			data = d.in
		} else {
			if cap(d.out) < int(olen) {
				d.out = make([]byte, olen)
			}
			data = d.out[:olen]
			k, err := lz4.UncompressBlock(d.in, data)
			if err != nil {
				return nil, d.src.fail("block", at, ErrCorrupt, "lz4 data: %v", err)
			}
			if k != int(olen) {
				return nil, d.src.fail("block", at, ErrCorrupt, "decompressed to %d bytes, want %d", k, olen)
			}
		}
		if sum := lz4Checksum(data); sum != check {
			return nil, d.src.fail("block", at, ErrCorrupt, "checksum 0x%08x, want 0x%08x", sum, check)
		}
		return data, nil
	}
}
