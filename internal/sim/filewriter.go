package sim

import (
	"errors"
	"fmt"
	"os"
	"unsafe"
)

// directAlign is the alignment direct I/O needs of buffers, offsets and
// lengths: the page size, a multiple of every disk's logical block size.
const directAlign = 4096

// fileBufSize is fileWriter's buffer: large writes, few system calls.
const fileBufSize = 1 << 20

// fileWriter writes a new file through one buffer, bypassing the page
// cache (O_DIRECT) where the file system allows it. The simulator writes
// gigabytes it will not read again: copying them into the page cache costs
// about 2 s of system CPU per GB on a small VM, direct writes a tenth of
// that, and the bytes are on disk when Close returns. Where direct I/O is
// refused (tmpfs, other systems) it writes as os.File does.
type fileWriter struct {
	f      *os.File
	path   string
	buf    []byte // directAlign-aligned, len fileBufSize
	n      int    // bytes buffered
	direct bool
	err    error
}

// createFile creates (or truncates) path for writing.
func createFile(path string) (*fileWriter, error) {
	f, direct, err := openDirect(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	raw := make([]byte, fileBufSize+directAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % directAlign); r != 0 {
		off = directAlign - r
	}
	return &fileWriter{f: f, path: path, buf: raw[off : off+fileBufSize], direct: direct}, nil
}

// Write buffers p, writing the buffer out each time it fills.
func (w *fileWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := 0
	for len(p) > 0 {
		k := copy(w.buf[w.n:], p)
		w.n += k
		n += k
		p = p[k:]
		if w.n == len(w.buf) {
			if err := w.writeOut(w.buf); err != nil {
				return n, err
			}
			w.n = 0
		}
	}
	return n, nil
}

// writeOut writes b (aligned when direct) to the file. A file system that
// accepted O_DIRECT at open but refuses the write gets buffered writes.
func (w *fileWriter) writeOut(b []byte) error {
	n, err := w.f.Write(b)
	if err != nil && w.direct && errors.Is(err, errDirectRefused) {
		if err = w.buffered(); err == nil {
			_, err = w.f.Write(b[n:])
		}
	}
	if err != nil {
		w.err = fmt.Errorf("write %s: %w", w.path, err)
	}
	return w.err
}

// buffered turns direct I/O off for the rest of the file.
func (w *fileWriter) buffered() error {
	if !w.direct {
		return nil
	}
	w.direct = false
	return clearDirect(w.f)
}

// Close writes what is buffered and closes the file. With direct I/O the
// aligned part goes out directly and the unaligned tail through the page
// cache.
func (w *fileWriter) Close() error {
	if w.f == nil {
		return w.err
	}
	err := w.err
	if err == nil && w.n > 0 {
		tail := w.buf[:w.n]
		if w.direct {
			aligned := w.n &^ (directAlign - 1)
			if aligned > 0 {
				err = w.writeOut(tail[:aligned])
			}
			tail = tail[aligned:]
			if err == nil && len(tail) > 0 {
				if err = w.buffered(); err != nil {
					err = fmt.Errorf("write %s: %w", w.path, err)
				}
			}
		}
		if err == nil && len(tail) > 0 {
			err = w.writeOut(tail)
		}
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", w.path, cerr)
	}
	w.f, w.n = nil, 0
	if err == nil {
		w.err = errors.New("write " + w.path + ": file closed")
	}
	return err
}
