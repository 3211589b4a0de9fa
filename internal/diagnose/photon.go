package diagnose

// Photon, Databricks' engine, runs a query's operators in native code,
// outside the JVM heap and its garbage collector (Behm et al., "Photon: A
// Fast Query Engine for Lakehouse Systems", SIGMOD 2022). On an application
// Photon ran (model.Platform.Photon), JVM garbage collection is that of the
// work Photon did not run, and advice on the JVM heap does not reach
// Photon's operators: findings whose evidence is GC time say so, carry the
// fact "photon", and advise looking for that work instead.

// photonGCSummary is appended to the summary of a GC finding on Photon.
const photonGCSummary = "Photon ran this application's queries: its operators are not garbage-collected, so this GC time is that of the work Photon did not run (row conversions, UDFs, operators it does not support)."

// photonGCAdvice replaces the advice of a GC finding on Photon.
const photonGCAdvice = "Find the work Photon did not run (the query plans' operators without the Photon prefix, UDFs, conversions between rows and columns) and move it to Photon or make it allocate less; more executor heap (spark.executor.memory) does not reach Photon's operators."

// photonGC marks a finding whose evidence is JVM garbage collection when
// Photon ran the application.
func (in *Input) photonGC(f *Finding) {
	if !in.App.Platform.Photon {
		return
	}
	f.Evidence = append(f.Evidence, fact("photon", 1, "flag"))
	f.Summary += " " + photonGCSummary
	f.Recommendation = photonGCAdvice
}
