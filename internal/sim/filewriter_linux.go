package sim

import (
	"errors"
	"os"
	"syscall"
)

// errDirectRefused is the error of a direct write the file system refuses.
var errDirectRefused error = syscall.EINVAL

// openDirect creates path with O_DIRECT, or without it when the file
// system refuses it; direct tells which.
func openDirect(path string) (f *os.File, direct bool, err error) {
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_DIRECT, 0o644)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, syscall.EINVAL) {
		return nil, false, err
	}
	f, err = os.Create(path)
	return f, false, err
}

// clearDirect turns O_DIRECT off on f.
func clearDirect(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if e != 0 {
			ferr = e
			return
		}
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags&^syscall.O_DIRECT); e != 0 {
			ferr = e
		}
	})
	if err != nil {
		return err
	}
	return ferr
}
