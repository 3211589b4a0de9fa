package mapreduce

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/model"
)

// avroMagic opens an Avro object container file.
var avroMagic = []byte("Obj\x01")

// maxBlock caps one container block, compressed or not.
const maxBlock = 256 << 20

// readJhistBinary reads the "Avro-Binary" form: after the header line the
// schema line, then binary Event datums back to back until the end
// (org.apache.hadoop.mapreduce.jobhistory.EventWriter with WriteMode.BINARY).
func readJhistBinary(lr *lineReader, name string) (*model.App, error) {
	d := newJhistDecoder(name)
	d.b.app.Version = "Avro-Binary"
	q := &d.b.app.Quality
	ln, err := lr.next()
	if err == io.EOF {
		q.Truncated = true
		return d.finish(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("mapreduce: read %q: %w", name, err)
	}
	schema, err := parseAvroSchema(bytes.TrimSpace(ln.Bytes))
	if err != nil {
		return nil, lineErr(name, 2, "the Avro schema of Event: "+err.Error())
	}
	var t transcoder
	cr := &countingReader{r: lr.Buffered(), n: lr.Offset()}
	for {
		if _, err := cr.r.Peek(1); err != nil {
			if err != io.EOF {
				q.Add(name, 0, "read: "+err.Error())
				q.Truncated = true
			}
			break
		}
		off := cr.n
		js, err := t.datum(cr, schema)
		q.Lines++
		if err == nil && cr.n == off {
			q.BadLines++
			addAt(q, name, off, "the schema's datums are empty; the rest of the stream is skipped")
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				q.Truncated = true
				addAt(q, name, off, "event truncated at the end of the input")
			} else {
				q.BadLines++
				addAt(q, name, off, "bad event, rest of the stream skipped: "+err.Error())
			}
			break
		}
		if err := d.event(js); err != nil {
			q.BadLines++
			addAt(q, name, off, "event: "+err.Error())
		}
	}
	return d.finish(), nil
}

// addAt records an issue at a byte offset of a binary input.
func addAt(q *model.Quality, file string, off int64, what string) {
	q.Add(file, 0, fmt.Sprintf("offset %d: %s", off, what))
}

// countingReader counts the bytes read through it, for offsets in issues.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// readJhistContainer reads Events from an Avro object container file
// (Avro specification, "Object Container Files"): magic, a metadata map with
// avro.schema and avro.codec, a 16-byte sync marker, then blocks of
// (count, size, data, sync). Codecs null, deflate, snappy and zstandard are
// supported. A corrupt block is skipped up to the next sync marker.
func readJhistContainer(br *bufio.Reader, name string) (*model.App, error) {
	cr := &countingReader{r: br}
	var t transcoder
	if _, err := t.bytesFrom(cr, int64(len(avroMagic))); err != nil {
		return nil, offsetErr(name, 0, "Avro magic")
	}
	meta, err := readAvroMeta(&t, cr)
	if err != nil {
		return nil, offsetErr(name, cr.n, "the Avro container header's metadata map: "+err.Error())
	}
	schema, err := parseAvroSchema(meta["avro.schema"])
	if err != nil {
		return nil, offsetErr(name, cr.n, "avro.schema in the container header: "+err.Error())
	}
	codec := string(meta["avro.codec"])
	switch codec {
	case "", "null", "deflate", "snappy", "zstandard":
	default:
		return nil, offsetErr(name, cr.n, fmt.Sprintf("codec null, deflate, snappy or zstandard, not %q", codec))
	}
	var sync [16]byte
	if _, err := io.ReadFull(cr, sync[:]); err != nil {
		return nil, offsetErr(name, cr.n, "the container's sync marker")
	}

	d := newJhistDecoder(name)
	d.b.app.Version = "Avro-Container"
	q := &d.b.app.Quality
	var raw, plain []byte
	var zdec *zstd.Decoder
	defer func() {
		if zdec != nil {
			zdec.Close()
		}
	}()
	for {
		if _, err := br.Peek(1); err != nil {
			break
		}
		off := cr.n
		count, err1 := t.longFrom(cr)
		size, err2 := t.longFrom(cr)
		if err1 != nil || err2 != nil {
			q.Truncated = true
			addAt(q, name, off, "block header truncated")
			break
		}
		if count < 0 || size < 0 || size > maxBlock {
			q.BadLines++
			addAt(q, name, off, fmt.Sprintf("bad block header: count %d size %d", count, size))
			if !resync(cr, sync) {
				break
			}
			continue
		}
		raw, err = readN(cr, raw, size)
		if err != nil {
			q.Truncated = true
			addAt(q, name, off, "block truncated")
			break
		}
		var marker [16]byte
		if _, err := io.ReadFull(cr, marker[:]); err != nil {
			q.Truncated = true
			addAt(q, name, off, "block's sync marker truncated")
		}
		plain, err = decompress(codec, raw, plain, &zdec)
		if err != nil {
			q.BadLines++
			addAt(q, name, off, "block: "+err.Error())
		} else {
			src := bytes.NewReader(plain)
			for i := int64(0); i < count; i++ {
				q.Lines++
				before := src.Len()
				js, err := t.datum(src, schema)
				if err == nil && src.Len() == before && i > 0 {
					err = fmt.Errorf("%w: %d empty datums in one block", errAvro, count)
				}
				if err != nil {
					q.BadLines++
					addAt(q, name, off, "event in block: "+err.Error())
					break
				}
				if err := d.event(js); err != nil {
					q.BadLines++
					addAt(q, name, off, "event in block: "+err.Error())
				}
			}
		}
		if q.Truncated {
			break
		}
		if marker != sync {
			q.BadLines++
			addAt(q, name, cr.n, "sync marker mismatch, resynchronizing")
			if !resync(cr, sync) {
				break
			}
		}
	}
	return d.finish(), nil
}

func (t *transcoder) longFrom(r avroSource) (int64, error) {
	t.r = r
	return t.long()
}

func (t *transcoder) bytesFrom(r avroSource, n int64) ([]byte, error) {
	t.r = r
	return t.bytes(n)
}

// readAvroMeta reads the container header's map<bytes>.
func readAvroMeta(t *transcoder, r avroSource) (map[string][]byte, error) {
	meta := map[string][]byte{}
	for {
		n, err := t.longFrom(r)
		if err != nil {
			return nil, eof(err)
		}
		if n == 0 {
			return meta, nil
		}
		if n < 0 {
			n = -n
			if _, err := t.long(); err != nil {
				return nil, eof(err)
			}
		}
		if n > 1<<16 {
			return nil, fmt.Errorf("%w: %d metadata entries", errAvro, n)
		}
		for ; n > 0; n-- {
			kl, err := t.long()
			if err != nil {
				return nil, eof(err)
			}
			k, err := t.bytes(kl)
			if err != nil {
				return nil, err
			}
			key := string(k)
			vl, err := t.long()
			if err != nil {
				return nil, eof(err)
			}
			v, err := t.bytes(vl)
			if err != nil {
				return nil, err
			}
			meta[key] = append([]byte(nil), v...)
		}
	}
}

// readN reads n bytes into buf (reused), growing as data arrives.
func readN(r io.Reader, buf []byte, n int64) ([]byte, error) {
	if n <= int64(cap(buf)) {
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, eof(err)
	}
	buf = buf[:0]
	for int64(len(buf)) < n {
		chunk := min(n-int64(len(buf)), 1<<20)
		start := len(buf)
		buf = append(buf, make([]byte, chunk)...)
		if _, err := io.ReadFull(r, buf[start:]); err != nil {
			return buf, eof(err)
		}
	}
	return buf, nil
}

// resync skips to just after the next occurrence of the sync marker.
func resync(cr *countingReader, sync [16]byte) bool {
	var win [16]byte
	n := 0
	for {
		c, err := cr.ReadByte()
		if err != nil {
			return false
		}
		if n < 16 {
			win[n] = c
			n++
		} else {
			copy(win[:], win[1:])
			win[15] = c
		}
		if n == 16 && win == sync {
			return true
		}
	}
}

// decompress undoes a container codec into dst (reused).
func decompress(codec string, src, dst []byte, zdec **zstd.Decoder) ([]byte, error) {
	switch codec {
	case "", "null":
		return src, nil
	case "deflate":
		fr := flate.NewReader(bytes.NewReader(src))
		defer fr.Close()
		var b bytes.Buffer
		b.Grow(len(src) * 4)
		if _, err := io.Copy(&b, io.LimitReader(fr, maxBlock+1)); err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		if b.Len() > maxBlock {
			return nil, errors.New("deflate: block larger than 256 MiB")
		}
		return b.Bytes(), nil
	case "snappy":
		if len(src) < 4 {
			return nil, errors.New("snappy: block without checksum")
		}
		body, sum := src[:len(src)-4], binary.BigEndian.Uint32(src[len(src)-4:])
		n, err := snappy.DecodedLen(body)
		if err != nil || n > maxBlock {
			return nil, fmt.Errorf("snappy: bad block length")
		}
		out, err := snappy.Decode(dst[:cap(dst)], body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if crc32.ChecksumIEEE(out) != sum {
			return nil, errors.New("snappy: checksum mismatch")
		}
		return out, nil
	case "zstandard":
		if *zdec == nil {
			z, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBlock), zstd.WithDecoderConcurrency(1))
			if err != nil {
				return nil, err
			}
			*zdec = z
		}
		out, err := (*zdec).DecodeAll(src, dst[:0])
		if err != nil {
			return nil, fmt.Errorf("zstandard: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("codec %q", codec)
}
