package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/open"
)

// Find finds the logs under paths given by a user: files, folders (searched
// recursively), zip archives, and globs (filepath.Match syntax), on the
// local disk or in an object store (s3://, gs://, abfss://, wasbs://
// URLs, read through internal/objstore; a glob's literal prefix is the
// store's listing prefix; file:// URLs are local paths; a URL of another
// scheme is refused, wrapping ErrUnsupportedScheme). Each path
// must hold at least one log: err (errors.Join of one error per bad path)
// names each path that does not exist, matches nothing, or holds no log
// (wrapping ErrNotLog), while logs and skipped hold what the other paths
// gave. Logs are de-duplicated and sorted by name; names are built on the
// paths as given.
func Find(paths []string, opts Options) (logs []*Log, skipped []Skipped, err error) {
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
		local, isLocal, err := localPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !isLocal {
			s, err := findURL(p, opts)
			if err != nil {
				errs = append(errs, err)
			}
			logs, skipped = s.keep(logs, skipped, seen)
			continue
		}
		p = local
		matches := []string{p}
		if hasMeta(p) {
			if _, err := os.Lstat(p); err != nil {
				matches, err = filepath.Glob(p)
				if err != nil {
					errs = append(errs, fmt.Errorf("source: pattern %q: %w", p, err))
					continue
				}
				if len(matches) == 0 {
					errs = append(errs, fmt.Errorf("source: %q: no file matches the pattern: %w", p, os.ErrNotExist))
					continue
				}
			}
		}
		for _, m := range matches {
			s, err := findOne(m, opts)
			if err != nil {
				errs = append(errs, err)
			}
			logs, skipped = s.keep(logs, skipped, seen)
		}
	}
	all := &scanner{logs: logs, skipped: skipped}
	return all.result(), all.skipped, errors.Join(errs...)
}

// keep appends the logs of s not seen yet and its skipped files.
func (s *scanner) keep(logs []*Log, skipped []Skipped, seen map[string]bool) ([]*Log, []Skipped) {
	for _, l := range s.logs {
		if !seen[l.key] {
			seen[l.key] = true
			logs = append(logs, l)
		}
	}
	return logs, append(skipped, s.skipped...)
}

// findURL scans an object-store URL: an object, a key prefix (a folder),
// or a glob over keys.
func findURL(u string, opts Options) (*scanner, error) {
	fsys, root, err := open.Open(context.Background(), u, objstore.Options{})
	if err != nil {
		return newScanner(nil, nil, "", opts), fmt.Errorf("source: %w", err)
	}
	s := newScanner(fsys, fsys.URL, fsys.URL("."), opts)
	if !hasMeta(root) {
		return s, s.explicit(root)
	}
	matches, err := fsys.Glob(root)
	if err != nil {
		return s, fmt.Errorf("source: pattern %q: %w", u, err)
	}
	if len(matches) == 0 {
		return s, fmt.Errorf("source: %q: no object matches the pattern: %w", u, fs.ErrNotExist)
	}
	var errs []error
	for _, m := range matches {
		if err := s.explicit(m); err != nil {
			errs = append(errs, err)
		}
	}
	return s, errors.Join(errs...)
}

// findOne scans one operating-system path through os.DirFS.
func findOne(p string, opts Options) (*scanner, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return newScanner(nil, nil, "", opts), fmt.Errorf("source: %q: %w", p, err)
	}
	dir, root := filepath.Dir(abs), filepath.Base(abs)
	if dir == abs { // the file system's root
		root = "."
	}
	fsys := os.DirFS(dir)
	display := func(q string) string {
		if q == root {
			return p
		}
		rel := q
		if root != "." {
			rel = strings.TrimPrefix(q, root+"/")
		}
		return filepath.Join(p, filepath.FromSlash(rel))
	}
	s := newScanner(fsys, display, filepath.ToSlash(dir)+"/", opts)
	return s, s.explicit(root)
}

// hasMeta reports whether p has glob meta characters.
func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }
