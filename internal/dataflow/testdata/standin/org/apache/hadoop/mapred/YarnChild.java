package org.apache.hadoop.mapred;

import org.apache.spark.executor.Script;

// A stand-in MapReduce task JVM, started as the NodeManager starts one
// (host, port, attempt id, JVM id): a map attempt (main thread, SpillThread)
// or a reduce attempt (main thread, a pool of three MapOutputCopier threads).
public class YarnChild {
  public static void main(String[] a) throws Exception {
    String id = a[2];
    Script.ready();
    if (id.contains("_m_")) MapTask.run(id); else ReduceTask.run(id);
    Script.done();
  }
}
