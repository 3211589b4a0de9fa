package source

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// ErrNotResumable is wrapped by OpenFrom's error for a part that cannot be
// read from an offset: a compressed one.
var ErrNotResumable = errors.New("cannot be read from an offset")

// OpenFrom opens part i, stored uncompressed, from byte offset on: the
// rest of a log that grew since an earlier pass read it to offset.
// progress, when set, is called with the bytes read.
func (l *Log) OpenFrom(i int, offset int64, progress func(n int64)) (*PartReader, error) {
	if i < 0 || i >= len(l.Parts) {
		return nil, fmt.Errorf("source: %q: part %d of %d", l.Name, i, len(l.Parts))
	}
	p := &l.Parts[i]
	if plain, err := l.Plain(i); err != nil {
		return nil, err
	} else if !plain {
		return nil, fmt.Errorf("source: %q: %w: compressed", p.Name, ErrNotResumable)
	}
	f, err := l.partFS(i).Open(p.Path)
	if err != nil {
		return nil, fmt.Errorf("source: %q: %w", p.Name, pathless(err))
	}
	var r io.Reader = f
	if offset > 0 {
		switch sf := f.(type) {
		case io.Seeker:
			if _, err := sf.Seek(offset, io.SeekStart); err != nil {
				f.Close()
				return nil, fmt.Errorf("source: %q: seek to %d: %w", p.Name, offset, err)
			}
		case io.ReaderAt:
			r = io.NewSectionReader(sf, offset, 1<<62)
		default:
			// A file system that cannot seek (a zip archive): skip to
			// the offset by reading.
			if _, err := io.CopyN(io.Discard, f, offset); err != nil {
				f.Close()
				return nil, fmt.Errorf("source: %q: skip to %d: %w", p.Name, offset, err)
			}
		}
	}
	if progress != nil {
		r = NewCountingReader(r, progress)
	}
	return &PartReader{r, f}, nil
}

// Plain reports whether part i is stored uncompressed, by its first bytes
// (as opening it decides), so that it can be read from an offset.
func (l *Log) Plain(i int) (bool, error) {
	p := &l.Parts[i]
	if p.Codec != codec.None {
		return false, nil
	}
	f, err := l.partFS(i).Open(p.Path)
	if err != nil {
		return false, fmt.Errorf("source: %q: %w", p.Name, pathless(err))
	}
	defer f.Close()
	head := make([]byte, codec.HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, fmt.Errorf("source: read %q: %w", p.Name, err)
	}
	return codec.Detect(p.Name, head[:n]) == codec.None, nil
}

// fingerprintBytes is how much of the start of each part Fingerprint reads.
const fingerprintBytes = 4 << 10

// Fingerprint hashes the log's layout and content cheaply: each part's
// name and the first 4 KiB of its stored bytes. It stays the same while a
// log grows (the run history then reads only what was added) and changes
// when a file is replaced by another.
func (l *Log) Fingerprint() (string, error) {
	h := sha256.New()
	buf := make([]byte, fingerprintBytes)
	for i, p := range l.Parts {
		f, err := l.partFS(i).Open(p.Path)
		if err != nil {
			return "", fmt.Errorf("source: open %q: %w", p.Name, err)
		}
		n, err := io.ReadFull(f, buf)
		f.Close()
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return "", fmt.Errorf("source: read %q: %w", p.Name, err)
		}
		var size [8]byte
		binary.LittleEndian.PutUint64(size[:], uint64(len(p.Name)))
		h.Write(size[:])
		h.Write([]byte(p.Name))
		binary.LittleEndian.PutUint64(size[:], uint64(n))
		h.Write(size[:])
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}
