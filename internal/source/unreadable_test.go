package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deniedFS is a file system that refuses some paths as an operating system
// refuses a user without permission: opening a file, or listing a folder.
type deniedFS struct {
	fs.FS
	denied map[string]bool
}

func (d deniedFS) Open(name string) (fs.File, error) {
	if d.denied[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

// Stat works as on an operating system: it needs no permission on the file.
func (d deniedFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.FS, name) }

func (d deniedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if d.denied[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return fs.ReadDir(d.FS, name)
}

// TestPermissionDeniedIsNamed: a file and a sub-folder that cannot be read
// inside a folder are each skipped as unreadable, with the cause, while the
// readable log is found; an unreadable path given explicitly is an error
// naming it, not "not a log".
func TestPermissionDeniedIsNamed(t *testing.T) {
	fsys := deniedFS{FS: mapFS(map[string][]byte{
		"logs/app-1":        []byte(sparkLines),
		"logs/app-2":        []byte(sparkLines),
		"logs/sub/app-3":    []byte(sparkLines),
		"logs/notes.txt":    []byte("notes"),
		"logs/.hidden-file": []byte("x"),
	}), denied: map[string]bool{"logs/app-2": true, "logs/sub": true}}
	logs, skipped, err := Scan(fsys, "logs", Options{Formats: testFormats})
	if err != nil || len(logs) != 1 || logs[0].Name != "logs/app-1" {
		t.Fatalf("logs %v, err %v", logs, err)
	}
	unreadable := map[string]string{}
	for _, s := range skipped {
		if s.Err != nil {
			if !errors.Is(s.Err, fs.ErrPermission) {
				t.Errorf("%s: %v", s.Name, s.Err)
			}
			unreadable[s.Name] = s.Reason
		} else if s.Name != "logs/notes.txt" && s.Name != "logs/.hidden-file" {
			t.Errorf("skipped %s (%s) without an error", s.Name, s.Reason)
		}
	}
	for name, want := range map[string]string{"logs/app-2": "unreadable: open: permission denied",
		"logs/sub": "unreadable folder: open: permission denied"} {
		if unreadable[name] != want {
			t.Errorf("%s: reason %q, want %q", name, unreadable[name], want)
		}
	}
	if len(unreadable) != 2 {
		t.Errorf("unreadable %v", unreadable)
	}

	_, _, err = Scan(fsys, "logs/app-2", Options{Formats: testFormats})
	if !errors.Is(err, fs.ErrPermission) || errors.Is(err, ErrNotLog) || !strings.Contains(err.Error(), `"logs/app-2"`) {
		t.Errorf("explicit unreadable file: %v", err)
	}
}

// TestErrorsNameFullPaths: errors from the operating system name files by
// the paths the user gave, not by the paths inside os.DirFS (which drop
// the leading "/").
func TestErrorsNameFullPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app-1"), []byte(sparkLines), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(link, "/") // what os.DirFS("/") would call it
	_, skipped, err := Find([]string{dir}, Options{Formats: testFormats})
	if err != nil || len(skipped) != 1 || skipped[0].Name != link || skipped[0].Err == nil {
		t.Fatalf("skipped %+v, err %v", skipped, err)
	}
	if strings.Contains(skipped[0].Reason, "dangling") {
		t.Errorf("reason %q repeats the path (relative to the file system)", skipped[0].Reason)
	}
	_, _, err = Find([]string{link}, Options{Formats: testFormats})
	if err == nil || !strings.Contains(err.Error(), `"`+link+`"`) || strings.Contains(strings.ReplaceAll(err.Error(), link, ""), "dangling") {
		t.Errorf("explicit dangling link: %v, want the full path %s only (not %s)", err, link, rel)
	}
}
