package dev.freshet.interop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

/**
 * The {@code bench-plan} command: the Java side of bench/planning_bench.cc. It plans the same
 * queries of the same table (made by {@code freshet_planning_bench create}): the first plan of
 * the JVM (cold), {@code runs} plans of the same query, then {@code runs} plans of queries with
 * other partition literals, each checked against the number of files it must keep, and prints a
 * {@code RESULT bench=plan-query ...} line with the keys of the C++ bench.
 */
final class BenchPlan {
  private static final long ROWS_PER_FILE = 1000;

  private BenchPlan() {}

  /** The C++ bench's QueryOf: (predicate or null, files the plan must keep). */
  private static Object[] queryOf(
      PredicateBuilder pb, String kind, int partitions, int buckets, long commits, long run) {
    int partition = (int) ((17 + run) % partitions);
    long commit = (commits / 2 + run) % commits;
    long id = commit * ROWS_PER_FILE + 123;
    switch (kind) {
      case "full":
        return new Object[] {null, commits * partitions * buckets};
      case "partition":
        return new Object[] {pb.equal(1, partition), commits * buckets};
      case "point":
        return new Object[] {PredicateBuilder.and(pb.equal(1, partition), pb.equal(0, id)), 1L};
      default:
        throw new Main.UsageException("--query wants point, partition or full, not " + kind);
    }
  }

  private static double planOnce(FileStoreTable table, Object[] query) {
    long start = System.nanoTime();
    ReadBuilder rb = table.newReadBuilder();
    if (query[0] != null) rb = rb.withFilter((Predicate) query[0]);
    long files = 0;
    for (Split split : rb.newScan().plan().splits()) files += ((DataSplit) split).dataFiles().size();
    double us = (System.nanoTime() - start) / 1000.0;
    if (files != (Long) query[1]) {
      throw new IllegalStateException(
          "query " + query[0] + " planned " + files + " files, expected " + query[1]);
    }
    return us;
  }

  private static double percentile(List<Double> v, double q) {
    List<Double> sorted = new ArrayList<>(v);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) (q * sorted.size())));
  }

  static void run(String tablePath, String kind, int partitions, int buckets, long commits, int runs)
      throws Exception {
    long start = System.nanoTime();
    FileStoreTable table = Main.openTable(tablePath);
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    Object[] first = queryOf(pb, kind, partitions, buckets, commits, 0);
    double cold = planOnce(table, first);
    double open = (System.nanoTime() - start) / 1000.0 - cold;
    List<Double> warm = new ArrayList<>();
    List<Double> fresh = new ArrayList<>();
    for (int r = 0; r < runs; r++) warm.add(planOnce(table, first));
    for (int r = 1; r <= runs; r++) {
      fresh.add(planOnce(table, queryOf(pb, kind, partitions, buckets, commits, r)));
    }
    System.out.println(
        String.format(
            Locale.ROOT,
            "RESULT bench=plan-query engine=java query=%s files=%d live_files=%d cold_ms=%.1f"
                + " open_ms=%.1f warm_p50_us=%.1f warm_p99_us=%.1f new_p50_us=%.1f"
                + " new_p99_us=%.1f runs=%d max_heap_mb=%d",
            kind,
            (Long) first[1],
            commits * partitions * buckets,
            cold / 1000,
            open / 1000,
            percentile(warm, 0.5),
            percentile(warm, 0.99),
            percentile(fresh, 0.5),
            percentile(fresh, 0.99),
            runs,
            Runtime.getRuntime().totalMemory() >> 20));
  }
}
