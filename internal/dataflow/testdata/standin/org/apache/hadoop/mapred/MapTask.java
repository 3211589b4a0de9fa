package org.apache.hadoop.mapred;

import org.apache.spark.executor.Script;

public class MapTask {
  // run: map 600 ms (the SpillThread spills from 200 to 600), flush 300,
  // merge 300.
  static void run(String id) throws Exception {
    MapOutputBuffer b = new MapOutputBuffer(id);
    long s = System.currentTimeMillis();
    runOldMapper(b);
    Script.phase(id, "map", s);
    s = System.currentTimeMillis();
    b.flush();
    Script.phase(id, "spill", s);
    s = System.currentTimeMillis();
    b.mergeParts();
    Script.phase(id, "merge", s);
  }
  static void runOldMapper(MapOutputBuffer b) {
    Script.spin(200);
    b.spill.start();
    Script.spin(400);
  }
  static class MapOutputBuffer {
    final SpillThread spill;
    MapOutputBuffer(String id) { spill = new SpillThread(id); }
    void flush() throws InterruptedException { spill.join(); Script.sleep(300); }
    void mergeParts() { Merger.merge(300); }
    void sortAndSpill() { Script.sleep(400); }
    class SpillThread extends Thread {
      final String id;
      SpillThread(String id) { super("SpillThread"); this.id = id; }
      public void run() {
        long s = System.currentTimeMillis();
        sortAndSpill();
        Script.phase(id, "spill", s);
      }
    }
  }
}
