package sampler

import (
	"os"
	"path/filepath"
	"strings"
)

// wholeDisks decides which /proc/diskstats entries count toward the node's
// disk totals: whole physical disks only, the devices sar -b sums. A name is
// a whole disk when SysRoot/block/<name> exists (partitions are not listed
// there) and its link does not lead into /devices/virtual/ (loop, ram, zram,
// dm-*, md* and nbd devices re-count IO that their backing disks already
// count, or count none). Answers are cached per name: a device keeps its
// kind while it exists.
type wholeDisks struct {
	blockDir string
	known    map[string]bool
}

func newWholeDisks(sysRoot string) *wholeDisks {
	return &wholeDisks{blockDir: filepath.Join(sysRoot, "block"), known: map[string]bool{}}
}

// is reports whether name is a whole physical disk.
func (w *wholeDisks) is(name string) bool {
	if v, ok := w.known[name]; ok {
		return v
	}
	link, err := os.Readlink(filepath.Join(w.blockDir, name))
	v := err == nil && !strings.Contains(link, "/virtual/")
	w.known[name] = v
	return v
}
