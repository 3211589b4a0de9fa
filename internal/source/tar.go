package source

import (
	"archive/tar"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// A tar archive (.tar, .tgz, .tar.gz, .tar.zst, ...) can only be read from
// its start. Scanning it reads it once: indexTar records every entry's header
// and the first headSize bytes of each file (up to headBudget in all), which
// is what sniffing needs. Opening a part later streams the archive again up
// to that entry (tarFS): a tar of n parts is decompressed about n/2 times
// over while reading, against once for a folder or a zip.
const (
	headSize   = 64 << 10
	headBudget = 16 << 20
)

// tarFS is the file system of a tar archive stored at name in parent,
// compressed with codec. Open streams the archive to the entry.
type tarFS struct {
	parent fs.FS
	name   string
	codec  codec.Codec
}

// stream opens the archive decompressed and calls fn with its reader; fn
// returns whether it keeps the reader open (then the caller closes it with
// the returned closer).
func (t tarFS) stream() (*tar.Reader, io.Closer, error) {
	f, err := t.parent.Open(t.name)
	if err != nil {
		return nil, nil, err
	}
	var r io.Reader = f
	closer := io.Closer(f)
	if t.codec != codec.None {
		rc, _, err := codec.OpenAs(t.name, f, t.codec)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		r, closer = rc, closers{rc, f}
	}
	return tar.NewReader(r), closer, nil
}

// Open opens the regular file name of the archive.
func (t tarFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	tr, closer, err := t.stream()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	for {
		h, err := tr.Next()
		if err != nil {
			closer.Close()
			if err == io.EOF {
				err = fs.ErrNotExist
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		if n, ok := tarName(h.Name); ok && n == name && h.Typeflag != tar.TypeDir {
			return &tarFile{r: tr, info: h.FileInfo(), closer: closer}, nil
		}
	}
}

// tarName cleans an entry's name into an fs.FS path ("./a/b/" gives "a/b");
// ok is false for names that leave the archive or are not valid.
func tarName(name string) (string, bool) {
	name = strings.TrimLeft(name, "/")
	if name == "" || name == "." || name == "./" {
		return ".", true
	}
	c := path.Clean(name)
	return c, fs.ValidPath(c) && c != "."
}

// tarFile is an open tar entry.
type tarFile struct {
	r      io.Reader
	info   fs.FileInfo
	closer io.Closer
}

func (f *tarFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *tarFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *tarFile) Close() error               { return f.closer.Close() }

// tarIndex lists a tar archive read once: fs.ReadDirFS and fs.StatFS from
// the headers, Open serving a file's first bytes from memory and the rest by
// streaming the archive again.
type tarIndex struct {
	fs     tarFS
	nodes  map[string]*tarNode
	files  int      // regular files
	unsafe []string // entry names that are not valid paths
}

type tarNode struct {
	info     fs.FileInfo
	children []string // base names, of folders
	head     []byte   // a file's first bytes
}

// indexTar reads the tar archive t once, from list.
func indexTar(list fs.FS, t tarFS) (*tarIndex, error) {
	tr, closer, err := tarFS{parent: list, name: t.name, codec: t.codec}.stream()
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	idx := &tarIndex{fs: t, nodes: map[string]*tarNode{".": {info: dirInfo(".")}}}
	budget := headBudget
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return idx, nil
		}
		if err != nil {
			return nil, err
		}
		name, ok := tarName(h.Name)
		if !ok {
			idx.unsafe = append(idx.unsafe, h.Name)
			continue
		}
		if name == "." {
			continue
		}
		n := idx.add(name)
		n.info = h.FileInfo()
		if h.Typeflag == tar.TypeReg {
			idx.files++
		}
		if h.Typeflag == tar.TypeReg && budget > 0 {
			n.head = make([]byte, min(int64(headSize), h.Size, int64(budget)))
			k, err := io.ReadFull(tr, n.head)
			if err != nil && err != io.ErrUnexpectedEOF {
				return nil, err
			}
			n.head = n.head[:k]
			budget -= k
		}
	}
}

// add returns the node of name, creating it and its folders.
func (x *tarIndex) add(name string) *tarNode {
	if n := x.nodes[name]; n != nil {
		return n
	}
	n := &tarNode{info: dirInfo(path.Base(name))}
	x.nodes[name] = n
	parent := x.add(path.Dir(name))
	parent.children = append(parent.children, path.Base(name))
	return n
}

// Open implements fs.FS.
func (x *tarIndex) Open(name string) (fs.File, error) {
	n := x.nodes[name]
	if n == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if n.info.IsDir() {
		return &tarDir{x: x, name: name}, nil
	}
	return &headFile{x: x, name: name, n: n}, nil
}

// Stat implements fs.StatFS.
func (x *tarIndex) Stat(name string) (fs.FileInfo, error) {
	n := x.nodes[name]
	if n == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return n.info, nil
}

// ReadDir implements fs.ReadDirFS.
func (x *tarIndex) ReadDir(name string) ([]fs.DirEntry, error) {
	n := x.nodes[name]
	if n == nil || !n.info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for _, c := range n.children {
		out = append(out, fs.FileInfoToDirEntry(x.nodes[path.Join(name, c)].info))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// headFile reads a tar entry's first bytes from the index, then, past
// them, streams the archive.
type headFile struct {
	x    *tarIndex
	name string
	n    *tarNode
	off  int
	rest fs.File // the entry streamed, after the head
}

func (f *headFile) Stat() (fs.FileInfo, error) { return f.n.info, nil }

func (f *headFile) Read(p []byte) (int, error) {
	if f.off < len(f.n.head) {
		k := copy(p, f.n.head[f.off:])
		f.off += k
		return k, nil
	}
	if int64(f.off) >= f.n.info.Size() {
		return 0, io.EOF
	}
	if f.rest == nil {
		r, err := f.x.fs.Open(f.name)
		if err != nil {
			return 0, err
		}
		f.rest = r
		if _, err := io.CopyN(io.Discard, r, int64(f.off)); err != nil {
			return 0, err
		}
	}
	k, err := f.rest.Read(p)
	f.off += k
	return k, err
}

func (f *headFile) Close() error {
	if f.rest != nil {
		return f.rest.Close()
	}
	return nil
}

// tarDir is an open folder of a tar index.
type tarDir struct {
	x    *tarIndex
	name string
	read bool
}

func (d *tarDir) Stat() (fs.FileInfo, error) { return d.x.nodes[d.name].info, nil }
func (d *tarDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *tarDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *tarDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	return d.x.ReadDir(d.name)
}

// dirInfo describes a folder the archive implies.
type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }
