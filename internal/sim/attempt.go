package sim

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/model"
)

// GC share of CPU time, and how memory pressure raises it.
const (
	gcShare         = 0.04
	gcShareMemory   = 0.3
	memPerCore      = 1.5 * 1024 * mb // heap an executor or container holds per core
	mapSortBuffer   = 80 * mb         // io.sort.mb (100 MB) x spill percent (0.8)
	reduceMergeHold = 200 * mb        // shuffle bytes a reduce keeps in memory before merging on disk
)

// execute runs attempt t at locality loc: it lays out its phases from the
// data it processes and the speed of the resources it uses, decides whether
// it fails, and records its resource use for node metrics.
func (e *engine) execute(t *taskRun, loc model.Locality) work {
	var w work
	p := &e.scratch
	p.cur, p.ivs, p.byRes, p.recs = e.now, p.ivs[:0], [numRes]int64{}, nil
	p.sd, p.acc = noSlowdown, causeAcc{}
	p.begin("")
	e.cur = t.st.app
	shared := e.rng
	e.rng = e.draws(siteAttempt, int64(t.st.app.plan.index), int64(t.st.pi), int64(t.index), int64(t.attempt), boolInt64(t.speculative))
	defer func() { e.cur, e.rng = nil, shared }()
	nd := t.exec.node
	r := e.resourcesOf(nd)
	noise, straggle := e.noise(t)
	if straggle >= 2 {
		t.st.app.truth.Stragglers = append(t.st.app.truth.Stragglers, StragglerTruth{Stage: t.st.modelID(),
			Task: t.index, Attempt: t.attempt, Factor: math.Round(straggle*100) / 100, Cause: "noise"})
	}
	ionoise := math.Sqrt(noise)
	if t.st.app.plan.engine == model.MapReduce {
		e.mrAttempt(&w, p, t, loc, r, noise, ionoise)
	} else {
		e.sparkAttempt(&w, p, t, loc, r, noise, ionoise)
	}
	gcf := 1.0
	if f, ok := t.st.plan.stragglers[t.index]; ok && t.attempt == 0 {
		// An injected straggler: long garbage-collection pauses stretch the
		// attempt to f times its length.
		extra := float64(p.cur-e.now) * (f - 1)
		p.begin("gc-pause")
		acc := p.acc
		p.add(extra, use{nd, chUser, 1})
		p.acc = acc
		if acc.act > 0 {
			gcf = (acc.act + math.Round(extra)) / acc.act
		}
		w.m[model.JVMGCTime] += int64(extra)
		if t.st.plan.spills {
			in := w.m[model.InputBytes] + w.m.ShuffleReadBytes() + w.m[model.HDFSBytesRead]
			w.m[model.DiskBytesSpilled] += in
			w.m[model.MemoryBytesSpilled] += 2 * in
		}
		w.m[model.ExecutorRunTime] += int64(extra)
		w.m[model.ExecutorCPUNanos] += int64(extra * 1e6)
		w.m[model.CPUMillis] += boolInt64(t.st.app.plan.engine == model.MapReduce) * int64(extra)
	}
	w.finish = max(p.cur, e.now+1)
	t.cz = attemptCauses{index: t.index, attempt: t.attempt, node: nd.idx, refMs: p.acc.refLocalMs(), f: causesOf(&p.acc, gcf)}
	for r, ms := range p.byRes {
		t.st.byRes[r] += ms
	}
	sch := &e.sc.Scheduler
	timeout := int64(sch.TimeoutS * 1000)
	switch {
	case t.st.plan.hungTask == t.index && t.attempt == 0:
		// The attempt stops making progress after its start until it times out.
		cut := e.now + min(w.finish-e.now, 500)
		p.cut(cut)
		w.finish, w.failed, w.hungTask = cut+timeout, true, true
	case nd.hangIn(e.now, w.finish) >= 0:
		h := nd.hangIn(e.now, w.finish)
		p.cut(h)
		w.finish, w.failed, w.nodeHung = h+timeout, true, true
	case t.attempt < 3 && e.rng.Float64() < sch.TaskFailureRate:
		cut := e.now + int64(float64(w.finish-e.now)*(0.1+0.8*e.rng.Float64()))
		p.cut(cut)
		w.finish, w.failed = max(cut, e.now+1), true
	}
	if w.failed {
		w.shuffleOut = 0
	}
	for _, iv := range p.ivs {
		e.sink.add(iv.n, iv.ch, iv.start, iv.end, iv.rate)
	}
	if e.sc.Scheduler.Speculation && len(p.ivs) > 0 {
		t.ivs = append([]interval(nil), p.ivs...)
	}
	t.recs = p.recs
	return w
}

// sparkAttempt lays out a Spark task: scheduler delay, deserialization,
// input read or shuffle fetch, compute, shuffle write, output write and
// result serialization, with the metrics Spark 3.5 reports for them.
func (e *engine) sparkAttempt(w *work, p *phases, t *taskRun, loc model.Locality, r resources, noise, ionoise float64) {
	sp, nd := t.st.plan, t.exec.node
	m := &w.m
	p.begin("scheduler-delay")
	p.add(float64(2 + e.rng.IntN(12)))
	deser := float64(5 + e.rng.IntN(30))
	if t.exec.idleSince == 0 || len(t.st.durations) == 0 && t.attempt == 0 && e.rng.IntN(4) == 0 {
		deser += float64(200 + e.rng.IntN(400))
	}
	start := p.cur
	p.begin("deserialize")
	p.add(deser, use{nd, chUser, 1})
	m[model.ExecutorDeserializeTime] = int64(deser)
	m[model.ExecutorDeserializeCPUNanos] = int64(deser * 0.8e6)
	p.begin("read")
	read := e.readInput(p, t, loc, r, ionoise)
	if sp.input == inNone {
		read = sp.inBytes[t.index]
	} else if sp.input != inShuffle {
		m[model.InputBytes] = read
		m[model.InputRecords] = int64(float64(read) / t.st.app.plan.class.recordBytes)
	}
	processed := read
	if sp.input == inShuffle {
		p.begin("shuffle-fetch")
		total, remote, ms := e.fetchShuffle(p, t, r, ionoise)
		processed = total
		recs := int64(float64(total) / t.st.app.plan.class.recordBytes)
		m[model.ShuffleRemoteBytesRead] = remote
		m[model.ShuffleLocalBytesRead] = total - remote
		nsrc := int64(max(1, len(t.st.sources)))
		m[model.ShuffleRemoteBlocksFetched] = nsrc - 1
		m[model.ShuffleLocalBlocksFetched] = 1
		m[model.ShuffleFetchWaitTime] = int64(ms * 0.8)
		m[model.ShuffleRecordsRead] = recs
		m[model.ShuffleRemoteReqsDuration] = int64(ms)
	}
	nsPerByte := sp.nsPerByte
	p.begin("compute")
	cpuMs := e.compute(p, nd, r, processed, nsPerByte, noise)
	gc := gcShare
	if r.cpu < nd.class.CPUSpeed && nd.cpuFactor(e.now) < 1 && nd.diskFactor(e.now) < 1 {
		gc = gcShareMemory
	}
	m[model.JVMGCTime] = int64(cpuMs * gc)
	m[model.PeakExecutionMemory] = min(processed/4, 512*mb)
	if sp.outRatio > 0 {
		out := int64(float64(processed) * sp.outRatio * (0.9 + 0.2*e.rng.Float64()))
		ms := e.diskMs(p, nd, float64(out), 0.5*ionoise)
		p.begin("shuffle-write")
		p.note(e.diskSlow(nd, float64(out), 0.5*ionoise, ionoise, ms))
		p.add(ms, use{nd, chDiskW, float64(out)}, use{nd, chBusy, float64(out) / r.disk}, use{nd, chUser, 0.3})
		w.shuffleOut = max(out, 1)
		m[model.ShuffleWriteBytes] = out
		m[model.ShuffleWriteRecords] = int64(float64(out) / t.st.app.plan.class.recordBytes)
		m[model.ShuffleWriteNanos] = int64(ms * 1e6)
		if out > 256*mb {
			m[model.MemoryBytesSpilled] = out * 2
			m[model.DiskBytesSpilled] = out / 2
		}
	}
	if sp.writeRatio > 0 {
		o := int64(float64(processed) * sp.writeRatio)
		p.begin("output-write")
		e.writeHDFS(p, t, r, o, ionoise)
		m[model.OutputBytes] = o
		m[model.OutputRecords] = int64(float64(o) / t.st.app.plan.class.recordBytes)
	}
	runMs := p.cur - start - int64(deser)
	m[model.ExecutorRunTime] = max(runMs, 0)
	m[model.ExecutorCPUNanos] = int64(cpuMs*1e6) + int64(float64(runMs-int64(cpuMs))*0.15e6)
	ser := float64(e.rng.IntN(4))
	p.begin("result-serialize")
	p.add(ser, use{nd, chUser, 1})
	m[model.ResultSerializationTime] = int64(ser)
	m[model.ResultSize] = int64(1500 + e.rng.IntN(2000))
}

// mrAttempt lays out a MapReduce task through the generic phases of Zhang,
// Cherkasova and Loo, "Benchmarking Approach for Designing a MapReduce
// Performance Model" (ICPE'13, §3): a map runs read, map, collect, spill and
// merge (or write, for map-only jobs); a reduce runs shuffle, merge (sort),
// reduce and write. Each phase's time is the data it handles over the speed
// of the resource it uses, times noise. Counters are the ones Hadoop 3 logs,
// in the model's mapping (see package mapreduce).
func (e *engine) mrAttempt(w *work, p *phases, t *taskRun, loc model.Locality, r resources, noise, ionoise float64) {
	sp, nd := t.st.plan, t.exec.node
	cls := t.st.app.plan.class
	m := &w.m
	p.begin("jvm-start")
	p.add(float64(900+e.rng.IntN(300)), use{nd, chUser, 1})
	var cpuMs float64
	if sp.kind == model.StageMap {
		p.begin("read")
		in := e.readInput(p, t, loc, r, ionoise)
		if sp.input == inNone {
			in = sp.inBytes[t.index]
		} else {
			m[model.HDFSBytesRead] = in + 120
			m[model.InputBytes] = in + 120
		}
		recs := int64(float64(in) / cls.recordBytes)
		m[model.MapInputRecords], m[model.InputRecords] = recs, recs
		p.begin("map")
		cpuMs += e.compute(p, nd, r, in, sp.nsPerByte, noise)
		if sp.writeRatio > 0 { // map-only: write
			w.mapEnd = p.cur
			p.begin("write")
			o := int64(float64(in) * sp.writeRatio)
			e.writeHDFS(p, t, r, o, ionoise)
			m[model.HDFSBytesWritten], m[model.OutputBytes] = o, o
			orecs := int64(float64(o) / cls.recordBytes)
			m[model.MapOutputRecords], m[model.OutputRecords] = orecs, orecs
		} else {
			out := int64(float64(in) * sp.outRatio * (0.9 + 0.2*e.rng.Float64()))
			orecs := int64(float64(out) / cls.recordBytes)
			p.begin("collect") // serialize and partition into the buffer
			cpuMs += e.compute(p, nd, r, out, 2, 1)
			w.mapEnd = p.cur
			p.begin("spill") // sort, then write
			cpuMs += e.compute(p, nd, r, out, 3, 1)
			spill := e.diskMs(p, nd, float64(out), ionoise)
			p.note(e.diskSlow(nd, float64(out), ionoise, ionoise, spill))
			p.add(spill, use{nd, chDiskW, float64(out)}, use{nd, chBusy, float64(out) / r.disk}, use{nd, chUser, 0.2})
			fileW, fileR, spilled := out, int64(0), orecs
			if out > mapSortBuffer { // merge: read the spills, write one sorted file
				p.begin("merge")
				ms := e.diskMs(p, nd, 2*float64(out), ionoise)
				p.note(e.diskSlow(nd, 2*float64(out), ionoise, ionoise, ms))
				p.add(ms, use{nd, chDiskR, float64(out)}, use{nd, chDiskW, float64(out)},
					use{nd, chBusy, 2 * float64(out) / r.disk}, use{nd, chUser, 0.4})
				fileW, fileR, spilled = 2*out, out, 2*orecs
			}
			w.shuffleOut = max(out, 1)
			m[model.MapOutputRecords], m[model.ShuffleWriteRecords] = orecs, orecs
			m[model.MapOutputBytes], m[model.ShuffleWriteBytes] = out, out
			m[model.FileBytesWritten], m[model.FileBytesRead], m[model.SpilledRecords] = fileW, fileR, spilled
		}
		m[model.MapPhaseFinish] = w.mapEnd
	} else {
		p.begin("shuffle")
		total, _, _ := e.fetchShuffle(p, t, r, ionoise)
		w.shuffleEnd = p.cur
		recs := int64(float64(total) / cls.recordBytes)
		fileW, fileR := int64(0), int64(0)
		if total > reduceMergeHold { // merge (sort) on disk
			p.begin("merge")
			ms := e.diskMs(p, nd, 2*float64(total), ionoise)
			p.note(e.diskSlow(nd, 2*float64(total), ionoise, ionoise, ms))
			p.add(ms, use{nd, chDiskR, float64(total)}, use{nd, chDiskW, float64(total)},
				use{nd, chBusy, 2 * float64(total) / r.disk}, use{nd, chUser, 0.4})
			fileW, fileR = total, total
		}
		w.sortEnd = p.cur
		p.begin("reduce")
		cpuMs += e.compute(p, nd, r, total, sp.nsPerByte, noise)
		o := int64(float64(total) * sp.writeRatio)
		p.begin("write")
		e.writeHDFS(p, t, r, o, ionoise)
		orecs := int64(float64(o) / cls.recordBytes)
		// Hadoop counts every map output a reduce copies in
		// REDUCE_SHUFFLE_BYTES, its own node's (LocalFetcher) too; the
		// decoder also reads it as the remote bytes.
		m[model.ReduceShuffleBytes], m[model.ShuffleRemoteBytesRead] = total, total
		m[model.ReduceInputRecords], m[model.ShuffleRecordsRead] = recs, recs
		m[model.ReduceOutputRecords], m[model.OutputRecords] = orecs, orecs
		m[model.HDFSBytesWritten], m[model.OutputBytes] = o, o
		m[model.FileBytesWritten], m[model.FileBytesRead] = fileW, fileR
		m[model.SpilledRecords] = recs
		m[model.ShufflePhaseFinish], m[model.SortPhaseFinish] = w.shuffleEnd, w.sortEnd
	}
	gc := gcShare
	if nd.cpuFactor(e.now) < 1 && nd.diskFactor(e.now) < 1 {
		gc = gcShareMemory
	}
	cpu := int64(cpuMs) + 600
	m[model.CPUMillis] = cpu
	m[model.ExecutorCPUNanos] = cpu * 1_000_000
	m[model.JVMGCTime] = int64(cpuMs * gc)
	m[model.PhysicalMemoryBytes] = int64(300+e.rng.IntN(300)) * mb
	m[model.VirtualMemoryBytes] = int64(2600+e.rng.IntN(200)) * mb
	m[model.CommittedHeapBytes] = int64(400+e.rng.IntN(200)) * mb
}

func boolInt64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
