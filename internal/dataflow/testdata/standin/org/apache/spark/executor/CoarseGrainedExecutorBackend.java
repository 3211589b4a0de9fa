package org.apache.spark.executor;

// A stand-in Spark executor: two task threads named as Spark 3 names them
// run a scripted phase schedule (milliseconds) once stdin says "go".
public class CoarseGrainedExecutorBackend {
  public static void main(String[] a) throws Exception {
    Thread[] ts = {
      new Thread(new Executor.TaskRunner(0, new int[] {300, 400, 500, 300, 200}), "Executor task launch worker for task 0.0 in stage 1.0 (TID 0)"),
      new Thread(new Executor.TaskRunner(1, new int[] {200, 0, 600, 400, 300}), "Executor task launch worker for task 1.0 in stage 1.0 (TID 1)"),
    };
    Script.ready();
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    Script.done();
  }
}
