package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Find finds the logs under paths given by a user: files, folders (searched
// recursively), zip archives, and globs (filepath.Match syntax). Each path
// must hold at least one log: err (errors.Join of one error per bad path)
// names each path that does not exist, matches nothing, or holds no log
// (wrapping ErrNotLog), while logs and skipped hold what the other paths
// gave. Logs are de-duplicated and sorted by name; names are built on the
// paths as given.
func Find(paths []string, opts Options) (logs []*Log, skipped []Skipped, err error) {
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
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
			for _, l := range s.logs {
				if !seen[l.key] {
					seen[l.key] = true
					logs = append(logs, l)
				}
			}
			skipped = append(skipped, s.skipped...)
		}
	}
	all := &scanner{logs: logs, skipped: skipped}
	return all.result(), all.skipped, errors.Join(errs...)
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
