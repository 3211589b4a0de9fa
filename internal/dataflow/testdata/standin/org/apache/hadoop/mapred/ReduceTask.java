package org.apache.hadoop.mapred;

import org.apache.spark.executor.Script;

public class ReduceTask {
  // run: shuffle 600 ms (three copiers copy for 500 ms from 50 ms on), sort
  // (the final merge) 300, reduce 400.
  static void run(String id) throws Exception {
    long s = System.currentTimeMillis();
    new ReduceCopier(id).fetchOutputs();
    Script.phase(id, "copier", s);
    s = System.currentTimeMillis();
    Merger.merge(300);
    Script.phase(id, "sort", s);
    s = System.currentTimeMillis();
    runOldReducer();
    Script.phase(id, "reduce", s);
  }
  static void runOldReducer() { Script.spin(400); }
  static class ReduceCopier {
    final String id;
    ReduceCopier(String id) { this.id = id; }
    void fetchOutputs() throws InterruptedException {
      Script.sleep(50);
      MapOutputCopier[] cs = new MapOutputCopier[3];
      for (int i = 0; i < cs.length; i++) { cs[i] = new MapOutputCopier(id + "." + i); cs[i].start(); }
      for (MapOutputCopier c : cs) c.join();
      Script.sleep(50);
    }
    class MapOutputCopier extends Thread {
      MapOutputCopier(String name) { super("MapOutputCopier " + name); }
      public void run() {
        long s = System.currentTimeMillis();
        Script.sleep(500);
        Script.phase(id, "copier", s);
      }
    }
  }
}
