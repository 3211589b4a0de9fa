package sharedtest

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// GenerateLoad keeps a bounded, steady load on this machine until ctx ends,
// so that every node metric a sampler or recorder reads moves (the proc
// sampler's and nmon's agreement tests use it): one goroutine busy
// half of each 100 ms, 8 MB/s of fsynced writes and 4 MB/s of reads past
// the page cache in dir, 16 MB/s over a loopback TCP connection, and
// 16 MB/s of fresh anonymous pages touched (page faults).
func GenerateLoad(ctx context.Context, t testing.TB, dir string) {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	every := func(period time.Duration, f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(period)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					f()
				}
			}
		}()
	}
	every(100*time.Millisecond, func() { // CPU: busy 50 ms of every 100
		x := 1
		for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
			x = x*31 + 7
		}
		_ = x
	})
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i * 7)
	}
	wpath, rpath := filepath.Join(dir, "w"), filepath.Join(dir, "r")
	if err := os.WriteFile(rpath, append(block, block...), 0o644); err != nil {
		t.Fatal(err)
	}
	every(125*time.Millisecond, func() { // disk writes: 1 MB, fsynced
		f, err := os.OpenFile(wpath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return
		}
		_, _ = f.Write(block)
		_ = f.Sync()
		_ = f.Close()
	})
	every(500*time.Millisecond, func() { // disk reads: 2 MB dropped from the cache first
		f, err := os.Open(rpath)
		if err != nil {
			return
		}
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		_, _ = io.Copy(io.Discard, f)
		_ = f.Close()
	})
	every(62500*time.Microsecond, func() { // page faults: 1 MB of new pages
		m, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			return
		}
		for i := 0; i < len(m); i += 4096 {
			m[i] = 1
		}
		_ = unix.Munmap(m)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(io.Discard, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() { <-ctx.Done(); c.Close(); ln.Close(); wg.Done() }()
	every(62500*time.Microsecond, func() { _, _ = c.Write(block) }) // loopback: 1 MB per 1/16 s
}
