package org.apache.spark.shuffle.sort;

public class SortShuffleWriter {
  public void write(long ms) { org.apache.spark.executor.Script.sleep(ms); }
}
