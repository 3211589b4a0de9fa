package metrics

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// SadfActivities are the sar options ReadSadc passes to sadf: every
// activity the canonical metrics come from (CPU with interrupts split out,
// context switches, paging, run queue and load, memory with slab, disks,
// network interfaces) and nothing else, to keep sadf's output small.
var SadfActivities = []string{"-u", "ALL", "-w", "-B", "-q", "-r", "ALL", "-d", "-n", "DEV"}

// IsSadc reports whether head, the first bytes of a file, starts a sadc
// binary data file: sysstat's magic 0xd596 then a format magic 0x21xx
// (0x2170 to 0x2175 in sysstat 9 to 12), in either byte order.
func IsSadc(head []byte) bool {
	return len(head) >= 4 && (head[0] == 0x96 && head[1] == 0xd5 && head[3] == 0x21 ||
		head[0] == 0xd5 && head[1] == 0x96 && head[2] == 0x21)
}

// ReadSadc reads a sadc binary data file (/var/log/sysstat/saDD) by running
// `sadf -j -- PATH SadfActivities...` from PATH and streaming its output
// through ReadSysstat, so the file's format is sadf's business: the sadf
// installed must read the file's version (sadf -c converts older files).
// sadf's standard error is returned in the error when it fails.
func ReadSadc(ctx context.Context, path string, fn func(*model.Sample) error) error {
	sadf, err := exec.LookPath("sadf")
	if err != nil {
		return fmt.Errorf("%s: a sadc data file needs sysstat's sadf on PATH: %w", path, err)
	}
	args := append([]string{"-j", path, "--"}, SadfActivities...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, sadf, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%s: sadf: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: sadf: %w", path, err)
	}
	rerr := ReadSysstat(out, path+" (sadf -j)", fn)
	if rerr != nil {
		cancel() // stop sadf: nothing more will be read
	}
	werr := cmd.Wait()
	switch {
	case rerr != nil && ctx.Err() != nil && werr != nil && stderr.Len() == 0:
		return rerr // sadf was stopped because reading failed
	case werr != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return fmt.Errorf("%s: %s %s: %s", path, sadf, strings.Join(args, " "), msg)
	}
	return rerr
}
