package dev.freshet.interop;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.SnapshotNotExistPlan;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;

/**
 * The {@code stream-read} command: Java's streaming read of a table (StreamTableScan), plan after
 * plan until the scan has read every committed snapshot. Each non-empty plan prints a marker line
 * {@code {"__snapshot": N}} (N: the snapshot its splits belong to), then its rows as the {@code
 * read} command prints them, with a leading {@code "_ROW_KIND"} key (+I, -U, +U, -D).
 */
final class StreamRead {
  private StreamRead() {}

  /**
   * @param scanMode Java's scan.mode (default: from-snapshot at the earliest snapshot)
   * @param snapshot scan.snapshot-id, for the from-snapshot modes
   */
  static void run(String table, String scanMode, Long snapshot) throws Exception {
    FileStoreTable t = Main.openTable(table);
    Long earliest = t.snapshotManager().earliestSnapshotId();
    if (earliest == null) return;
    Map<String, String> dyn = new HashMap<>();
    String mode = scanMode == null ? "from-snapshot" : scanMode;
    dyn.put("scan.mode", mode);
    if (mode.startsWith("from-snapshot")) {
      dyn.put("scan.snapshot-id", Long.toString(snapshot == null ? earliest : snapshot));
    }
    t = t.copy(dyn);
    Long latest = t.snapshotManager().latestSnapshotId();
    RowType type = t.rowType();
    ReadBuilder rb = t.newReadBuilder();
    StreamTableScan scan = rb.newStreamScan();
    TableRead read = rb.newRead();
    Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    try {
      while (true) {
        TableScan.Plan plan;
        try {
          plan = scan.plan();
        } catch (EndOfScanException e) {
          break;
        }
        Long next = scan.checkpoint();
        // The first plan of a scan that starts with changes only positions it (no splits).
        if (plan instanceof SnapshotNotExistPlan) {
          if (next == null || next > latest) break;
          continue;
        }
        List<Split> splits = plan.splits();
        if (!splits.isEmpty()) {
          out.write("{\"__snapshot\": " + ((DataSplit) splits.get(0)).snapshotId() + "}\n");
          writeRows(read, splits, type, out);
        }
        next = scan.checkpoint();
        if (next != null && next > latest) break;
      }
    } finally {
      out.flush();
    }
  }

  private static void writeRows(TableRead read, List<Split> splits, RowType type, Writer out)
      throws Exception {
    try (RecordReader<InternalRow> reader = read.createReader(splits)) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        InternalRow row;
        while ((row = batch.next()) != null) {
          String json = Main.rowToJson(type, row);
          String kind = row.getRowKind().shortString();
          String rest = json.equals("{}") ? "}" : ", " + json.substring(1);
          out.write("{\"_ROW_KIND\": \"" + kind + "\"" + rest);
          out.write('\n');
        }
        batch.releaseBatch();
      }
    }
  }
}
