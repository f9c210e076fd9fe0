package dev.freshet.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;

/**
 * The {@code fixtures --dir D} command: writes a fixed set of append tables with deterministic rows
 * through the Paimon version on the class path, plus what a reader must get back, so that freshet
 * can be checked against tables written by every Java Paimon version (docs/interop-tests.md,
 * "Tables of every Java Paimon version"). It writes:
 *
 * <ul>
 *   <li>{@code D/wh/fixtures.db/<table>/}: the tables (catalog layout);
 *   <li>{@code D/expected/<table>/s<N>.jsonl}: the rows snapshot N holds, from the writer's own
 *       model (appends add rows, an overwrite replaces the partitions its rows touch, the whole
 *       table when unpartitioned), in the schema of snapshot N (time travel reads with it);
 *   <li>{@code D/java/<table>/s<N>.jsonl}: what this Java version reads at snapshot N, or
 *       {@code s<N>.error} with its message when it cannot read it;
 *   <li>{@code D/java/<table>/snapshots.txt}: {@code <id> <commitKind>} per snapshot;
 *   <li>{@code D/vectors/*.data}: bucket-id vectors (same files and format as the golden set's
 *       {@code vectors/}), ids from Java's own write path;
 *   <li>{@code D/VERSION}, then {@code D/DONE} when all of it is written.
 * </ul>
 */
final class Fixtures {
  private Fixtures() {}

  // ---------------------------------------------------------------------------------------------
  // the rows

  /** Partition values needing escaping in paths (Java's PartitionPathUtils) and non-ASCII. */
  static final String[] DTS = {"2026-11-29", "a/b c:d=%", "ünïcode ✓"};

  static String appendDt(int id) {
    return DTS[id % 3];
  }

  static String overwriteDt(int id) {
    return DTS[1 + id % 2];
  }

  static String q(String s) {
    return TextNode.valueOf(s).toString();
  }

  /** The every-type columns; TIMESTAMP(9) columns only for Parquet and ORC (Avro rejects them). */
  static String allTypeFields(boolean ts9) {
    return String.join(
        ",\n",
        "{\"name\": \"id\", \"type\": \"BIGINT NOT NULL\"}",
        "{\"name\": \"b\", \"type\": \"BOOLEAN\"}",
        "{\"name\": \"t\", \"type\": \"TINYINT\"}",
        "{\"name\": \"s\", \"type\": \"SMALLINT\"}",
        "{\"name\": \"i\", \"type\": \"INT\"}",
        "{\"name\": \"f\", \"type\": \"FLOAT\"}",
        "{\"name\": \"d\", \"type\": \"DOUBLE\"}",
        "{\"name\": \"dec_small\", \"type\": \"DECIMAL(9, 2)\"}",
        "{\"name\": \"dec_big\", \"type\": \"DECIMAL(30, 5)\"}",
        "{\"name\": \"dec_frac\", \"type\": \"DECIMAL(2, 2)\"}",
        "{\"name\": \"str\", \"type\": \"STRING\"}",
        "{\"name\": \"vc\", \"type\": \"VARCHAR(20)\"}",
        "{\"name\": \"c\", \"type\": \"CHAR(5)\"}",
        "{\"name\": \"bin\", \"type\": \"BYTES\"}",
        "{\"name\": \"bn\", \"type\": \"BINARY(3)\"}",
        "{\"name\": \"vb\", \"type\": \"VARBINARY(8)\"}",
        "{\"name\": \"day\", \"type\": \"DATE\"}",
        "{\"name\": \"tm\", \"type\": \"TIME(3)\"}",
        "{\"name\": \"ts0\", \"type\": \"TIMESTAMP(0)\"}",
        "{\"name\": \"ts3\", \"type\": \"TIMESTAMP(3)\"}",
        "{\"name\": \"ts6\", \"type\": \"TIMESTAMP(6)\"}",
        "{\"name\": \"ltz0\", \"type\": \"TIMESTAMP(0) WITH LOCAL TIME ZONE\"}",
        "{\"name\": \"ltz3\", \"type\": \"TIMESTAMP(3) WITH LOCAL TIME ZONE\"}",
        "{\"name\": \"ltz6\", \"type\": \"TIMESTAMP(6) WITH LOCAL TIME ZONE\"}",
        "{\"name\": \"arr\", \"type\": {\"type\": \"ARRAY\", \"element\": \"INT\"}}",
        "{\"name\": \"m\", \"type\": {\"type\": \"MAP\", \"key\": \"STRING\", \"value\": \"BIGINT\"}}",
        "{\"name\": \"r\", \"type\": {\"type\": \"ROW\", \"fields\": [{\"name\": \"x\", \"type\": \"INT\"},"
            + " {\"name\": \"y\", \"type\": \"STRING\"}]}}",
        "{\"name\": \"nested\", \"type\": {\"type\": \"ARRAY\", \"element\": {\"type\": \"ROW\","
            + " \"fields\": [{\"name\": \"p\", \"type\": \"STRING\"}, {\"name\": \"q\", \"type\":"
            + " {\"type\": \"ARRAY\", \"element\": \"BIGINT\"}}]}}}")
        + (ts9
            ? ",\n{\"name\": \"ts9\", \"type\": \"TIMESTAMP(9)\"},\n"
                + "{\"name\": \"ltz9\", \"type\": \"TIMESTAMP(9) WITH LOCAL TIME ZONE\"}"
            : "");
  }

  /**
   * One row of the every-type columns in the harness input convention. Values vary with the id;
   * every fifth row is all nulls. ORC tables get post-1970 sub-second timestamps only (Java's ORC
   * path loses pre-1970 fractions, interop/README.md); CHAR values fill the declared length (ORC
   * pads shorter ones). Tables that Java compacts (it reads them to rewrite them) avoid what old
   * versions read wrong: Java Paimon <= 1.2 cannot read the pre-1970 TIMESTAMP(9) values it
   * writes to Parquet (INT96), and 0.9/1.0 read a Parquet ROW whose fields are all null as a null
   * ROW (their compaction would write that).
   */
  static String allTypesRow(
      int id, String dt, boolean hasHr, boolean orc, boolean ts9, boolean compacted) {
    StringBuilder row = new StringBuilder("{\"id\": " + id);
    Map<String, String> v = new java.util.LinkedHashMap<>();
    boolean odd = id % 2 == 1;
    String i = Integer.toString(id);
    v.put("b", odd ? "true" : "false");
    v.put("t", odd ? "-128" : "127");
    v.put("s", Integer.toString(-32768 + id));
    v.put("i", Integer.toString(2147483647 - id));
    v.put("f", odd ? "0.1" : i + ".25");
    v.put("d", odd ? "-1.5E-300" : "1.0E" + (id + 7));
    v.put("dec_small", odd ? q("-1234567.89") : q(i + ".05"));
    v.put("dec_big", odd ? q("-0.00001") : q("1234567890123456789012345.00001"));
    v.put("dec_frac", odd ? q("-0.99") : q("0.05"));
    v.put("str", id % 3 == 2 ? q("") : q("héllo wörld ✓ " + i));
    v.put("vc", odd ? q("twenty chars exactly") : q("short"));
    v.put("c", odd ? q("abcde") : q("ü✓xyz"));
    v.put("bin", id % 3 == 0 ? q("") : q("AAEC/w=="));
    v.put("bn", q("AAEC"));
    v.put("vb", odd ? q("/w==") : q("AAECAwQFBgc="));
    v.put("day", odd ? q("1969-12-31") : q("2000-02-29"));
    v.put("tm", odd ? q("12:34:56.789") : q("00:00:00.000"));
    v.put("ts0", orc || odd ? q("2026-11-30 12:34:56") : q("1900-01-01 00:00:01"));
    v.put("ts3", odd || orc ? q("2026-11-30 12:34:56.789") : q("1969-12-31 23:59:59.999"));
    v.put("ts6", orc ? q("1970-01-02 00:00:00.000001") : q("1960-01-01 00:00:00.000001"));
    v.put("ltz0", q("2001-02-03 04:05:06Z"));
    v.put("ltz3", q("2001-02-03 04:05:06.007Z"));
    v.put("ltz6", orc ? q("2030-01-01 00:00:00.123456Z") : q("1950-06-07 08:09:10.111111Z"));
    v.put("arr", id % 3 == 0 ? "[]" : "[1, null, " + i + "]");
    v.put("m", id % 3 == 0 ? "[]" : "[[\"k\", " + i + "], [\"long key over seven bytes\", -2]]");
    v.put(
        "r",
        id % 7 == 3
            ? (compacted ? "{\"x\": null, \"y\": \"nested\"}" : "{\"x\": null, \"y\": null}")
            : "{\"x\": " + i + ", \"y\": \"nested\"}");
    v.put(
        "nested",
        id % 3 == 0 ? "[]" : "[{\"p\": " + q("a" + i) + ", \"q\": [" + i + ", null]}, null]");
    if (ts9) {
      v.put(
          "ts9",
          !orc && !compacted
              ? q("1965-05-06 07:08:09.987654321")
              : q("2001-02-03 04:05:06.123456789"));
      v.put("ltz9", q("2001-02-03 04:05:06.123456789Z"));
    }
    for (Map.Entry<String, String> e : v.entrySet()) {
      row.append(", \"").append(e.getKey()).append("\": ");
      row.append(id % 5 == 4 ? "null" : e.getValue());
    }
    row.append(", \"dt\": ").append(q(dt));
    if (hasHr) row.append(", \"hr\": ").append(id % 4 == 0 ? "null" : Integer.toString(id % 3));
    return row.append("}").toString();
  }

  // ---------------------------------------------------------------------------------------------
  // the model

  /** One written row: its partition values and its values by field id. */
  static final class ModelRow {
    final List<Object> partition;
    final Map<Integer, Object> byId = new HashMap<>();

    ModelRow(RowType type, List<String> partitionKeys, GenericRow row) {
      List<DataField> fields = type.getFields();
      for (int i = 0; i < fields.size(); i++) byId.put(fields.get(i).id(), row.getField(i));
      partition = new ArrayList<>();
      for (String k : partitionKeys) partition.add(row.getField(type.getFieldIndex(k)));
    }

    /** The row as a reader of a snapshot whose schema is {@code type} returns it. */
    GenericRow in(RowType type) {
      List<DataField> fields = type.getFields();
      GenericRow out = new GenericRow(fields.size());
      for (int i = 0; i < fields.size(); i++) {
        Object v = byId.get(fields.get(i).id());
        if (v instanceof Integer && fields.get(i).type().getTypeRoot() == DataTypeRoot.BIGINT) {
          v = ((Integer) v).longValue(); // INT widened to BIGINT by an ALTER
        }
        out.setField(i, v);
      }
      return out;
    }
  }

  /** A table being written: its path, live rows, and what to check after every snapshot. */
  static final class Table {
    final String name;
    final String path;
    final File dir;
    final List<ModelRow> live = new ArrayList<>();

    Table(File root, String name) {
      this.name = name;
      this.path = new File(root, "wh/fixtures.db/" + name).getPath();
      this.dir = root;
    }

    FileStoreTable open() throws Exception {
      return Main.openTable(path);
    }

    void create(String fields, String partitionKeys, String options) throws Exception {
      String spec =
          "{\"fields\": [" + fields + "], \"partitionKeys\": [" + partitionKeys + "], \"options\": "
              + options + "}";
      JsonNode node = Main.MAPPER.readTree(spec);
      new SchemaManager(LocalFileIO.create(), Main.tablePath(path))
          .createTable(SchemaSpec.toSchema(node));
    }

    void alter(SchemaChange... changes) throws Exception {
      new SchemaManager(LocalFileIO.create(), Main.tablePath(path)).commitChanges(changes);
    }

    /** One commit of {@code rows} (JSON lines in the harness convention). */
    void write(List<String> rows, boolean overwrite) throws Exception {
      FileStoreTable t = open();
      RowType type = t.rowType();
      List<String> keys = t.schema().partitionKeys();
      List<GenericRow> parsed = new ArrayList<>();
      for (String line : rows) {
        parsed.add(Values.readRow(type, Main.MAPPER.readTree(line), name + ": " + line));
      }
      List<ModelRow> written = new ArrayList<>();
      for (GenericRow r : parsed) written.add(new ModelRow(type, keys, r));
      BatchWriteBuilder wb = t.newBatchWriteBuilder();
      if (overwrite) wb = wb.withOverwrite();
      try (BatchTableWrite w = wb.newWrite();
          BatchTableCommit c = wb.newCommit()) {
        for (GenericRow r : parsed) w.write(r);
        c.commit(w.prepareCommit());
      }
      if (overwrite) {
        Set<List<Object>> touched = new java.util.HashSet<>();
        for (ModelRow r : written) touched.add(r.partition);
        live.removeIf(r -> keys.isEmpty() || touched.contains(r.partition));
      }
      live.addAll(written);
      record();
    }

    /** A full compaction of every (partition, bucket) that holds files: one COMPACT snapshot. */
    void compact() throws Exception {
      FileStoreTable t = open();
      Set<List<Object>> seen = new LinkedHashSet<>();
      BatchWriteBuilder wb = t.newBatchWriteBuilder();
      try (BatchTableWrite w = wb.newWrite();
          BatchTableCommit c = wb.newCommit()) {
        for (Split s : t.newReadBuilder().newScan().plan().splits()) {
          DataSplit ds = (DataSplit) s;
          BinaryRow partition = ds.partition();
          if (seen.add(Arrays.asList(partition, ds.bucket()))) {
            w.compact(partition, ds.bucket(), true);
          }
        }
        c.commit(w.prepareCommit());
      }
      record();
    }

    private long recorded = 0;

    /** Writes expected and Java-read rows for every snapshot made since the last call. */
    private void record() throws Exception {
      FileStoreTable t = open();
      Long latest = t.snapshotManager().latestSnapshotId();
      if (latest == null) return;
      for (long id = recorded + 1; id <= latest; id++) {
        Snapshot s = t.snapshotManager().snapshot(id);
        RowType type =
            new SchemaManager(LocalFileIO.create(), Main.tablePath(path))
                .schema(s.schemaId())
                .logicalRowType();
        StringBuilder sb = new StringBuilder();
        for (ModelRow r : live) sb.append(Main.rowToJson(type, r.in(type))).append('\n');
        writeText(new File(dir, "expected/" + name + "/s" + id + ".jsonl"), sb.toString());
        // What this version reads back. Some versions cannot read what they wrote (e.g. <= 1.2
        // fail on pre-1970 Parquet INT96 timestamps): then s<N>.error holds the message.
        StringWriter javaRows = new StringWriter();
        try {
          Main.readSnapshot(t, id, javaRows);
          writeText(new File(dir, "java/" + name + "/s" + id + ".jsonl"), javaRows.toString());
        } catch (Exception e) {
          writeText(
              new File(dir, "java/" + name + "/s" + id + ".error"), Main.describe(e) + "\n");
        }
      }
      recorded = latest;
      StringBuilder kinds = new StringBuilder();
      for (Snapshot s : Main.sortedSnapshots(t)) {
        kinds.append(s.id()).append(' ').append(s.commitKind()).append('\n');
      }
      writeText(new File(dir, "java/" + name + "/snapshots.txt"), kinds.toString());
    }
  }

  static List<String> rows(int from, int to, java.util.function.IntFunction<String> row) {
    List<String> out = new ArrayList<>();
    for (int id = from; id < to; id++) out.add(row.apply(id));
    return out;
  }

  static void writeText(File f, String text) throws IOException {
    f.getParentFile().mkdirs();
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
  }

  // ---------------------------------------------------------------------------------------------
  // the tables

  /** An every-type append table: appends, maybe an overwrite, maybe a full compaction. */
  static void everyTypeTable(
      File root,
      String name,
      String format,
      String bucket,
      boolean partitioned,
      boolean hr,
      String manifestFormat,
      boolean overwrite,
      boolean compact)
      throws Exception {
    boolean orc = format.equals("orc");
    boolean ts9 = !format.equals("avro");
    Table t = new Table(root, name);
    String fields =
        allTypeFields(ts9)
            + ",\n{\"name\": \"dt\", \"type\": \"STRING\"}"
            + (hr ? ",\n{\"name\": \"hr\", \"type\": \"INT\"}" : "");
    String options = "{\"file.format\": " + q(format) + ", \"bucket\": " + q(bucket);
    if (!bucket.equals("-1")) options += ", \"bucket-key\": \"id\"";
    if (manifestFormat != null) options += ", \"manifest.format\": " + q(manifestFormat);
    options += "}";
    String keys = partitioned ? (hr ? "\"dt\", \"hr\"" : "\"dt\"") : "";
    t.create(fields, keys, options);
    t.write(rows(0, 12, id -> allTypesRow(id, appendDt(id), hr, orc, ts9, compact)), false);
    t.write(rows(12, 20, id -> allTypesRow(id, appendDt(id), hr, orc, ts9, compact)), false);
    if (overwrite) {
      t.write(
          rows(100, 104, id -> allTypesRow(id, overwriteDt(id), hr, orc, ts9, compact)), true);
    }
    t.write(rows(200, 206, id -> allTypesRow(id, appendDt(id), hr, orc, ts9, compact)), false);
    if (compact) t.compact();
  }

  /** Rows of the schema-evolution table: a value for each column the current schema has. */
  static String evolutionRow(FileStoreTable t, int id) {
    StringBuilder row = new StringBuilder("{");
    for (DataField f : t.rowType().getFields()) {
      if (row.length() > 1) row.append(", ");
      row.append(q(f.name())).append(": ");
      boolean nul = id % 5 == 4 && !f.name().equals("id") && !f.name().equals("dt");
      String v;
      switch (f.name()) {
        case "id":
          v = Integer.toString(id);
          break;
        case "a": // INT, then BIGINT: values beyond INT only after the widening
          v = f.type().getTypeRoot() == DataTypeRoot.BIGINT
              ? Long.toString(5_000_000_000L + id)
              : Integer.toString(-id * 7);
          break;
        case "b":
        case "b2":
          v = q(f.name() + " of " + id);
          break;
        case "c":
          v = id + ".5";
          break;
        case "e":
          v = Long.toString(id * 1000L);
          break;
        case "dt":
          v = q(appendDt(id));
          break;
        default:
          throw new IllegalStateException("no value for column " + f.name());
      }
      row.append(nul ? "null" : v);
    }
    return row.append("}").toString();
  }

  /**
   * Schema evolution: snapshot 1 with the first schema (Parquet); rename, add (not at the end) and
   * drop columns, snapshot 2; widen INT to BIGINT, re-add a dropped name (a new field id), switch
   * to ORC, snapshot 3; switch to Avro, snapshot 4; an overwrite of one partition, snapshot 5.
   */
  static void schemaEvolutionTable(File root) throws Exception {
    Table t = new Table(root, "schema_evolution");
    t.create(
        "{\"name\": \"id\", \"type\": \"BIGINT NOT NULL\"}, {\"name\": \"a\", \"type\": \"INT\"},"
            + " {\"name\": \"b\", \"type\": \"STRING\"}, {\"name\": \"c\", \"type\": \"DOUBLE\"},"
            + " {\"name\": \"dt\", \"type\": \"STRING\"}",
        "\"dt\"",
        "{\"file.format\": \"parquet\", \"bucket\": \"-1\"}");
    FileStoreTable ft = t.open();
    t.write(rows(0, 9, id -> evolutionRow(ft, id)), false);
    t.alter(
        SchemaChange.renameColumn("b", "b2"),
        SchemaChange.addColumn(
            "e",
            SchemaSpec.parseType(TextNode.valueOf("BIGINT"), "e"),
            null,
            SchemaChange.Move.after("e", "id")),
        SchemaChange.dropColumn("c"));
    FileStoreTable ft2 = t.open();
    t.write(rows(10, 16, id -> evolutionRow(ft2, id)), false);
    t.alter(
        SchemaChange.updateColumnType("a", SchemaSpec.parseType(TextNode.valueOf("BIGINT"), "a")),
        SchemaChange.addColumn("c", SchemaSpec.parseType(TextNode.valueOf("DOUBLE"), "c")),
        SchemaChange.setOption("file.format", "orc"));
    FileStoreTable ft3 = t.open();
    t.write(rows(20, 26, id -> evolutionRow(ft3, id)), false);
    t.alter(SchemaChange.setOption("file.format", "avro"));
    FileStoreTable ft4 = t.open();
    t.write(rows(30, 36, id -> evolutionRow(ft4, id)), false);
    t.write(rows(40, 42, id -> evolutionRow(ft4, id * 3)), true);
  }

  // ---------------------------------------------------------------------------------------------
  // bucket-id vectors

  /**
   * The three files of the golden set's vectors/ (same names, columns and format: one JSON array
   * per line ending in "],", key values then the bucket id for 12345 buckets), with rows from a
   * fixed seed and ids from {@code TableWriteImpl.getBucket} on a table whose bucket key is every
   * column.
   */
  static void vectors(File root) throws Exception {
    String[] all = {
      "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP(9)",
      "DECIMAL(30, 20)", "STRING", "BYTES"
    };
    String[] nulls = {
      "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP(9)",
      "DECIMAL(5, 2)", "DECIMAL(30, 2)", "STRING", "BYTES"
    };
    String[] ts = {
      "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
      "TIMESTAMP(0) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE",
      "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(9) WITH LOCAL TIME ZONE"
    };
    String[] tsNames = {
      "ts_sec", "ts_milli", "ts_micro", "ts_nano", "ltz_sec", "ltz_milli", "ltz_micro", "ltz_nano"
    };
    vectorFile(root, "record_for_bucket_id.data", all, null, false, 1);
    vectorFile(root, "record_with_null_for_bucket_id.data", nulls, null, true, 2);
    vectorFile(root, "record_with_timestamp_for_bucket_id.data", ts, tsNames, true, 3);
  }

  static final int VECTOR_ROWS = 5000;

  static void vectorFile(
      File root, String file, String[] types, String[] names, boolean withNulls, long seed)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder fields = new StringBuilder();
    List<String> columns = new ArrayList<>();
    for (int c = 0; c < types.length; c++) {
      String name = names != null ? names[c] : "v" + c;
      columns.add(name);
      if (c > 0) fields.append(", ");
      fields.append("{\"name\": ").append(q(name)).append(", \"type\": ").append(q(types[c])).append('}');
    }
    Table t = new Table(root, "vectors_" + seed);
    t.create(
        fields.toString(),
        "",
        "{\"bucket\": \"12345\", \"bucket-key\": " + q(String.join(",", columns)) + "}");
    FileStoreTable table = t.open();
    RowType type = table.rowType();
    StringBuilder out = new StringBuilder();
    try (TableWriteImpl<?> w = table.newWrite("freshet-vectors")) {
      for (int r = 0; r < VECTOR_ROWS; r++) {
        StringBuilder input = new StringBuilder("{");
        StringBuilder vector = new StringBuilder("[");
        for (int c = 0; c < types.length; c++) {
          boolean nul = withNulls && (r == 0 || random.nextInt(8) == 0);
          String[] v = nul ? new String[] {"null", "null"} : vectorValue(types[c], random);
          if (c > 0) {
            input.append(", ");
            vector.append(", ");
          }
          input.append(q(columns.get(c))).append(": ").append(v[0]);
          vector.append(v[1]);
        }
        GenericRow row =
            Values.readRow(type, Main.MAPPER.readTree(input.append('}').toString()), file);
        vector.append(", ").append(w.getBucket(row)).append("],\n");
        out.append(vector);
      }
    }
    writeText(new File(root, "vectors/" + file), out.toString());
  }

  /** {harness input JSON, vector JSON} of one random value of {@code type}. */
  static String[] vectorValue(String type, SplittableRandom random) {
    switch (type) {
      case "BOOLEAN":
        {
          String b = Boolean.toString(random.nextBoolean());
          return new String[] {b, b};
        }
      case "TINYINT":
        return same(Integer.toString(random.nextInt(256) - 128));
      case "SMALLINT":
        return same(Integer.toString(random.nextInt(65536) - 32768));
      case "INT":
        return same(Integer.toString(random.nextInt()));
      case "BIGINT":
        return same(Long.toString(random.nextLong()));
      case "FLOAT":
        {
          String text = FloatText.ofFloat((float) (random.nextDouble() * 2e6 - 1e6));
          return same(text);
        }
      case "DOUBLE":
        return same(FloatText.ofDouble(random.nextDouble() * 2e12 - 1e12));
      case "DATE":
        {
          int days = random.nextInt(-200_000, 200_000);
          return new String[] {q(java.time.LocalDate.ofEpochDay(days).toString()), "" + days};
        }
      case "DECIMAL(30, 20)":
      case "DECIMAL(5, 2)":
      case "DECIMAL(30, 2)":
        {
          int precision = type.equals("DECIMAL(5, 2)") ? 5 : 30;
          int scale = type.equals("DECIMAL(30, 20)") ? 20 : 2;
          int digits = 1 + random.nextInt(precision);
          BigInteger unscaled = new BigInteger(digits * 4, new java.util.Random(random.nextLong()));
          unscaled = unscaled.mod(BigInteger.TEN.pow(digits));
          if (random.nextBoolean()) unscaled = unscaled.negate();
          String text = new BigDecimal(unscaled, scale).setScale(scale, RoundingMode.UNNECESSARY)
              .toPlainString();
          return same(q(text));
        }
      case "STRING":
      case "BYTES":
        {
          StringBuilder s = new StringBuilder();
          int n = random.nextInt(type.equals("STRING") ? 40 : 20);
          for (int k = 0; k < n; k++) s.append((char) ('!' + random.nextInt(94)));
          String text = s.toString();
          if (type.equals("STRING")) return same(q(text));
          String b64 =
              java.util.Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
          return new String[] {q(b64), q(text)};
        }
      default:
        {
          // TIMESTAMP(p) [WITH LOCAL TIME ZONE], years 1700..2260 (nanoseconds fit a long)
          int p = Integer.parseInt(type.substring(type.indexOf('(') + 1, type.indexOf(')')));
          long seconds = random.nextLong(-8_520_336_000L, 9_151_488_000L);
          int nanos = random.nextInt(1_000_000_000);
          int keep = (int) Math.pow(10, 9 - p);
          nanos = nanos / keep * keep;
          LocalDateTime ldt = LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
          String text =
              java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").format(ldt)
                  + (p == 0 ? "" : "." + String.format("%09d", nanos).substring(0, p));
          boolean ltz = type.contains("LOCAL");
          if (type.equals("TIMESTAMP(9)") && !ltz && random.nextBoolean()) {
            // the golden files give TIMESTAMP(9) keys as nanoseconds since the epoch
            return new String[] {q(text), Long.toString(seconds * 1_000_000_000L + nanos)};
          }
          return new String[] {q(text + (ltz ? "Z" : "")), q(text)};
        }
    }
  }

  static String[] same(String s) {
    return new String[] {s, s};
  }

  // ---------------------------------------------------------------------------------------------

  static void run(String dir, boolean pkOnly) throws Exception {
    File root = new File(dir).getAbsoluteFile();
    if (root.exists() && root.list().length > 0) {
      throw new IllegalArgumentException(dir + " exists and is not empty");
    }
    root.mkdirs();
    writeText(new File(root, "VERSION"), Main.paimonVersion() + "\n");
    if (pkOnly) {
      PkFixtures.run(root);
      return;
    }
    everyTypeTable(root, "parquet_partitioned_bucket2", "parquet", "2", true, true, null, true, true);
    everyTypeTable(root, "orc_unaware", "orc", "-1", false, false, null, true, false);
    everyTypeTable(root, "avro_partitioned_bucket4", "avro", "4", true, false, null, true, false);
    everyTypeTable(
        root, "avro_unaware_partitioned", "avro", "-1", true, false, null, false, false);
    everyTypeTable(
        root, "parquet_orc_manifests_bucket1", "parquet", "1", true, false, "orc", true, false);
    everyTypeTable(root, "orc_orc_manifests_bucket2", "orc", "2", false, false, "orc", false, true);
    schemaEvolutionTable(root);
    vectors(root);
    PkFixtures.run(root);
    writeText(new File(root, "DONE"), Main.paimonVersion() + "\n");
  }
}
