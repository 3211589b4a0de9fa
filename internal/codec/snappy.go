package codec

import (
	"bytes"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/snappy"
)

// snappy-java SnappyOutputStream framing, as Spark's SnappyCompressionCodec
// writes it: a 16-byte header (magic 0x82 "SNAPPY" 0x00, int32 version,
// int32 compatible version, big endian) then blocks of [int32 length][raw
// snappy data]. A header may appear again where a block length is expected
// (concatenated streams). The snappy framing format (chunks after a
// 0xff "sNaPpY" stream identifier) is told apart by its first bytes.
const snappyJavaHeaderLen = 16

// snappyHeaderHead is the first 4 bytes of the snappy-java header read as a
// block length; snappy-java treats it as the start of a concatenated stream.
var snappyHeaderHead = be32(magicSnappyJava)

// snappyDecoder decodes either snappy framing.
type snappyDecoder struct {
	src     *source
	started bool
	framed  bool // the snappy framing format, not snappy-java's
	hdr     [snappyJavaHeaderLen]byte
	in      []byte
	out     []byte
}

func (d *snappyDecoder) next() ([]byte, error) {
	if !d.started {
		d.started = true
		n, err := d.src.full(d.hdr[:4])
		if err != nil {
			if n == 0 && err == io.EOF {
				return nil, io.EOF
			}
			return nil, d.src.truncated("header", 0, err, snappyJavaHeaderLen, n)
		}
		if d.hdr[0] == magicSnappyFramed[0] {
			d.framed = true
			return d.nextFramed(d.hdr[:4])
		}
		if err := d.header(0, 4); err != nil {
			return nil, err
		}
	}
	if d.framed {
		return d.nextFramed(nil)
	}
	return d.nextJava()
}

// header reads and checks the rest of a snappy-java header starting at
// offset at, of which have bytes are already in d.hdr.
func (d *snappyDecoder) header(at int64, have int) error {
	n, err := d.src.full(d.hdr[have:])
	if err != nil {
		return d.src.truncated("header", at, err, snappyJavaHeaderLen, have+n)
	}
	if !bytes.Equal(d.hdr[:8], magicSnappyJava) {
		return d.src.fail("header", at, ErrCorrupt, "bad magic %q, want %q", d.hdr[:8], magicSnappyJava)
	}
	return nil
}

func (d *snappyDecoder) nextJava() ([]byte, error) {
	for {
		at := d.src.off
		n, err := d.src.full(d.hdr[:4])
		if err != nil {
			if n == 0 && err == io.EOF {
				return nil, io.EOF
			}
			return nil, d.src.truncated("block length", at, err, 4, n)
		}
		length := be32(d.hdr[:4])
		if length == snappyHeaderHead {
			if err := d.header(at, 4); err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case int32(length) < 0:
			return nil, d.src.fail("block", at, ErrCorrupt, "negative length %d", int32(length))
		case length > MaxBlockSize:
			return nil, d.src.fail("block", at, ErrTooLarge, "declares %d bytes, limit %d", length, MaxBlockSize)
		case length == 0:
			continue
		}
		d.in, err = d.src.payload(d.in, int(length))
		if err != nil {
			return nil, d.src.truncated("block", at, err, 4+int(length), 4+len(d.in))
		}
		out, err := d.decode(at, d.in)
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
}

// decode decodes one raw snappy block found at offset at.
func (d *snappyDecoder) decode(at int64, in []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(in)
	if err != nil {
		return nil, d.src.fail("block", at, ErrCorrupt, "snappy length: %v", err)
	}
	// A snappy tag of 3 bytes copies at most 64: anything beyond 22x the
	// compressed size is a lie, and must not cost memory.
	if n > MaxBlockSize || n > 22*len(in)+64 {
		return nil, d.src.fail("block", at, ErrTooLarge, "declares %d decompressed bytes from %d", n, len(in))
	}
	if cap(d.out) < n {
		d.out = make([]byte, n)
	}
	out, err := snappy.Decode(d.out[:n], in)
	if err != nil {
		return nil, d.src.fail("block", at, ErrCorrupt, "snappy data: %v", err)
	}
	return out, nil
}

// Snappy framing format chunk types.
const (
	chunkCompressed   = 0x00
	chunkUncompressed = 0x01
	chunkPadding      = 0xfe
	chunkStreamID     = 0xff
	framedMaxBlock    = 65536
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// framedCRC is the masked CRC-32C of the snappy framing format.
func framedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, crcTable)
	return (c>>15 | c<<17) + 0xa282ead8
}

// nextFramed decodes chunks of the snappy framing format; first, when not
// nil, holds the already read header of the first chunk.
func (d *snappyDecoder) nextFramed(first []byte) ([]byte, error) {
	for {
		at := d.src.off
		var h []byte
		if first != nil {
			h, first, at = first, nil, 0
		} else {
			n, err := d.src.full(d.hdr[:4])
			if err != nil {
				if n == 0 && err == io.EOF {
					return nil, io.EOF
				}
				return nil, d.src.truncated("chunk header", at, err, 4, n)
			}
			h = d.hdr[:4]
		}
		typ := h[0]
		length := int(h[1]) | int(h[2])<<8 | int(h[3])<<16
		if at == 0 && typ != chunkStreamID {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "chunk type 0x%02x, want the stream identifier 0xff", typ)
		}
		if typ >= 0x02 && typ <= 0x7f {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "reserved unskippable chunk type 0x%02x", typ)
		}
		var err error
		d.in, err = d.src.payload(d.in, length)
		if err != nil {
			return nil, d.src.truncated("chunk", at, err, 4+length, 4+len(d.in))
		}
		body := d.in
		switch typ {
		case chunkStreamID:
			if !bytes.Equal(body, magicSnappyFramed[4:]) {
				return nil, d.src.fail("chunk", at, ErrCorrupt, "stream identifier %q, want %q", body, magicSnappyFramed[4:])
			}
			continue
		case chunkCompressed, chunkUncompressed:
		default: // padding and skippable chunks
			continue
		}
		if len(body) < 4 {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "chunk of %d bytes has no checksum", len(body))
		}
		want := le32(body)
		data := body[4:]
		if typ == chunkCompressed {
			if data, err = d.decode(at, data); err != nil {
				return nil, err
			}
		}
		if len(data) > framedMaxBlock {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "%d decompressed bytes, limit %d", len(data), framedMaxBlock)
		}
		if sum := framedCRC(data); sum != want {
			return nil, d.src.fail("chunk", at, ErrCorrupt, "checksum 0x%08x, want 0x%08x", sum, want)
		}
		if len(data) > 0 {
			return data, nil
		}
	}
}
