package org.apache.spark.executor;

import org.apache.spark.serializer.JavaSerializerInstance;
import org.apache.spark.shuffle.sort.SortShuffleWriter;
import org.apache.spark.storage.ShuffleBlockFetcherIterator;

public class Executor {
  // TaskRunner runs deserialize, fetch wait, compute, shuffle write and
  // result serialization for ms[0..4] milliseconds each (0: skipped).
  public static class TaskRunner implements Runnable {
    final int tid; final int[] ms;
    TaskRunner(int tid, int[] ms) { this.tid = tid; this.ms = ms; }
    public void run() {
      String id = Integer.toString(tid);
      String[] vs = {"deserialize", "shuffle-fetch-wait", "compute", "shuffle-write", "result-serialize"};
      for (int i = 0; i < vs.length; i++) {
        if (ms[i] == 0) continue;
        long s = System.currentTimeMillis();
        switch (i) {
          case 0: JavaSerializerInstance.deserialize(ms[i]); break;
          case 1: new ShuffleBlockFetcherIterator().next(ms[i]); break;
          case 2: compute(ms[i]); break;
          case 3: new SortShuffleWriter().write(ms[i]); break;
          case 4: JavaSerializerInstance.serialize(ms[i]); break;
        }
        Script.phase(id, vs[i], s);
      }
    }
    static void compute(long ms) { Script.spin(ms); }
  }
}
