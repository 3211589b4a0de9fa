//go:build !unix

package sampler

import (
	"errors"
	"io/fs"
)

// sigQuit: the JVM attach mechanism the jvm sampler uses needs Unix signals.
func sigQuit(int) error { return errors.New("attaching to a JVM needs Unix's SIGQUIT") }

// fileIDOf: without inodes the log sampler cannot follow files through
// renames, and follows none.
func fileIDOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
