package dev.freshet.interop;

import java.io.File;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * The {@code bench-pk} command: the Java side of freshet's primary-key benchmark
 * (bench/primary_key_bench.cc, docs/benchmarks.md "Primary-key tables"). Workloads on a 4-bucket
 * {@code deduplicate} table with primary key {@code id} ({@code write-only}: no compaction):
 *
 * <ul>
 *   <li>{@code upsert}: N events, 20 % +U and 2 % -D of earlier keys, the rest +I of new keys, one
 *       commit per {@code --commit-rows} events;
 *   <li>{@code mor}: N +I rows in 8 commits of N/8, keys uniform in [0, N): 8 overlapping
 *       level-0 runs per bucket.
 * </ul>
 *
 * Written with one {@code TableWriteImpl} / {@code TableCommitImpl} ({@code prepareCommit} +
 * {@code commit} per commit identifier). Prints a {@code RESULT} line per run (same keys as the
 * C++ side); {@code --read t1,t2} reads tables fully and prints a {@code READ} line per run.
 */
final class BenchPk {
  private static final int CHUNK = 4096;
  private static final int MOR_COMMITS = 8;

  private BenchPk() {}

  /** The event stream; identical to primary_key_bench.cc's {@code Events}. */
  static final class Events {
    final BenchRows g;
    final boolean mor;
    final long rows;

    Events(BenchRows g, boolean mor, long rows) {
      this.g = g;
      this.mor = mor;
      this.rows = rows;
    }

    RowKind kind(long e) {
      if (mor || e == 0) return RowKind.INSERT;
      long r = Long.remainderUnsigned(g.h(e, 10), 100);
      return r < 2 ? RowKind.DELETE : r < 22 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
    }

    long key(long e) {
      if (mor) return Long.remainderUnsigned(g.h(e, 12), rows);
      while (kind(e) != RowKind.INSERT) e = Long.remainderUnsigned(g.h(e, 11), e);
      return e;
    }

    GenericRow row(long e) {
      GenericRow r = g.row(e);
      r.setField(0, key(e));
      r.setRowKind(kind(e));
      return r;
    }

    /** The checksum of the merged table: per key its last event, unless a delete. */
    BenchRows.Checksum expected() {
      BitSet seen = new BitSet((int) rows);
      BenchRows.Checksum sum = new BenchRows.Checksum();
      for (long e = rows - 1; e >= 0; e--) {
        long key = key(e);
        if (seen.get((int) key)) continue;
        seen.set((int) key);
        if (kind(e) == RowKind.DELETE) continue;
        GenericRow r = g.row(e);
        r.setField(0, key);
        sum.add(r);
      }
      return sum;
    }
  }

  static Schema schema(String format, int buckets, boolean compaction) {
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
        .primaryKey("id")
        .option("bucket", Integer.toString(buckets))
        .option("merge-engine", "deduplicate")
        .option("write-only", Boolean.toString(!compaction))
        .option("file.format", format)
        .build();
  }

  static void run(
      String workload, long rows, String format, String dir, long seed, long commitRows, int runs,
      boolean keep, int buckets, boolean compaction, boolean fullCompact)
      throws Exception {
    if (buckets <= 0) throw new Main.UsageException("--buckets must be > 0");
    if (!workload.equals("upsert") && !workload.equals("mor")) {
      throw new Main.UsageException("--workload must be upsert or mor");
    }
    if (!format.equals("parquet") && !format.equals("orc")) {
      throw new Main.UsageException("--format must be parquet or orc");
    }
    if (rows <= 0 || runs <= 0 || commitRows <= 0 || rows > Integer.MAX_VALUE) {
      throw new Main.UsageException("--rows (< 2^31), --runs, --commit-rows must be > 0");
    }
    for (int run = 1; run <= runs; run++) {
      runOnce(workload, rows, format, dir, seed, commitRows, run, keep, buckets, compaction,
          fullCompact);
    }
  }

  static void runOnce(
      String workload, long rows, String format, String dir, long seed, long commitRows, int run,
      boolean keep, int buckets, boolean compaction, boolean fullCompact)
      throws Exception {
    String table = dir + "/bench.db/java_" + workload + "_" + format + "_" + rows + "_r" + run;
    Bench.deleteTree(new File(table).toPath());
    FileIO io = LocalFileIO.create();
    org.apache.paimon.fs.Path p = Main.tablePath(table);
    Events ev = new Events(new BenchRows(seed), workload.equals("mor"), rows);
    List<Long> ends = new java.util.ArrayList<>();
    if (ev.mor) {
      for (int c = 1; c <= MOR_COMMITS; c++) ends.add(rows * c / MOR_COMMITS);
    } else {
      for (long e = commitRows; e < rows; e += commitRows) ends.add(e);
      ends.add(rows);
    }

    long cpuStart = Bench.cpuNanos();
    long genNs = 0;
    long genCpuNs = 0;
    long writeNs = 0;
    long commitNs = 0;
    long t0 = System.nanoTime();
    new SchemaManager(io, p).createTable(schema(format, buckets, compaction));
    FileStoreTable t = FileStoreTableFactory.create(io, p);
    String user = "freshet-bench-pk";
    GenericRow[] chunk = new GenericRow[CHUNK];
    long commits = 0;
    try (IOManager ioManager = Main.tempIOManager();
        TableWriteImpl<?> w = t.newWrite(user);
        TableCommitImpl c = t.newCommit(user)) {
      // TableWrite.withIOManager: the interface's signature is the same in every version
      ((org.apache.paimon.table.sink.TableWrite) w).withIOManager(ioManager);
      writeNs += System.nanoTime() - t0;
      long first = 0;
      for (long end : ends) {
        while (first < end) {
          int n = (int) Math.min(CHUNK, end - first);
          long a = System.nanoTime();
          long ca = Bench.cpuNanos();
          for (int i = 0; i < n; i++) chunk[i] = ev.row(first + i);
          long b = System.nanoTime();
          genCpuNs += Bench.cpuNanos() - ca;
          for (int i = 0; i < n; i++) w.write(chunk[i]);
          long e = System.nanoTime();
          genNs += b - a;
          writeNs += e - b;
          first += n;
        }
        long a = System.nanoTime();
        // The last commit waits for the writer's compactions, so their work is in the figures.
        List<CommitMessage> msgs = w.prepareCommit(end == ends.get(ends.size() - 1), commits);
        c.commit(commits, msgs);
        long s = System.nanoTime() - a;
        commitNs += s;
        writeNs += s;
        commits++;
      }
    }
    double cpuS = (Bench.cpuNanos() - cpuStart) / 1e9;
    double writeCpu = cpuS - genCpuNs / 1e9;
    double rss = Bench.peakRssMib();
    long x0 = System.nanoTime();
    BenchRows.Checksum expect = ev.expected();
    double expectS = (System.nanoTime() - x0) / 1e9;
    long[] files = Bench.dataFiles(new File(table).toPath());
    double writeS = writeNs / 1e9;
    System.out.println(
        String.format(
            Locale.ROOT,
            "RESULT engine=java workload=%s format=%s compaction=%s run=%d rows=%d commits=%d"
                + " gen_s=%.3f"
                + " write_s=%.3f commit_s=%.3f write_rows_per_s=%.0f write_cpu_s=%.3f"
                + " write_cores=%.2f write_rows_per_cpu_s=%.0f data_bytes=%d data_files=%d"
                + " peak_rss_mib=%.0f expect_s=%.3f merged_rows=%d checksum=%s table=%s",
            workload, format, compaction ? "on" : "off", run, rows, commits, genNs / 1e9, writeS,
            commitNs / 1e9,
            rows / writeS, writeCpu, writeCpu / writeS, rows / writeCpu, files[0], files[1], rss,
            expectS, expect.rows, expect.hex(), p));
    System.out.flush();
    if (fullCompact) fullCompact(io, p, workload, format, run, buckets);
    if (!keep) Bench.deleteTree(new File(table).toPath());
  }

  /** Times one full compaction of every bucket (the harness's `compact --full`): a COMPACT line. */
  static void fullCompact(
      FileIO io, org.apache.paimon.fs.Path p, String workload, String format, int run, int buckets)
      throws Exception {
    FileStoreTable t = FileStoreTableFactory.create(io, p);
    long records = 0;
    long filesBefore = 0;
    for (Split s : t.newSnapshotReader().read().splits()) {
      for (org.apache.paimon.io.DataFileMeta f :
          ((org.apache.paimon.table.source.DataSplit) s).dataFiles()) {
        records += f.rowCount();
        filesBefore++;
      }
    }
    long c0 = Bench.cpuNanos();
    long t0 = System.nanoTime();
    Main.compactTable(t, true);
    double s = (System.nanoTime() - t0) / 1e9;
    double cpu = (Bench.cpuNanos() - c0) / 1e9;
    long filesAfter = 0;
    for (Split sp : FileStoreTableFactory.create(io, p).newSnapshotReader().read().splits()) {
      filesAfter += ((org.apache.paimon.table.source.DataSplit) sp).dataFiles().size();
    }
    System.out.println(
        String.format(
            Locale.ROOT,
            "COMPACT engine=java workload=%s format=%s run=%d buckets=%d records=%d"
                + " files_before=%d files_after=%d compact_s=%.3f compact_records_per_s=%.0f"
                + " compact_cpu_s=%.3f compact_cores=%.2f compact_records_per_cpu_s=%.0f"
                + " peak_rss_mib=%.0f",
            workload, format, run, buckets, records, filesBefore, filesAfter, s, records / s, cpu,
            cpu / s, records / cpu, Bench.peakRssMib()));
    System.out.flush();
  }

  /** Reads each table fully (merge-on-read of the latest snapshot) {@code runs} times. */
  static void read(List<String> tables, int runs) throws Exception {
    for (String table : tables) {
      for (int run = 1; run <= runs; run++) {
        long c0 = Bench.cpuNanos();
        long t0 = System.nanoTime();
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
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (Bench.cpuNanos() - c0) / 1e9;
        System.out.println(
            String.format(
                Locale.ROOT,
                "READ engine=java run=%d rows=%d read_s=%.3f read_rows_per_s=%.0f"
                    + " read_cpu_s=%.3f read_cores=%.2f read_rows_per_cpu_s=%.0f"
                    + " peak_rss_mib=%.0f checksum=%s table=%s",
                run, sum.rows, s, sum.rows / s, cpu, cpu / s, sum.rows / cpu,
                Bench.peakRssMib(), sum.hex(), Main.tablePath(table)));
        System.out.flush();
      }
    }
  }
}
