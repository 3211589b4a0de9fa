package sim

// The causes of wrong node verdicts seen on real clusters (issue 19), each
// as a scenario with its ground truth: slowdowns on most nodes of a small
// cluster at once, recurring fixed-size jobs with 2–3 tasks per host,
// single-task stages, a node quieter than its history and a cluster-wide
// busier period. The first three are PARC-style histories (a clean
// history until ParcFaultS, then the faults: docs/NODES.md judges them);
// the last two are fault-free variants of asymmetric for the peer
// diagnosis without logs (docs/PEER.md).

func init() {
	library["small-slow"] = smallSlow
	library["fixed-recurring"] = fixedRecurring
	library["single-task"] = singleTask
	library["quiet-node"] = quietNode
	library["busier-period"] = busierPeriod
}

// fixedJobs are recurring fixed-size jobs on nodes nodes: Spark WordCount
// (CPU) and RandomWriter (IO) with one 4-core executor per node, and
// MapReduce WordCount and RandomWriter with two containers per node, each
// stage partitioned into tasks per node tasks.
func fixedJobs(nodes, tasks int) []RecurringSpec {
	p := nodes * tasks
	return []RecurringSpec{
		{Job: "wordcount", Engine: "spark", Class: "wordcount", Name: "daily_words_{date}", InputGB: 0.4 * float64(nodes), Executors: nodes, Cores: 4, Partitions: p, Fixed: true},
		{Job: "randomwriter", Engine: "spark", Class: "randomwriter", Name: "generate data {date}T{time}", InputGB: 0.4 * float64(nodes), Executors: nodes, Cores: 4, Partitions: p, Fixed: true},
		{Job: "mr-wordcount", Engine: "mapreduce", Class: "wordcount", Name: "ad_clicks_hourly {date} {time}", InputGB: 0.4 * float64(nodes), Executors: 2 * nodes, Partitions: p, Fixed: true},
		{Job: "mr-randomwriter", Engine: "mapreduce", Class: "randomwriter", Name: "random-writer-{uuid}", InputGB: 0.4 * float64(nodes), Executors: 2 * nodes, Partitions: p, Fixed: true},
	}
}

// fixedHistory is a PARC-style scenario of fixed-size recurring jobs on
// nodes nodes of one class: a clean history until ParcFaultS, then faults.
func fixedHistory(name, desc string, nodes, tasks int, faults ...FaultSpec) *Scenario {
	return &Scenario{
		Name: name, Description: desc, HorizonS: ParcFaultS + 1200,
		Cluster: ClusterSpec{Nodes: nodes, Racks: 1, Classes: []HardwareClass{
			{Name: "gen2-8c", Share: 1, Cores: 8, CPUSpeed: 1.0, DiskMBps: 160, NetMBps: 115, MemoryGB: 64}}},
		Arrivals: &ArrivalSpec{PerMinute: 1.5, SparkShare: 0.5, InputGB: 1, Executors: nodes, Cores: 4, RecurringShare: 1,
			Recurring: fixedJobs(nodes, tasks)},
		Faults:  faults,
		Metrics: MetricsSpec{IntervalS: 10},
	}
}

// smallSlow: on a 4-node cluster three nodes are slowed at once (CPU
// hogs), so that a node's peers are slowed too: judged against the run's
// other nodes alone the slowdown cancels.
func smallSlow() *Scenario {
	return fixedHistory("small-slow", "4 like nodes, fixed-size recurring jobs with 2–3 tasks per host; CPU hogs on 3 of the 4 nodes at once from 2400 s", 4, 3,
		FaultSpec{Kind: FaultCPUHog, Node: 0, StartS: ParcFaultS, EndS: 3 * ParcFaultS},
		FaultSpec{Kind: FaultCPUHog, Node: 1, StartS: ParcFaultS, EndS: 3 * ParcFaultS},
		FaultSpec{Kind: FaultCPUHog, Node: 2, StartS: ParcFaultS, EndS: 3 * ParcFaultS})
}

// fixedRecurring: 6 like nodes, fixed-size recurring jobs with 2–3 tasks
// per host and stage; a disk hog on one node drawn from the seed.
func fixedRecurring() *Scenario {
	return fixedHistory("fixed-recurring", "6 like nodes, fixed-size recurring jobs with 2–3 tasks per host; a disk hog on one node from 2400 s", 6, 3,
		FaultSpec{Kind: FaultDiskHog, Node: -1, StartS: ParcFaultS, EndS: 3 * ParcFaultS})
}

// singleTask: 6 like nodes whose recurring stages run one task per host;
// a CPU hog on one node drawn from the seed.
func singleTask() *Scenario {
	return fixedHistory("single-task", "6 like nodes, fixed-size recurring jobs with one task per host and stage; a CPU hog on one node from 2400 s", 6, 1,
		FaultSpec{Kind: FaultCPUHog, Node: -1, StartS: ParcFaultS, EndS: 3 * ParcFaultS})
}

// quietNode is asymmetric with node003 drained: up and sampled, but given
// no work, so quieter than any window of its history. No fault.
func quietNode() *Scenario {
	sc := asymmetric()
	sc.Name, sc.Description = "quiet-node", "asymmetric with node003 drained: no task runs there, quieter than its history; no fault"
	sc.Cluster.Drained = []int{2}
	return sc
}

// busierPeriod is asymmetric with twice the work: every application reads
// twice its input and runs twice, 20 s apart, so that every node is busier
// than in any window of a history of the usual workload. No fault.
func busierPeriod() *Scenario {
	sc := asymmetric()
	sc.Name, sc.Description = "busier-period", "asymmetric with twice the work (every application twice, on twice the input): busier than its history everywhere; no fault"
	apps := sc.Apps
	sc.Apps = nil
	for _, a := range apps {
		a.InputGB *= 2
		a.Partitions *= 2
		b := a
		b.SubmitS += 20
		b.Name += " (2)"
		sc.Apps = append(sc.Apps, a, b)
	}
	return sc
}
