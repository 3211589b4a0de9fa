package history

// Class is the resource a stage's tasks mostly used, judged from their
// metrics, so that per-node models can tell CPU-bound work from I/O-bound
// work without special base jobs (PARC, Gupta et al., uses WordCount maps
// as its CPU class and RandomWriter maps as its I/O class).
type Class string

// Classes.
const (
	ClassCPU     Class = "cpu"     // CPU time is most of the run time
	ClassIO      Class = "io"      // reads or writes input/output more than it computes
	ClassShuffle Class = "shuffle" // moves more shuffle data than input and output
	ClassUnknown Class = "unknown" // no run time, or metrics that do not say
)

// CPUBound is the share of run time spent on the CPU from which a stage is
// CPU-bound (Classify).
const CPUBound = 0.7

// Classify judges a stage from its summed task metrics: CPU-bound when CPU
// time is at least CPUBound of run time; otherwise shuffle when it moved
// more shuffle bytes than input and output bytes, I/O when it read or wrote
// any input or output, and unknown when nothing tells (no run time).
func Classify(st *Stage) Class {
	if st.RunTimeMs <= 0 {
		return ClassUnknown
	}
	if float64(st.CPUTimeMs) >= CPUBound*float64(st.RunTimeMs) {
		return ClassCPU
	}
	shuffle := st.ShuffleReadBytes + st.ShuffleWriteBytes
	io := st.InputBytes + st.OutputBytes
	switch {
	case shuffle > io:
		return ClassShuffle
	case io > 0 || st.InputRecords > 0:
		return ClassIO
	}
	return ClassUnknown
}
