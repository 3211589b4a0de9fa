package sim

// jobClass holds what a job class does per byte at the reference machine:
// CPU cost of the map (first) and reduce (second) side, and how much data
// each side emits relative to what it reads. The dominant resource follows
// from these numbers: WordCount spends CPU, Sort and RandomWriter move bytes
// through disks, TeraSort moves them through the network, KMeans iterates
// over cached data.
type jobClass struct {
	mapNsPerByte    float64 // CPU ns per input byte (map side)
	reduceNsPerByte float64 // CPU ns per shuffled byte (reduce side)
	mapOut          float64 // map output / input bytes
	reduceOut       float64 // reduce output / shuffled bytes
	recordBytes     float64 // average record size
	mapOnly         bool    // no reduce side (RandomWriter)
	generates       bool    // maps generate data instead of reading it (RandomWriter)
	dominant        string  // cpu, disk or network: the resource the class mostly waits on
}

var classes = map[string]jobClass{
	"wordcount":    {mapNsPerByte: 45, reduceNsPerByte: 25, mapOut: 0.08, reduceOut: 0.4, recordBytes: 60, dominant: "cpu"},
	"sort":         {mapNsPerByte: 4, reduceNsPerByte: 6, mapOut: 1.0, reduceOut: 1.0, recordBytes: 100, dominant: "disk"},
	"terasort":     {mapNsPerByte: 6, reduceNsPerByte: 8, mapOut: 1.0, reduceOut: 1.0, recordBytes: 100, dominant: "network"},
	"randomwriter": {mapNsPerByte: 3, mapOut: 1.0, recordBytes: 100, mapOnly: true, generates: true, dominant: "disk"},
	"kmeans":       {mapNsPerByte: 30, reduceNsPerByte: 10, mapOut: 0.0005, reduceOut: 1, recordBytes: 80, dominant: "cpu"},
	// microbench is the synthetic job of Zhang, Cherkasova and Loo's
	// microbenchmarks (ICPE'13, §3): map and reduce functions that only
	// pass records on, keeping the share of them their selectivity says
	// (AppSpec.MapSelectivity, ReduceSelectivity), so that the generic
	// phases dominate.
	"microbench": {mapNsPerByte: 1, reduceNsPerByte: 1, mapOut: 1, reduceOut: 1, recordBytes: 100, dominant: "disk"},
}
