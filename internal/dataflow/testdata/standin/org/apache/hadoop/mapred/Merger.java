package org.apache.hadoop.mapred;

public class Merger {
  static void merge(long ms) { org.apache.spark.executor.Script.sleep(ms); }
}
