package objstore

import (
	"context"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// memBackend is a bucket in memory, for checking FS's own logic (globs,
// listings) against the standard library's over the same keys.
type memBackend map[string]string

func (m memBackend) List(_ context.Context, prefix string, fn func(Entry) error) error {
	dirs := map[string]bool{}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if i := strings.Index(rest, "/"); i >= 0 {
			d := prefix + rest[:i+1]
			if !dirs[d] {
				dirs[d] = true
				if err := fn(Entry{Key: d, Dir: true}); err != nil {
					return err
				}
			}
			continue
		}
		if err := fn(Entry{Key: k, Size: int64(len(m[k]))}); err != nil {
			return err
		}
	}
	return nil
}

func (m memBackend) Stat(_ context.Context, key string) (Entry, error) {
	v, ok := m[key]
	if !ok {
		return Entry{}, &HTTPError{Status: 404}
	}
	return Entry{Key: key, Size: int64(len(v))}, nil
}

func (m memBackend) Read(_ context.Context, key, _ string, off, n int64) (io.ReadCloser, Entry, error) {
	v, ok := m[key]
	if !ok {
		return nil, Entry{}, &HTTPError{Status: 404}
	}
	end := min(off+n, int64(len(v)))
	return io.NopCloser(strings.NewReader(v[min(off, end):end])), Entry{Key: key, Size: int64(len(v))}, nil
}

func (m memBackend) Credentials() string { return "none" }

// FuzzGlob checks FS.Glob, which pushes each element's literal prefix down
// to the listing, against fs.Glob over fstest.MapFS holding the same keys.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"logs/app-*", "logs/*/c.json", "logs/[ab]*/*", "*", "logs/app-1?", "x/y", `logs/\*`} {
		f.Add(s)
	}
	keys := []string{"logs/app-1", "logs/app-10", "logs/app-2.zst", "logs/b/c.json", "logs/bb/c.json", "logs/*", "top", "x/y", "x/yy/z"}
	mb, mfs := memBackend{}, fstest.MapFS{}
	for _, k := range keys {
		mb[k] = k
		mfs[k] = &fstest.MapFile{Data: []byte(k)}
	}
	fsys := New(mb, "mem://b", Options{})
	f.Fuzz(func(t *testing.T, pattern string) {
		got, gerr := fsys.Glob(pattern)
		if !fs.ValidPath(pattern) {
			// open.Parse cleans URLs: such patterns never come; fs.Glob
			// itself reads "./*" as "*".
			return
		}
		want, werr := fs.Glob(mfs, pattern)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Glob(%q): error %v, fs.Glob's %v", pattern, gerr, werr)
		}
		if werr == nil && !slices.Equal(got, want) {
			t.Fatalf("Glob(%q) = %q, fs.Glob says %q", pattern, got, want)
		}
	})
}
