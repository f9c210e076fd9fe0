package dev.freshet.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;

/**
 * The {@code bench} command: the Java side of freshet's append benchmark (docs/benchmarks.md).
 * Each run creates a fresh table, writes the generated rows with one {@code BatchTableWrite} and
 * one commit, reads the table fully and prints a {@code RESULT key=value ...} line (the same keys
 * as bench/append_bench.cc). Generation is timed separately from the write.
 */
final class Bench {
  private static final int CHUNK = 4096;

  private Bench() {}

  static Schema schema(String format) {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT())
        .column("k1", DataTypes.INT())
        .column("k2", DataTypes.INT())
        .column("v", DataTypes.BIGINT())
        .column("d1", DataTypes.DOUBLE())
        .column("d2", DataTypes.DOUBLE())
        .column("d3", DataTypes.DOUBLE())
        .column("s1", DataTypes.STRING())
        .column("s2", DataTypes.STRING())
        .column("s3", DataTypes.STRING())
        .option("file.format", format)
        .build();
  }

  static void run(long rows, String format, String dir, long seed, int runs, boolean keep)
      throws Exception {
    if (!format.equals("parquet") && !format.equals("orc")) {
      throw new Main.UsageException("--format must be parquet or orc");
    }
    if (rows <= 0 || runs <= 0) throw new Main.UsageException("--rows and --runs must be > 0");
    for (int run = 1; run <= runs; run++) runOnce(rows, format, dir, seed, run, keep);
  }

  static void runOnce(long rows, String format, String dir, long seed, int run, boolean keep)
      throws Exception {
    String table = dir + "/bench.db/java_" + format + "_" + rows + "_r" + run;
    deleteTree(new File(table).toPath());
    FileIO io = LocalFileIO.create();
    org.apache.paimon.fs.Path p = Main.tablePath(table);

    long cpuStart = cpuNanos();
    BenchRows gen = new BenchRows(seed);
    BenchRows.Checksum expect = new BenchRows.Checksum();
    long genNs = 0;
    long writeNs = 0;
    long commitNs;
    long t0 = System.nanoTime();
    new SchemaManager(io, p).createTable(schema(format));
    FileStoreTable t = FileStoreTableFactory.create(io, p);
    BatchWriteBuilder wb = t.newBatchWriteBuilder();
    GenericRow[] chunk = new GenericRow[CHUNK];
    try (BatchTableWrite w = wb.newWrite();
        BatchTableCommit c = wb.newCommit()) {
      writeNs += System.nanoTime() - t0;
      for (long first = 0; first < rows; first += CHUNK) {
        int n = (int) Math.min(CHUNK, rows - first);
        long a = System.nanoTime();
        for (int i = 0; i < n; i++) {
          chunk[i] = gen.row(first + i);
          expect.add(chunk[i]);
        }
        long b = System.nanoTime();
        for (int i = 0; i < n; i++) w.write(chunk[i]);
        long e = System.nanoTime();
        genNs += b - a;
        writeNs += e - b;
      }
      long a = System.nanoTime();
      c.commit(w.prepareCommit());
      commitNs = System.nanoTime() - a;
    }
    writeNs += commitNs;
    long[] files = dataFiles(new File(table).toPath());
    long r0 = System.nanoTime();
    BenchRows.Checksum got = readAll(table);
    double readS = (System.nanoTime() - r0) / 1e9;
    if (got.rows != rows) {
      throw new IllegalStateException("read " + got.rows + " rows, wrote " + rows);
    }
    if (got.value() != expect.value()) {
      throw new IllegalStateException("checksum of the rows read differs from the rows written");
    }
    double writeS = writeNs / 1e9;
    System.out.println(
        String.format(
            Locale.ROOT,
            "RESULT engine=java format=%s run=%d rows=%d gen_s=%.3f write_s=%.3f commit_s=%.3f"
                + " write_rows_per_s=%.0f read_s=%.3f read_rows_per_s=%.0f data_bytes=%d"
                + " data_files=%d cpu_s=%.3f peak_rss_mib=%.0f checksum=%s table=%s",
            format, run, rows, genNs / 1e9, writeS, commitNs / 1e9, rows / writeS, readS,
            rows / readS, files[0], files[1], (cpuNanos() - cpuStart) / 1e9, peakRssMib(),
            got.hex(), p));
    System.out.flush();
    if (!keep) deleteTree(new File(table).toPath());
  }

  /** Reads every row of the latest snapshot (any writer) into a checksum. */
  static BenchRows.Checksum readAll(String table) throws Exception {
    FileStoreTable t = Main.openTable(table);
    ReadBuilder rb = t.newReadBuilder();
    List<Split> splits = rb.newScan().plan().splits();
    BenchRows.Checksum sum = new BenchRows.Checksum();
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        InternalRow row;
        while ((row = batch.next()) != null) sum.add(row);
        batch.releaseBatch();
      }
    }
    return sum;
  }

  static void verify(String table) throws Exception {
    long r0 = System.nanoTime();
    BenchRows.Checksum got = readAll(table);
    System.out.println(
        String.format(
            Locale.ROOT,
            "VERIFY engine=java rows=%d read_s=%.3f checksum=%s",
            got.rows, (System.nanoTime() - r0) / 1e9, got.hex()));
  }

  /** {bytes, count} of the data files (files directly under bucket-* directories). */
  static long[] dataFiles(Path table) throws IOException {
    long[] out = new long[2];
    try (Stream<Path> s = Files.walk(table)) {
      for (Path f : (Iterable<Path>) s::iterator) {
        Path parent = f.getParent();
        if (!Files.isRegularFile(f) || parent == null) continue;
        if (!parent.getFileName().toString().startsWith("bucket-")) continue;
        out[0] += Files.size(f);
        out[1]++;
      }
    }
    return out;
  }

  /** CPU time of the whole JVM (all threads: JIT, GC, ...) so far, ns. */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** VmHWM of this process (peak resident set), MiB. */
  static double peakRssMib() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return -1;
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (Stream<Path> s = Files.walk(root)) {
      for (Path f : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    }
  }
}
