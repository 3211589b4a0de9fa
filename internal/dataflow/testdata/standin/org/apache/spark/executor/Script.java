package org.apache.spark.executor;

// Script records what ran and prints it at the end, so that printing does
// (nor the first string concatenation's linking) stretch a phase: "P attempt vertex start end thread name".
public class Script {
  static final java.util.List<Object[]> lines = new java.util.ArrayList<>();
  public static void ready() throws Exception {
    System.out.println("ready"); System.out.flush();
    new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
  }
  public static synchronized void phase(String attempt, String vertex, long start) {
    lines.add(new Object[] {attempt, vertex, start, System.currentTimeMillis(), Thread.currentThread().getName()});
  }
  public static synchronized void done() {
    for (Object[] l : lines) System.out.println("P " + l[0] + " " + l[1] + " " + l[2] + " " + l[3] + " " + l[4]);
    System.out.println("done"); System.out.flush();
  }
  public static void spin(long ms) {
    long end = System.currentTimeMillis() + ms;
    while (System.currentTimeMillis() < end) { Thread.onSpinWait(); }
  }
  public static void sleep(long ms) {
    try { Thread.sleep(ms); } catch (InterruptedException e) { throw new RuntimeException(e); }
  }
}
