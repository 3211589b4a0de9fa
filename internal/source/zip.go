package source

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
)

// zip scans a zip archive (a Spark History Server "download logs" file, or
// any zip of logs) found at p as a folder. Its logs open the archive again
// for each part (see zipFS), so nothing stays open after the scan.
func (s *scanner) zip(p string, info fs.FileInfo) {
	zr, closer, err := openZip(s.list, p, info)
	if err != nil {
		s.skip(p, "unreadable zip archive: %v", err)
		return
	}
	defer closer.Close()
	prefix := s.display(p) + "!/"
	sub := &scanner{
		list:    zr,
		open:    zipFS{parent: s.open, name: p},
		display: func(q string) string { return prefix + q },
		key:     s.key + p + "!/",
		zipped:  true,
	}
	sub.dir(".")
	s.logs = append(s.logs, sub.logs...)
	s.skipped = append(s.skipped, sub.skipped...)
}

// openZip opens the zip archive at p in fsys, which must be seekable.
func openZip(fsys fs.FS, p string, info fs.FileInfo) (*zip.Reader, io.Closer, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, nil, err
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		f.Close()
		return nil, nil, fmt.Errorf("%s cannot be read at random (%T)", p, f)
	}
	zr, err := zip.NewReader(ra, info.Size())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return zr, f, nil
}

// zipFS is the file system of a zip archive stored at name in parent. Each
// Open opens the archive and one entry; closing the entry closes both.
type zipFS struct {
	parent fs.FS
	name   string
}

// Open opens the entry name of the archive.
func (z zipFS) Open(name string) (fs.File, error) {
	info, err := fs.Stat(z.parent, z.name)
	if err != nil {
		return nil, err
	}
	zr, closer, err := openZip(z.parent, z.name, info)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := zr.Open(name)
	if err != nil {
		closer.Close()
		return nil, err
	}
	return &zipEntry{File: f, archive: closer}, nil
}

// zipEntry is an open entry that closes its archive too.
type zipEntry struct {
	fs.File
	archive io.Closer
}

func (e *zipEntry) Close() error {
	err := e.File.Close()
	if aerr := e.archive.Close(); err == nil {
		err = aerr
	}
	return err
}
