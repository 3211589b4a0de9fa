package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// FS is a bucket as a read-only file system: fs.FS, fs.StatFS,
// fs.ReadDirFS and fs.GlobFS. It is safe for concurrent use.
type FS struct {
	b    Backend
	base string // URL of the bucket, ending in "/": "s3://bucket/"
	opt  Options
}

var (
	_ fs.StatFS    = (*FS)(nil)
	_ fs.ReadDirFS = (*FS)(nil)
	_ fs.GlobFS    = (*FS)(nil)
)

// New returns the file system of backend b, whose URL (for errors and
// display) is base followed by a key.
func New(b Backend, base string, opt Options) *FS {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return &FS{b: b, base: base, opt: opt.withDefaults()}
}

// URL returns the URL of the fs path name ("." is the bucket).
func (f *FS) URL(name string) string {
	if name == "." {
		return f.base
	}
	return f.base + name
}

// Backend returns the store f reads.
func (f *FS) Backend() Backend { return f.b }

// dirPrefix returns the listing prefix of the folder name.
func dirPrefix(name string) string {
	if name == "." {
		return ""
	}
	return name + "/"
}

// do runs one request under the retry policy.
func (f *FS) do(op, name string, fn func() error) error {
	return f.opt.Retry.do(context.Background(), op, f.URL(name), f.b.Credentials, fn)
}

// Stat returns the attributes of the object name, or of the folder name
// when no object has that key but some have it as a prefix. The root "."
// is always a folder, and listing it checks that the bucket exists.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if name != "." {
		var e Entry
		err := f.do("stat", name, func() (err error) { e, err = f.b.Stat(context.Background(), name); return err })
		if err == nil {
			return info{e}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	found, err := f.exists(dirPrefix(name))
	if err != nil {
		return nil, err
	}
	if !found && name != "." {
		return nil, &Error{Op: "stat", URL: f.URL(name), Attempts: 1, Err: fs.ErrNotExist}
	}
	return info{Entry{Key: dirPrefix(name), Dir: true}}, nil
}

// errStop ends a listing early.
var errStop = errors.New("stop listing")

// exists reports whether some key starts with prefix; for "" it checks that
// the bucket can be listed. A folder marker (an empty object named prefix,
// as consoles create) is enough.
func (f *FS) exists(prefix string) (bool, error) {
	found := false
	err := f.do("list", strings.TrimSuffix(prefix, "/"), func() error {
		err := f.b.List(context.Background(), prefix, func(Entry) error {
			found = true // an object, a sub-folder, or the folder's marker
			return errStop
		})
		if errors.Is(err, errStop) {
			return nil
		}
		return err
	})
	return found, err
}

// ReadDir lists the folder name, sorted by name. Zero-byte folder markers
// (a key ending in "/", as consoles create) and keys that are no valid fs
// path ("a//b") are left out.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	entries, err := f.list(name, "")
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 && name != "." {
		if _, err := f.Stat(name); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// list lists the entries of the folder dir whose names start with prefix.
func (f *FS) list(dir, prefix string) ([]fs.DirEntry, error) {
	p := dirPrefix(dir)
	var entries []fs.DirEntry
	err := f.do("list", dir, func() error {
		entries = entries[:0]
		return f.b.List(context.Background(), p+prefix, func(e Entry) error {
			n := strings.TrimSuffix(strings.TrimPrefix(e.Key, p), "/")
			if n == "" || strings.Contains(n, "/") || !fs.ValidPath(n) {
				return nil
			}
			entries = append(entries, info{e})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	// An object and a folder of the same name ("x" and "x/y") are both
	// listed, as no file system could: Open and Stat find the object.
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Glob returns the paths that match pattern (path.Match syntax), sorted.
// Each element's literal prefix up to its first meta character is sent to
// the store as the listing prefix, so "logs/app-2024*" lists only the keys
// that start with "logs/app-2024".
func (f *FS) Glob(pattern string) ([]string, error) {
	for _, elem := range strings.Split(pattern, "/") { // each element must be a pattern, as fs.Glob wants
		if _, err := path.Match(elem, ""); err != nil {
			return nil, err
		}
	}
	if !fs.ValidPath(pattern) {
		return nil, nil // as fs.Glob: no path matches
	}
	var out []string
	var walk func(dir string, rest []string) error
	walk = func(dir string, rest []string) error {
		elem, more := rest[0], rest[1:]
		join := func(n string) string {
			if dir == "." {
				return n
			}
			return dir + "/" + n
		}
		if !hasMeta(elem) {
			p := join(elem)
			if len(more) > 0 {
				return walk(p, more)
			}
			if _, err := f.Stat(p); err == nil {
				out = append(out, p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		entries, err := f.list(dir, literalPrefix(elem))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, e := range entries {
			if ok, _ := path.Match(elem, e.Name()); !ok {
				continue
			}
			if len(more) == 0 {
				out = append(out, join(e.Name()))
			} else if e.IsDir() {
				if err := walk(join(e.Name()), more); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(".", strings.Split(pattern, "/")); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// hasMeta reports whether a path element has path.Match meta characters.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// literalPrefix returns the part of a path.Match element before its first
// meta character.
func literalPrefix(elem string) string {
	if i := strings.IndexAny(elem, `*?[\`); i >= 0 {
		return elem[:i]
	}
	return elem
}

// Open opens the object name for streaming, or the folder name. It reads
// the object's first FirstChunk bytes at once, so that a missing object
// or a refusal is Open's error.
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name != "." {
		fl, err := f.openFile(name)
		if err == nil {
			return fl, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	st, err := f.Stat(name)
	if err != nil {
		return nil, err
	}
	return &dir{fs: f, name: name, info: st}, nil
}

// info is an Entry as fs.FileInfo and fs.DirEntry.
type info struct{ e Entry }

func (i info) Name() string {
	n := path.Base(strings.TrimSuffix(i.e.Key, "/"))
	if i.e.Key == "" || n == "/" {
		return "."
	}
	return n
}
func (i info) Size() int64 { return i.e.Size }
func (i info) Mode() fs.FileMode {
	if i.e.Dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time         { return i.e.ModTime }
func (i info) IsDir() bool                { return i.e.Dir }
func (i info) Sys() any                   { return i.e }
func (i info) Type() fs.FileMode          { return i.Mode().Type() }
func (i info) Info() (fs.FileInfo, error) { return i, nil }
func (i info) String() string             { return fs.FormatFileInfo(i) }

// dir is an open folder.
type dir struct {
	fs      *FS
	name    string
	info    fs.FileInfo
	entries []fs.DirEntry
	read    bool
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *dir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		var err error
		if d.entries, err = d.fs.list(d.name, ""); err != nil {
			return nil, err
		}
		d.read = true
	}
	if n <= 0 {
		all := d.entries
		d.entries = nil
		return all, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}
