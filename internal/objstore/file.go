package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"sync"
)

// file is an open object. Read streams it through ranged reads: the first
// FirstChunk bytes read by Open, then ChunkSize ranges with up to Parallel
// in flight ahead of the reader, each retried on its own and pinned to the
// version Open saw, so that an object replaced meanwhile is an error rather
// than a mix of two objects. ReadAt and Seek read ranges for random access
// (zip archives). Like the readers of package io, a file is read by one
// goroutine at a time.
type file struct {
	fs      *FS
	name    string
	e       Entry // attributes seen by Open
	closed  bool
	cur     []byte   // unread bytes of the current chunk
	buf     []byte   // the current chunk's buffer, returned to the pool when used up
	off     int64    // offset of cur[0] in the object
	next    int64    // offset of the next range to request
	pending []*chunk // ranges in flight, in order
	err     error    // sticky error of Read
}

// chunk is one range being fetched.
type chunk struct {
	off, n int64
	buf    []byte
	err    error
	done   chan struct{}
}

// openFile reads the first range of the object name.
func (f *FS) openFile(name string) (*file, error) {
	fl := &file{fs: f, name: name}
	var body []byte
	err := f.do("read", name, func() error {
		var err error
		body, fl.e, err = f.readRange(name, "", 0, f.opt.FirstChunk, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	fl.e.Key = name
	fl.cur = body
	fl.next = int64(len(body))
	return fl, nil
}

// readRange reads [off, off+n) of key into buf (grown as needed), reading
// the rest again when the body is cut short.
func (f *FS) readRange(key, version string, off, n int64, buf []byte) ([]byte, Entry, error) {
	rc, e, err := f.b.Read(context.Background(), key, version, off, n)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusRequestedRangeNotSatisfiable && off == 0 {
		// Some stores refuse any range of an empty object.
		if e, serr := f.b.Stat(context.Background(), key); serr == nil && e.Size == 0 {
			return buf[:0], e, nil
		}
	}
	if err != nil {
		return nil, e, err
	}
	defer rc.Close()
	if version != "" && e.Version != "" && e.Version != version {
		// The store ignored the precondition (some emulators do).
		return nil, e, &HTTPError{Status: http.StatusPreconditionFailed, Message: "version " + e.Version + ", was " + version}
	}
	want := min(n, max(e.Size-off, 0))
	if cap(buf) < int(want) {
		buf = make([]byte, want)
	}
	buf = buf[:want]
	got, err := io.ReadFull(rc, buf)
	if err != nil && !(err == io.EOF && want == 0) {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:got], e, fmt.Errorf("%d of %d bytes at offset %d: %w", got, want, off, err)
	}
	return buf, e, nil
}

// chunkPool recycles ChunkSize buffers.
var chunkPool sync.Pool

func (fl *file) getBuf() []byte {
	if b, ok := chunkPool.Get().(*[]byte); ok && int64(cap(*b)) >= fl.fs.opt.ChunkSize {
		return (*b)[:0]
	}
	return make([]byte, 0, fl.fs.opt.ChunkSize)
}

func putBuf(b []byte) {
	if cap(b) > 0 {
		chunkPool.Put(&b)
	}
}

// fetch reads one chunk, resuming after a short body and retrying
// transient errors; a policy's worth of attempts that got some bytes
// earns another, so that a long range survives many cuts.
func (fl *file) fetch(c *chunk) {
	defer close(c.done)
	buf := c.buf
	for {
		progress := false
		c.err = fl.fs.do("read", fl.name, func() error {
			got, _, err := fl.fs.readRange(fl.name, fl.e.Version, c.off+int64(len(buf)), c.n-int64(len(buf)), buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+len(got)]
			progress = progress || len(got) > 0
			return err
		})
		if c.err == nil || !progress || !Transient(c.err) {
			break
		}
	}
	c.buf = buf
}

// fill starts fetching ranges until Parallel are in flight or the object's
// end is reached.
func (fl *file) fill() {
	for len(fl.pending) < fl.fs.opt.Parallel && fl.next < fl.e.Size {
		n := min(fl.fs.opt.ChunkSize, fl.e.Size-fl.next)
		c := &chunk{off: fl.next, n: n, buf: fl.getBuf(), done: make(chan struct{})}
		fl.next += n
		fl.pending = append(fl.pending, c)
		go fl.fetch(c)
	}
}

// Read implements io.Reader.
func (fl *file) Read(p []byte) (int, error) {
	if fl.isClosed() {
		return 0, fs.ErrClosed
	}
	for len(fl.cur) == 0 {
		if fl.err != nil {
			return 0, fl.err
		}
		putBuf(fl.buf)
		fl.buf = nil
		fl.fill()
		if len(fl.pending) == 0 {
			fl.err = io.EOF
			return 0, io.EOF
		}
		c := fl.pending[0]
		<-c.done
		fl.pending = fl.pending[1:]
		if c.err != nil {
			putBuf(c.buf)
			fl.err = c.err
			return 0, fl.err
		}
		fl.off = c.off
		fl.buf, fl.cur = c.buf, c.buf
		fl.fill()
	}
	n := copy(p, fl.cur)
	fl.cur = fl.cur[n:]
	fl.off += int64(n)
	return n, nil
}

// ReadAt implements io.ReaderAt with one ranged read per call.
func (fl *file) ReadAt(p []byte, off int64) (int, error) {
	if fl.isClosed() {
		return 0, fs.ErrClosed
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "readat", Path: fl.name, Err: fs.ErrInvalid}
	}
	if off >= fl.e.Size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), fl.e.Size-off)
	var got []byte
	err := fl.fs.do("read", fl.name, func() error {
		var err error
		got, _, err = fl.fs.readRange(fl.name, fl.e.Version, off, n, p[:n])
		return err
	})
	if err != nil {
		return len(got), err
	}
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// Seek implements io.Seeker; reading goes on from the new offset.
func (fl *file) Seek(offset int64, whence int) (int64, error) {
	if fl.isClosed() {
		return 0, fs.ErrClosed
	}
	switch whence {
	case io.SeekCurrent:
		offset += fl.off
	case io.SeekEnd:
		offset += fl.e.Size
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: fl.name, Err: fs.ErrInvalid}
	}
	if offset >= fl.off && offset <= fl.off+int64(len(fl.cur)) {
		fl.cur = fl.cur[offset-fl.off:]
		fl.off = offset
		return offset, nil
	}
	fl.drop()
	fl.cur, fl.off, fl.next, fl.err = nil, offset, offset, nil
	return offset, nil
}

// drop waits for the ranges in flight and frees their buffers.
func (fl *file) drop() {
	for _, c := range fl.pending {
		<-c.done
		putBuf(c.buf)
	}
	fl.pending = nil
	putBuf(fl.buf)
	fl.buf = nil
}

func (fl *file) isClosed() bool { return fl.closed }

// Close waits for the ranges in flight; reading after it fails.
func (fl *file) Close() error {
	if fl.closed {
		return fs.ErrClosed
	}
	fl.closed = true
	fl.drop()
	return nil
}

// Stat returns the attributes Open saw.
func (fl *file) Stat() (fs.FileInfo, error) { return info{fl.e}, nil }
