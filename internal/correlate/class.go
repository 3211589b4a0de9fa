package correlate

import "fmt"

// Class is what bounded a task or stage.
type Class uint8

// Classes.
const (
	Unknown Class = iota // no metrics in the log and no samples
	CPUBound
	DiskBound
	NetworkBound
	Mixed // no resource dominates
)

var classNames = [...]string{"unknown", "cpu-bound", "disk-bound", "network-bound", "mixed"}

// String returns the class's name ("cpu-bound", ...).
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "unknown"
}

// MarshalText writes the class's name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class's name.
func (c *Class) UnmarshalText(b []byte) error {
	for i, n := range classNames {
		if n == string(b) {
			*c = Class(i)
			return nil
		}
	}
	return fmt.Errorf("resource class %q: want one of %v", b, classNames)
}

// ProfileOptions tune the classification. They are clusterlens's own
// (HybridTune names the resource profiles but gives no thresholds).
type ProfileOptions struct {
	// MinShare is the least share of the run time the dominant resource
	// must hold for a bound class (default 0.3).
	MinShare float64
	// Ratio is how many times the second resource's share the dominant's
	// must be (default 1.5).
	Ratio float64
	// IOCPU is the share of a core an attempt keeps busy while it waits
	// on I/O (serialization, checksums, system calls), which its CPU time
	// includes (default 0.15).
	IOCPU float64
}

func (o ProfileOptions) withDefaults() ProfileOptions {
	if o.MinShare <= 0 {
		o.MinShare = 0.3
	}
	if o.Ratio <= 0 {
		o.Ratio = 1.5
	}
	if o.IOCPU <= 0 || o.IOCPU >= 1 {
		o.IOCPU = 0.15
	}
	return o
}

// classify names the dominant resource of shares (cpu, disk, network) and
// the class: bound by it when it holds at least MinShare of the run time
// and Ratio times the runner-up, else mixed.
func classify(cpu, disk, net float64, o ProfileOptions) (dominant string, c Class) {
	v := [3]float64{cpu, disk, net}
	best, second := 0, -1
	for i := 1; i < 3; i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	for i := range 3 {
		if i != best && (second < 0 || v[i] > v[second]) {
			second = i
		}
	}
	names := [3]string{"cpu", "disk", "network"}
	if v[best] <= 0 {
		return "", Unknown
	}
	if v[best] >= o.MinShare && v[best] >= o.Ratio*v[second] {
		return names[best], Class(best + 1)
	}
	return names[best], Mixed
}
