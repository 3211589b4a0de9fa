package org.apache.spark.storage;

public class ShuffleBlockFetcherIterator {
  public void next(long ms) { org.apache.spark.executor.Script.sleep(ms); }
}
