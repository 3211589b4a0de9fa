package source

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// archive scans an archive found at p as a folder: a zip archive (a Spark
// History Server "download logs" file, or any zip of logs) or a tar archive,
// either one plain or compressed (f.codec: .zip.gz, .tgz, .tar.zst, ...).
// Its logs open the archive again for each part (zipFS, tarFS), so nothing
// stays open after the scan.
//
// An archive is a unit a user made: the Databricks parts in it are joined
// among themselves, never with parts outside it (two archives of the same
// application are two logs, not copies of each other's parts). An archive
// of one file is only that file compressed (a part saved as .zip.gz): its
// part joins the parts beside it.
func (s *scanner) archive(p string, info fs.FileInfo, f found) {
	prefix := s.display(p) + "!/"
	sub := &scanner{
		display: func(q string) string {
			if q == "." {
				return s.display(p)
			}
			return prefix + q
		},
		key:   s.key + p + "!/",
		depth: s.depth + 1,
		opts:  s.opts,
	}
	switch f.other {
	case otherZip:
		zr, closer, err := openZip(s.list, p, f.codec)
		if err != nil {
			s.unreadable(p, "unreadable "+archiveKind(f)+" archive", err)
			return
		}
		defer closer.Close()
		sub.list, sub.open = zr, zipFS{parent: s.open, name: p, codec: f.codec}
		sub.rolled = s.rolledScope(zipFiles(zr))
	case otherTar:
		t := tarFS{parent: s.open, name: p, codec: f.codec}
		idx, err := indexTar(s.list, t)
		if err != nil {
			s.unreadable(p, "unreadable "+archiveKind(f)+" archive", err)
			return
		}
		for _, bad := range idx.unsafe {
			sub.skip(bad, "a path that leaves the archive or is not valid (not read)")
		}
		sub.list, sub.open = idx, t
		sub.rolled = s.rolledScope(idx.files)
	}
	sub.dir(".")
	if sub.rolled != s.rolled {
		sub.joinRolled()
	}
	s.logs = append(s.logs, sub.logs...)
	s.skipped = append(s.skipped, sub.skipped...)
}

// rolledScope returns where the Databricks parts of an archive of n files
// are joined: among themselves, or, for one file, with the parts beside it.
func (s *scanner) rolledScope(n int) *[]rolledPart {
	if n == 1 {
		return s.rolled
	}
	return new([]rolledPart)
}

// zipFiles counts the files (not folders) of a zip archive.
func zipFiles(zr *zip.Reader) int {
	n := 0
	for _, f := range zr.File {
		if !f.Mode().IsDir() {
			n++
		}
	}
	return n
}

// archiveKind names an archive's kind and compression ("gzip-compressed zip").
func archiveKind(f found) string {
	k := "zip"
	if f.other == otherTar {
		k = "tar"
	}
	if f.codec != codec.None {
		return f.codec.String() + "-compressed " + k
	}
	return k
}

// openZip opens the zip archive at p in fsys, compressed with c.
func openZip(fsys fs.FS, p string, c codec.Codec) (*zip.Reader, io.Closer, error) {
	ra, size, closer, err := randomAccess(fsys, p, c)
	if err != nil {
		return nil, nil, err
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		closer.Close()
		return nil, nil, err
	}
	return zr, closer, nil
}

// maxSpool bounds the bytes an archive that cannot be read at random
// (compressed, or inside another archive) is decompressed to on disk.
const maxSpool = 16 << 30

// randomAccess returns the bytes of the file at p in fsys, decompressed with
// c, for reading at random: the file itself when it allows it, else a copy
// in a temporary file (removed when closed; memory stays small).
func randomAccess(fsys fs.FS, p string, c codec.Codec) (io.ReaderAt, int64, io.Closer, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, 0, nil, err
	}
	if ra, ok := f.(io.ReaderAt); ok && c == codec.None {
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return ra, info.Size(), f, nil
	}
	defer f.Close()
	var r io.Reader = f
	if c != codec.None {
		rc, _, err := codec.OpenAs(p, f, c)
		if err != nil {
			return nil, 0, nil, err
		}
		defer rc.Close()
		r = rc
	}
	tmp, err := os.CreateTemp("", "clusterlens-archive-*")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("spool %s: %w", p, err)
	}
	t := &tempFile{File: tmp}
	n, err := io.Copy(tmp, io.LimitReader(r, maxSpool+1))
	switch {
	case err != nil:
	case n > maxSpool:
		err = fmt.Errorf("more than %d GiB once decompressed", maxSpool>>30)
	}
	if err != nil {
		t.Close()
		return nil, 0, nil, fmt.Errorf("spool %s: %w", p, err)
	}
	return tmp, n, t, nil
}

// tempFile is a temporary file removed when closed.
type tempFile struct{ *os.File }

func (t *tempFile) Close() error {
	return errors.Join(t.File.Close(), os.Remove(t.File.Name()))
}

// zipFS is the file system of a zip archive stored at name in parent,
// compressed with codec. Each Open opens the archive and one entry; closing
// the entry closes both.
type zipFS struct {
	parent fs.FS
	name   string
	codec  codec.Codec
}

// Open opens the entry name of the archive.
func (z zipFS) Open(name string) (fs.File, error) {
	zr, closer, err := openZip(z.parent, z.name, z.codec)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := zr.Open(name)
	if err != nil {
		closer.Close()
		return nil, err
	}
	return &archiveEntry{File: f, archive: closers{f, closer}}, nil
}

// archiveEntry is an open entry that closes its archive too.
type archiveEntry struct {
	fs.File
	archive closers
}

func (e *archiveEntry) Close() error { return e.archive.Close() }
