//go:build unix

package sampler

import (
	"io/fs"
	"syscall"
)

// sigQuit sends SIGQUIT, which makes a HotSpot JVM open its attach socket.
func sigQuit(pid int) error { return syscall.Kill(pid, syscall.SIGQUIT) }

// fileIDOf is the device and inode of a file, which the log sampler follows
// through renames.
func fileIDOf(info fs.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}
