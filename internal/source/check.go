package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/open"
)

// ErrUnsupportedScheme is wrapped by the error for a path that is a URL of
// a scheme no store here reads (ftp://, http://).
var ErrUnsupportedScheme = errors.New("unsupported URL scheme")

// readable names what a path may be, for the unsupported-scheme error.
const readable = "local paths (or file://), s3://, gs://, abfs[s]://, wasb[s]://"

// urlScheme returns the scheme of p when p has the form scheme://...
// (RFC 3986: a letter, then letters, digits, "+", "-" or "."), lower-cased.
func urlScheme(p string) (string, bool) {
	scheme, _, ok := strings.Cut(p, "://")
	if !ok || scheme == "" {
		return "", false
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return "", false
		}
	}
	return strings.ToLower(scheme), true
}

// localPath maps a path given by a user to the local path it names: a
// file:// URL (as spark.eventLog.dir writes it) to its path, any other URL
// of a scheme no store reads to an error naming the scheme (unless a local
// file of that odd name exists). ok is false for object-store URLs.
func localPath(p string) (local string, ok bool, err error) {
	if objstore.IsURL(p) {
		return "", false, nil
	}
	scheme, isURL := urlScheme(p)
	switch {
	case !isURL:
		return p, true, nil
	case scheme == "file":
		rest := p[len("file://"):]
		if rest == "" || !strings.HasPrefix(rest, "/") {
			return "", true, fmt.Errorf("source: %q: want file:///absolute/path", p)
		}
		return filepath.FromSlash(rest), true, nil
	}
	if _, err := os.Lstat(p); err == nil {
		return p, true, nil
	}
	hint := ""
	if scheme == "http" || scheme == "https" {
		hint = "; a History Server's logs are downloaded as a zip (/api/v1/applications/ID/logs), which is read as a folder"
	}
	return "", true, fmt.Errorf("source: %q: %w %q: want %s%s", p, ErrUnsupportedScheme, scheme, readable, hint)
}

// Check reports whether a path given by a user can be read, without
// looking for logs under it: a local file or folder that exists (a folder
// that can be listed), a glob that matches something, or an object-store
// URL of a store that is read here whose bucket answers a listing with the
// credentials found and holds the object or prefix. The error names the
// path and the cause. It costs a stat, or one listing request of a bucket.
func Check(p string) error {
	local, isLocal, err := localPath(p)
	if err != nil {
		return err
	}
	if !isLocal {
		return checkURL(p)
	}
	if hasMeta(local) {
		if _, err := os.Lstat(local); err != nil {
			matches, err := filepath.Glob(local)
			if err != nil {
				return fmt.Errorf("source: pattern %q: %w", p, err)
			}
			if len(matches) == 0 {
				return fmt.Errorf("source: %q: no file matches the pattern: %w", p, os.ErrNotExist)
			}
			return nil
		}
	}
	info, err := os.Stat(local)
	if err != nil {
		return fmt.Errorf("source: %q: %w", p, pathless(err))
	}
	if info.IsDir() {
		f, err := os.Open(local)
		if err == nil {
			_, err = f.ReadDir(1)
			f.Close()
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("source: %q: %w", p, pathless(err))
		}
	}
	return nil
}

// checkURL is Check for an object-store URL: the bucket listed (which
// checks that it exists and that the credentials are accepted), then the
// object or prefix (a glob's literal prefix) looked up.
func checkURL(u string) error {
	fsys, root, err := open.Open(context.Background(), u, objstore.Options{})
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if _, err := fsys.Stat("."); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if hasMeta(root) {
		root = literalDir(root)
	}
	if root == "." {
		return nil
	}
	if _, err := fsys.Stat(root); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	return nil
}

// literalDir is the folder of a glob's part before its first metacharacter.
func literalDir(pattern string) string {
	i := strings.IndexAny(pattern, `*?[\`)
	return path.Dir(pattern[:i] + "x")
}

// Canonical returns the path a user's path names as Find reads it: a
// file:// URL's local path, any other path unchanged.
func Canonical(p string) string {
	if local, ok, err := localPath(p); ok && err == nil {
		return local
	}
	return p
}
