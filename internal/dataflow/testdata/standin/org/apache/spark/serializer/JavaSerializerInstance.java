package org.apache.spark.serializer;

public class JavaSerializerInstance {
  public static void deserialize(long ms) { org.apache.spark.executor.Script.sleep(ms); }
  public static void serialize(long ms) { org.apache.spark.executor.Script.spin(ms); }
}
