package dev.freshet.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.nio.file.Files;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.FallbackKey;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * The primary-key part of the {@code fixtures} command: merge-on-read tables of every merge engine
 * written through the Paimon version on the class path, with what that version's batch read
 * returns at every snapshot (docs/interop-tests.md, "Primary-key tables of every Java Paimon
 * version"). Unlike the append tables there is no model of the expected rows: Java's own read is
 * the truth (it also shows that batch reads of deletion-vector and first-row tables skip level-0
 * files). It writes:
 *
 * <ul>
 *   <li>{@code D/wh/pk.db/<table>/}: the tables;
 *   <li>{@code D/pk/java/<table>/s<N>.jsonl}: what this Java version reads at snapshot N (or
 *       {@code s<N>.error});
 *   <li>{@code D/pk/java/<table>/snapshots.txt}: {@code <id> <commitKind>} per snapshot;
 *   <li>{@code D/pk/TABLES}: the tables this version wrote, one a line;
 *   <li>{@code D/pk/SKIPPED}: {@code <table>\t<reason>} for the tables it did not write: "unknown
 *       option <key>" when the version does not have an option the table needs (an unknown option
 *       would be silently ignored, so the table would not test what it is named for), "failed:
 *       <message>" when Java failed while writing it (the run goes on).
 * </ul>
 */
final class PkFixtures {
  private PkFixtures() {}

  static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  /**
   * Partition values: escaped in paths ('=', ':', ' ') and non-ASCII. No '/' (the append tables
   * have one): Java's lookup (deletion vectors, first-row) names its local files after the
   * partition and fails with "No such file or directory" on a '/' (seen with 1.4.2).
   */
  static final String[] DTS = {"2026-01-01", "p=ü 1:x"};

  /** The option keys (and fallback keys) of {@code CoreOptions} in the version on the class path. */
  static Set<String> knownOptions() {
    Set<String> keys = new HashSet<>();
    for (Field f : CoreOptions.class.getFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) {
        continue;
      }
      try {
        ConfigOption<?> o = (ConfigOption<?>) f.get(null);
        keys.add(o.key());
        for (FallbackKey k : o.fallbackKeys()) keys.add(k.getKey());
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
    return keys;
  }

  // ---------------------------------------------------------------------------------------------
  // rows

  /** A JSON row: alternating names and values (Integer/Long/Double/String/Boolean/JsonNode/null). */
  static ObjectNode row(String kind, Object... kv) {
    ObjectNode o = JSON.objectNode();
    o.put("_kind", kind);
    for (int i = 0; i < kv.length; i += 2) o.set((String) kv[i], node(kv[i + 1]));
    return o;
  }

  static JsonNode node(Object v) {
    if (v == null) return JSON.nullNode();
    if (v instanceof JsonNode) return (JsonNode) v;
    if (v instanceof Integer) return JSON.numberNode((Integer) v);
    if (v instanceof Long) return JSON.numberNode(BigInteger.valueOf((Long) v));
    if (v instanceof Double) return JSON.numberNode(new java.math.BigDecimal(v.toString()));
    if (v instanceof Boolean) return JSON.booleanNode((Boolean) v);
    if (v instanceof String) return JSON.textNode((String) v);
    throw new IllegalArgumentException("no JSON for " + v.getClass());
  }

  static ArrayNode array(Object... values) {
    ArrayNode a = JSON.arrayNode();
    for (Object v : values) a.add(node(v));
    return a;
  }

  /** A MAP value: [[key, value], ...]. */
  static ArrayNode map(Object... kv) {
    ArrayNode a = JSON.arrayNode();
    for (int i = 0; i < kv.length; i += 2) a.add(array(kv[i], kv[i + 1]));
    return a;
  }

  // ---------------------------------------------------------------------------------------------
  // a table being written

  static final class PkTable {
    final String name;
    final File root;
    final String path;
    /** Option keys this version knows: create and write refuse others (UnknownOption). */
    final Set<String> known;
    long recorded = 0;

    PkTable(File root, String name, Set<String> known) {
      this.name = name;
      this.root = root;
      this.known = known;
      this.path = new File(root, "wh/pk.db/" + name).getPath();
    }

    FileStoreTable open() throws Exception {
      return Main.openTable(path);
    }

    void create(
        String fields, List<String> partitionKeys, List<String> primaryKeys, Map<String, String> options)
        throws Exception {
      for (String key : options.keySet()) {
        if (!key.startsWith("fields.") && !known.contains(key)) throw new UnknownOption(key);
      }
      ObjectNode spec = JSON.objectNode();
      spec.set("fields", Main.MAPPER.readTree("[" + fields + "]"));
      ArrayNode pk = spec.putArray("partitionKeys");
      partitionKeys.forEach(pk::add);
      ArrayNode keys = spec.putArray("primaryKeys");
      primaryKeys.forEach(keys::add);
      ObjectNode opts = spec.putObject("options");
      options.forEach(opts::put);
      new SchemaManager(LocalFileIO.create(), Main.tablePath(path))
          .createTable(SchemaSpec.toSchema(spec));
    }

    void write(List<ObjectNode> rows) throws Exception {
      write(rows, Collections.emptyMap());
    }

    /** One batch commit of {@code rows} (with their {@code _kind}), the table copied with {@code dynamic}. */
    void write(List<ObjectNode> rows, Map<String, String> dynamic) throws Exception {
      for (String key : dynamic.keySet()) {
        if (!known.contains(key)) throw new UnknownOption(key);
      }
      FileStoreTable t = open();
      if (!dynamic.isEmpty()) t = t.copy(dynamic);
      RowType type = t.rowType();
      List<GenericRow> parsed = new ArrayList<>();
      for (ObjectNode r : rows) {
        GenericRow g = Values.readRow(type, r, name + ": " + r);
        g.setRowKind(RowKind.fromShortString(r.get("_kind").asText()));
        parsed.add(g);
      }
      BatchWriteBuilder wb = t.newBatchWriteBuilder();
      try (IOManager io = Main.tempIOManager();
          BatchTableWrite w = wb.newWrite();
          BatchTableCommit c = wb.newCommit()) {
        // TableWrite.withIOManager: BatchTableWrite overrides it covariantly only in newer versions
        ((org.apache.paimon.table.sink.TableWrite) w).withIOManager(io); // lookup spills to disk
        for (GenericRow r : parsed) w.write(r);
        c.commit(w.prepareCommit());
      }
      record();
    }

    /** A (full) compaction of every (partition, bucket) that holds files. */
    void compact(boolean full) throws Exception {
      Main.compactTable(open(), full);
      record();
    }

    /** Writes what Java reads for every snapshot made since the last call, and the commit kinds. */
    void record() throws Exception {
      FileStoreTable t = open();
      Long latest = t.snapshotManager().latestSnapshotId();
      if (latest == null) return;
      File java = new File(root, "pk/java/" + name);
      for (long id = recorded + 1; id <= latest; id++) {
        StringWriter rows = new StringWriter();
        try {
          Main.readSnapshot(t, id, rows);
          Fixtures.writeText(new File(java, "s" + id + ".jsonl"), rows.toString());
        } catch (Exception e) {
          Fixtures.writeText(new File(java, "s" + id + ".error"), Main.describe(e) + "\n");
        }
      }
      recorded = latest;
      StringBuilder kinds = new StringBuilder();
      for (Snapshot s : Main.sortedSnapshots(t)) {
        kinds.append(s.id()).append(' ').append(s.commitKind()).append('\n');
      }
      Fixtures.writeText(new File(java, "snapshots.txt"), kinds.toString());
    }
  }

  static Map<String, String> opts(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
    return m;
  }

  static List<String> list(String... s) {
    return Arrays.asList(s);
  }

  static final Map<String, String> WRITE_ONLY = opts("write-only", "true");

  // ---------------------------------------------------------------------------------------------
  // deduplicate (and the engines that share its rows: first-row, deletion vectors)

  static final String DEDUP_FIELDS =
      String.join(
          ", ",
          "{\"name\": \"k1\", \"type\": \"INT NOT NULL\"}",
          "{\"name\": \"k2\", \"type\": \"STRING NOT NULL\"}",
          "{\"name\": \"dt\", \"type\": \"STRING NOT NULL\"}",
          "{\"name\": \"name\", \"type\": \"STRING\"}",
          "{\"name\": \"v\", \"type\": \"BIGINT\"}",
          "{\"name\": \"d\", \"type\": \"DOUBLE\"}",
          "{\"name\": \"dec\", \"type\": \"DECIMAL(12, 3)\"}",
          "{\"name\": \"flag\", \"type\": \"BOOLEAN\"}",
          "{\"name\": \"day\", \"type\": \"DATE\"}",
          "{\"name\": \"ts\", \"type\": \"TIMESTAMP(6)\"}",
          "{\"name\": \"arr\", \"type\": {\"type\": \"ARRAY\", \"element\": \"INT\"}}",
          "{\"name\": \"m\", \"type\": {\"type\": \"MAP\", \"key\": \"STRING\", \"value\": \"INT\"}}");

  /** Row {@code k} in its version {@code ver}: every value depends on both; some are null. */
  static ObjectNode dedupRow(String kind, int k, int ver) {
    boolean nul = (k + ver) % 5 == 4;
    LocalDateTime ts = LocalDateTime.of(2025, 1, 1, 0, 0).plusSeconds(k * 3600L + ver).plusNanos(ver * 1000L + k);
    return row(
        kind,
        "k1", k,
        "k2", "k" + (k % 3),
        "dt", DTS[k % 2],
        "name", nul ? null : "n" + k + " v" + ver + (k % 4 == 0 ? " ✓" : ""),
        "v", (long) k * 1000 + ver - (k % 6 == 5 ? 1L << 40 : 0),
        "d", nul ? null : k + ver / 4.0,
        "dec", nul ? null : String.format("%d.%03d", k * 13 - 200, ver * 111),
        "flag", k % 3 == 1 ? null : (k + ver) % 2 == 0,
        "day", LocalDate.ofEpochDay(20000 + k - ver * 30).toString(),
        "ts", ts.toString().replace('T', ' '),
        "arr", nul ? null : k % 3 == 0 ? array() : array(k, null, ver),
        "m", k % 4 == 3 ? null : map("a", k, "b", ver));
  }

  static List<ObjectNode> dedupRows(String kind, int from, int to, int step, int ver) {
    List<ObjectNode> rows = new ArrayList<>();
    for (int k = from; k < to; k += step) rows.add(dedupRow(kind, k, ver));
    return rows;
  }

  @SafeVarargs
  static List<ObjectNode> concat(List<ObjectNode>... parts) {
    List<ObjectNode> all = new ArrayList<>();
    for (List<ObjectNode> p : parts) all.addAll(p);
    return all;
  }

  /** Commit 1: inserts. */
  static List<ObjectNode> dedupCommit1() {
    return dedupRows("+I", 0, 30, 1, 1);
  }

  /** Commit 2: -U/+U updates of every third key, -D of keys 1, 8, 15, 22, 29, new keys 30..39. */
  static List<ObjectNode> dedupCommit2() {
    List<ObjectNode> rows = new ArrayList<>();
    for (int k = 0; k < 30; k += 3) {
      rows.add(dedupRow("-U", k, 1));
      rows.add(dedupRow("+U", k, 2));
    }
    rows.addAll(dedupRows("-D", 1, 30, 7, 1));
    rows.addAll(dedupRows("+I", 30, 40, 1, 1));
    return rows;
  }

  /**
   * Commit 3: deleted keys come back, +U without -U, a lone -U (key 5) and a -D (key 30); key 2 is
   * written twice in the commit (the later wins).
   */
  static List<ObjectNode> dedupCommit3() {
    return concat(
        dedupRows("+I", 1, 16, 7, 3),
        dedupRows("+U", 0, 40, 4, 3),
        List.of(dedupRow("-U", 5, 1), dedupRow("-D", 30, 1)),
        List.of(dedupRow("+I", 2, 4), dedupRow("+U", 2, 5)));
  }

  /** Commit 4: updates every fifth key, deletes key 3, inserts keys 40..44. */
  static List<ObjectNode> dedupCommit4() {
    return concat(
        dedupRows("+U", 0, 40, 5, 6), List.of(dedupRow("-D", 3, 1)), dedupRows("+I", 40, 45, 1, 6));
  }

  static Map<String, String> with(Map<String, String> base, String... kv) {
    Map<String, String> m = new LinkedHashMap<>(base);
    m.putAll(opts(kv));
    return m;
  }

  static void dedupTable(
      PkTable t, String format, boolean partitioned, int bucket, boolean compact, Map<String, String> extra)
      throws Exception {
    Map<String, String> o = opts("file.format", format, "bucket", Integer.toString(bucket));
    o.putAll(extra);
    t.create(
        DEDUP_FIELDS,
        partitioned ? list("dt") : list(),
        partitioned ? list("dt", "k1", "k2") : list("k1", "k2"),
        o);
    t.write(dedupCommit1());
    t.write(dedupCommit2());
    t.write(dedupCommit3());
    if (compact) t.compact(true);
    t.write(dedupCommit4());
  }

  /** Deletion vectors: the dedup commits, then a full compaction and a last commit. */
  static void dvTable(PkTable t, String format, boolean partitioned, int bucket, Map<String, String> extra)
      throws Exception {
    dedupTable(t, format, partitioned, bucket, true, with(extra, "deletion-vectors.enabled", "true"));
  }

  /**
   * Deletion vectors with level-0 files on top: a commit, a full compaction, two write-only
   * commits (level-0 files Java's batch read skips), then an ordinary commit whose compaction
   * merges them (deletion vectors on the compacted files).
   */
  static void dvLevel0Table(PkTable t) throws Exception {
    t.create(
        DEDUP_FIELDS,
        list(),
        list("k1", "k2"),
        opts("file.format", "parquet", "bucket", "2", "deletion-vectors.enabled", "true"));
    t.write(dedupCommit1());
    t.compact(true);
    t.write(dedupCommit2(), WRITE_ONLY);
    t.write(dedupCommit3(), WRITE_ONLY);
    t.write(dedupCommit4());
  }

  /** First-row: later rows of a key are ignored; -D rows ignored (ignore-delete). */
  static void firstRowTable(PkTable t, String format, boolean partitioned, int bucket) throws Exception {
    t.create(
        DEDUP_FIELDS,
        partitioned ? list("dt") : list(),
        partitioned ? list("dt", "k1", "k2") : list("k1", "k2"),
        opts(
            "file.format", format,
            "bucket", Integer.toString(bucket),
            "merge-engine", "first-row",
            "ignore-delete", "true"));
    t.write(dedupCommit1());
    t.write(concat(dedupRows("+I", 10, 35, 1, 2), List.of(dedupRow("-D", 0, 1))));
    t.write(concat(dedupRows("+U", 0, 35, 3, 3), dedupRows("+I", 35, 40, 1, 3)));
    t.compact(true);
    t.write(concat(dedupRows("+I", 38, 45, 1, 4)), WRITE_ONLY);
  }

  // ---------------------------------------------------------------------------------------------
  // sequence fields

  static ObjectNode seqRow(String kind, int k, Object seq, String val) {
    return row(kind, "k", k, "seq", seq, "val", val, "n", k * 10);
  }

  static final String SEQ_FIELDS =
      "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"seq\", \"type\": \"BIGINT\"},"
          + " {\"name\": \"val\", \"type\": \"STRING\"}, {\"name\": \"n\", \"type\": \"INT\"}";

  /**
   * sequence.field = seq: lower sequences lose whatever their commit order, equal ones fall back
   * to the write order, a -D with a lower sequence is ignored; null sequences.
   */
  static void seqFieldTable(PkTable t, boolean descending) throws Exception {
    Map<String, String> o = opts("file.format", "parquet", "bucket", "2", "sequence.field", "seq");
    if (descending) o.put("sequence.field.sort-order", "descending");
    t.create(SEQ_FIELDS, list(), list("k"), o);
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 20; k++) c1.add(seqRow("+I", k, 100L + k, "first " + k));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 20; k++) {
      c2.add(seqRow("+U", k, k % 2 == 0 ? 50L : 200L, "second " + k));
    }
    c2.add(seqRow("-D", 3, 10L, null));
    c2.add(seqRow("-D", 5, 300L, null));
    t.write(c2);
    List<ObjectNode> c3 = new ArrayList<>();
    c3.add(seqRow("+U", 6, null, "null sequence"));
    c3.add(seqRow("+U", 7, 200L, "equal sequence, later commit"));
    c3.add(seqRow("+U", 8, 100L, "equal to first"));
    c3.add(seqRow("+I", 20, null, "new with null sequence"));
    c3.add(seqRow("+I", 21, 1L, "new a"));
    c3.add(seqRow("+I", 21, 2L, "new b"));
    c3.add(seqRow("+I", 22, 2L, "new c"));
    c3.add(seqRow("+I", 22, 1L, "new d"));
    t.write(c3);
    t.compact(true);
    t.write(List.of(seqRow("+U", 9, 1L, "low after compaction"), seqRow("+U", 10, 1000L, "high after compaction"), seqRow("-D", 11, 5000L, null)));
  }

  /** sequence.field = s1,s2 (compared in that order). */
  static void seqTwoFieldsTable(PkTable t) throws Exception {
    t.create(
        "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"s1\", \"type\": \"INT\"},"
            + " {\"name\": \"s2\", \"type\": \"BIGINT\"}, {\"name\": \"val\", \"type\": \"STRING\"},"
            + " {\"name\": \"dt\", \"type\": \"STRING NOT NULL\"}",
        list("dt"),
        list("dt", "k"),
        opts("file.format", "orc", "bucket", "1", "sequence.field", "s1,s2"));
    java.util.function.BiFunction<String, Object[], ObjectNode> r =
        (kind, a) -> row(kind, "k", a[0], "s1", a[1], "s2", a[2], "val", a[3], "dt", DTS[(Integer) a[0] % 2]);
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 12; k++) c1.add(r.apply("+I", new Object[] {k, 1, (long) k, "v1 " + k}));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 12; k++) {
      c2.add(r.apply("+U", new Object[] {k, 1, k % 2 == 0 ? k - 1L : k + 1L, "v2 " + k}));
      if (k % 4 == 0) c2.add(r.apply("+U", new Object[] {k, 2, 0L, "v3 " + k}));
      if (k % 4 == 1) c2.add(r.apply("+U", new Object[] {k, 0, 999L, "v4 " + k}));
    }
    t.write(c2);
    t.write(
        List.of(
            r.apply("-D", new Object[] {1, 0, 99L, null}),
            r.apply("-D", new Object[] {3, 5, 0L, null}),
            r.apply("+U", new Object[] {5, 1, 6L, "equal pair, later commit"})));
  }

  // ---------------------------------------------------------------------------------------------
  // partial-update

  static ObjectNode puRow(String kind, int k, String a, Integer b, Double c, ArrayNode d) {
    return row(kind, "k", k, "a", a, "b", b, "c", c, "d", d);
  }

  static final String PU_FIELDS =
      "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"a\", \"type\": \"STRING\"},"
          + " {\"name\": \"b\", \"type\": \"INT\"}, {\"name\": \"c\", \"type\": \"DOUBLE\"},"
          + " {\"name\": \"d\", \"type\": {\"type\": \"ARRAY\", \"element\": \"STRING\"}}";

  /** Plain partial-update: null fields do not overwrite. */
  static void partialUpdateTable(PkTable t) throws Exception {
    t.create(PU_FIELDS, list(), list("k"), opts("file.format", "parquet", "bucket", "1", "merge-engine", "partial-update"));
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 10; k++) c1.add(puRow("+I", k, "a" + k, null, null, null));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 15; k++) c2.add(puRow("+I", k, null, k, k % 2 == 0 ? null : k + 0.5, null));
    t.write(c2);
    List<ObjectNode> c3 = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      c3.add(puRow("+U", k, k < 2 ? "a2 " + k : null, null, k * 1.25, array("x" + k, null)));
    }
    c3.add(puRow("+I", 3, null, -3, null, array()));
    t.write(c3);
    t.compact(true);
    t.write(List.of(puRow("+I", 0, "a3", null, null, null), puRow("+I", 20, null, 20, null, null)));
  }

  /** partial-update.remove-record-on-delete: -D removes the row; later rows start afresh. */
  static void partialUpdateRemoveOnDeleteTable(PkTable t) throws Exception {
    t.create(
        PU_FIELDS,
        list(),
        list("k"),
        opts(
            "file.format", "orc",
            "bucket", "1",
            "merge-engine", "partial-update",
            "partial-update.remove-record-on-delete", "true"));
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 10; k++) c1.add(puRow("+I", k, "a" + k, null, null, null));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 10; k++) c2.add(puRow("+I", k, null, k, null, null));
    c2.add(puRow("-D", 2, null, null, null, null));
    c2.add(puRow("-D", 3, "a3", 3, null, null));
    t.write(c2);
    t.write(
        List.of(
            puRow("+I", 2, null, 22, null, null),
            puRow("-D", 4, null, null, null, null),
            puRow("+I", 4, null, null, 4.5, null),
            puRow("+I", 5, "a5 again", null, null, array("z"))));
  }

  static final String SG_FIELDS =
      "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"g1\", \"type\": \"BIGINT\"},"
          + " {\"name\": \"a\", \"type\": \"STRING\"}, {\"name\": \"b\", \"type\": \"INT\"},"
          + " {\"name\": \"g2\", \"type\": \"BIGINT\"}, {\"name\": \"c\", \"type\": \"STRING\"},"
          + " {\"name\": \"d\", \"type\": \"DOUBLE\"}, {\"name\": \"free\", \"type\": \"STRING\"}";

  static ObjectNode sgRow(String kind, int k, Long g1, String a, Integer b, Long g2, String c, Double d, String free) {
    return row(kind, "k", k, "g1", g1, "a", a, "b", b, "g2", g2, "c", c, "d", d, "free", free);
  }

  /**
   * Sequence groups: fields.g1.sequence-group = a,b and fields.g2.sequence-group = c,d; a group
   * updates only with a sequence at least as high; -U/-D retract a group (its fields become null).
   */
  static void partialUpdateSeqGroupTable(PkTable t) throws Exception {
    t.create(
        SG_FIELDS,
        list(),
        list("k"),
        opts(
            "file.format", "orc",
            "bucket", "2",
            "merge-engine", "partial-update",
            "fields.g1.sequence-group", "a,b",
            "fields.g2.sequence-group", "c,d"));
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 10; k++) c1.add(sgRow("+I", k, 1L, "a" + k, k, 1L, "c" + k, k + 0.5, "f" + k));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      c2.add(sgRow("+I", k, 2L, "a2 " + k, null, 0L, "c lower " + k, -1.0, k % 2 == 0 ? null : "f2 " + k));
    }
    t.write(c2);
    t.write(
        List.of(
            sgRow("-U", 0, 3L, null, null, null, null, null, null),
            sgRow("-U", 1, 3L, "a2 1", null, null, null, null, null),
            sgRow("-D", 3, null, null, null, 5L, null, null, null),
            sgRow("+U", 4, 1L, "lower g1", 44, 2L, "c higher", 4.25, "free 4"),
            sgRow("+I", 5, null, "no g1", 55, null, "no g2", 5.5, "only free"),
            sgRow("+I", 12, 1L, "new", 12, null, null, null, null)));
    t.compact(true);
    t.write(List.of(sgRow("+I", 0, 4L, "a4", 40, null, null, null, null), sgRow("+I", 3, 1L, "x", 1, 1L, "lower g2", 0.0, null)));
  }

  /**
   * A sequence group with aggregated fields: fields.g.sequence-group = x,y,z,
   * fields.x.aggregate-function = sum, fields.y.aggregate-function = max.
   */
  static void partialUpdateSeqGroupAggTable(PkTable t) throws Exception {
    t.create(
        "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"g\", \"type\": \"INT\"},"
            + " {\"name\": \"x\", \"type\": \"BIGINT\"}, {\"name\": \"y\", \"type\": \"INT\"},"
            + " {\"name\": \"z\", \"type\": \"STRING\"}, {\"name\": \"other\", \"type\": \"STRING\"}",
        list(),
        list("k"),
        opts(
            "file.format", "parquet",
            "bucket", "2",
            "merge-engine", "partial-update",
            "fields.g.sequence-group", "x,y,z",
            "fields.x.aggregate-function", "sum",
            "fields.y.aggregate-function", "max"));
    java.util.function.Function<Object[], ObjectNode> r =
        a -> row("+I", "k", a[0], "g", a[1], "x", a[2], "y", a[3], "z", a[4], "other", a[5]);
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 8; k++) c1.add(r.apply(new Object[] {k, 10, (long) k, k, "z" + k, "o" + k}));
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 8; k++) {
      c2.add(r.apply(new Object[] {k, k % 2 == 0 ? 20 : 5, 100L, 50 - k, "z2 " + k, null}));
    }
    t.write(c2);
    t.write(
        List.of(
            r.apply(new Object[] {0, 30, null, 1, null, "o3"}),
            r.apply(new Object[] {1, null, 7L, 99, "no g", null}),
            r.apply(new Object[] {9, 1, 9L, 9, "new", null})));
  }

  // ---------------------------------------------------------------------------------------------
  // aggregation

  static final String AGG_FIELDS =
      String.join(
          ", ",
          "{\"name\": \"dt\", \"type\": \"STRING NOT NULL\"}",
          "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}",
          "{\"name\": \"s_sum\", \"type\": \"BIGINT\"}",
          "{\"name\": \"dec_sum\", \"type\": \"DECIMAL(12, 2)\"}",
          "{\"name\": \"prod\", \"type\": \"BIGINT\"}",
          "{\"name\": \"mx\", \"type\": \"INT\"}",
          "{\"name\": \"mn\", \"type\": \"INT\"}",
          "{\"name\": \"lnn\", \"type\": \"STRING\"}",
          "{\"name\": \"lv\", \"type\": \"STRING\"}",
          "{\"name\": \"la\", \"type\": \"STRING\"}",
          "{\"name\": \"bo\", \"type\": \"BOOLEAN\"}",
          "{\"name\": \"ba\", \"type\": \"BOOLEAN\"}",
          "{\"name\": \"col\", \"type\": {\"type\": \"ARRAY\", \"element\": \"INT\"}}",
          "{\"name\": \"m\", \"type\": {\"type\": \"MAP\", \"key\": \"INT\", \"value\": \"STRING\"}}",
          "{\"name\": \"fnn\", \"type\": \"STRING\"}",
          "{\"name\": \"dflt\", \"type\": \"STRING\"}");

  static final Map<String, String> AGG_OPTIONS =
      opts(
          "merge-engine", "aggregation",
          "fields.s_sum.aggregate-function", "sum",
          "fields.dec_sum.aggregate-function", "sum",
          "fields.prod.aggregate-function", "product",
          "fields.mx.aggregate-function", "max",
          "fields.mx.ignore-retract", "true",
          "fields.mn.aggregate-function", "min",
          "fields.mn.ignore-retract", "true",
          "fields.lnn.aggregate-function", "last_non_null_value",
          "fields.lv.aggregate-function", "last_value",
          "fields.la.aggregate-function", "listagg",
          "fields.la.ignore-retract", "true",
          "fields.bo.aggregate-function", "bool_or",
          "fields.bo.ignore-retract", "true",
          "fields.ba.aggregate-function", "bool_and",
          "fields.ba.ignore-retract", "true",
          "fields.col.aggregate-function", "collect",
          "fields.m.aggregate-function", "merge_map",
          "fields.fnn.aggregate-function", "first_non_null_value",
          "fields.fnn.ignore-retract", "true");

  /** One contribution {@code c} to key {@code k}: every aggregated column gets a value. */
  static ObjectNode aggRow(String kind, int k, int c) {
    boolean nul = (k + c) % 4 == 3;
    return row(
        kind,
        "dt", DTS[k % 2],
        "k", k,
        "s_sum", nul ? null : (long) k * 100 + c,
        "dec_sum", String.format("%d.%02d", c, k),
        "prod", (long) (1 + (k + c) % 3),
        "mx", nul ? null : (k * 7 + c * 13) % 50,
        "mn", (k * 5 + c * 11) % 40 - 20,
        "lnn", nul ? null : "lnn " + k + "/" + c,
        "lv", nul ? null : "lv " + k + "/" + c,
        "la", nul ? null : "c" + c,
        "bo", (k + c) % 3 == 0,
        "ba", nul ? null : (k + c) % 5 != 0,
        // Java <= 1.0.0 fails to retract a null ARRAY from collect (NullPointerException)
        "col", nul && kind.equals("+I") ? null : array(c, k),
        "m", map(c % 3, "v" + c, 10 + k, "k" + k),
        "fnn", c == 1 && k % 2 == 0 ? null : "fnn " + k + "/" + c,
        "dflt", nul ? null : "dflt " + c);
  }

  /** Contributions, -U/+U pairs and -D retractions; then a full compaction and more. */
  static void aggregationTable(PkTable t, String format, int bucket) throws Exception {
    t.create(AGG_FIELDS, list("dt"), list("dt", "k"), with(AGG_OPTIONS, "file.format", format, "bucket", Integer.toString(bucket)));
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      c1.add(aggRow("+I", k, 1));
      c1.add(aggRow("+I", k, 2));
    }
    t.write(c1);
    List<ObjectNode> c2 = new ArrayList<>();
    for (int k = 0; k < 12; k++) c2.add(aggRow("+I", k, 3));
    for (int k = 0; k < 5; k++) {
      c2.add(aggRow("-U", k, 2));
      c2.add(aggRow("+U", k, 4));
    }
    t.write(c2);
    List<ObjectNode> c3 = new ArrayList<>();
    c3.add(aggRow("-D", 5, 1));
    c3.add(aggRow("-D", 6, 1));
    c3.add(aggRow("-D", 6, 2));
    c3.add(aggRow("-D", 6, 3));
    c3.add(aggRow("+I", 7, 5));
    t.write(c3);
    t.compact(true);
    List<ObjectNode> c4 = new ArrayList<>();
    for (int k = 0; k < 14; k += 2) c4.add(aggRow("+I", k, 6));
    c4.add(aggRow("-U", 9, 3));
    t.write(c4);
  }

  /** aggregation.remove-record-on-delete: -D removes the row; later rows start afresh. */
  static void aggregationRemoveOnDeleteTable(PkTable t) throws Exception {
    t.create(
        "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"v\", \"type\": \"BIGINT\"},"
            + " {\"name\": \"s\", \"type\": \"STRING\"}",
        list(),
        list("k"),
        opts(
            "file.format", "orc",
            "bucket", "1",
            "merge-engine", "aggregation",
            "aggregation.remove-record-on-delete", "true",
            "fields.v.aggregate-function", "sum",
            "fields.s.aggregate-function", "listagg"));
    List<ObjectNode> c1 = new ArrayList<>();
    for (int k = 0; k < 6; k++) {
      c1.add(row("+I", "k", k, "v", (long) k, "s", "a" + k));
      c1.add(row("+I", "k", k, "v", 10L, "s", "b" + k));
    }
    t.write(c1);
    t.write(
        List.of(
            row("-D", "k", 1, "v", 1L, "s", "a1"),
            row("-D", "k", 2, "v", 0L, "s", null),
            row("+I", "k", 2, "v", 100L, "s", "again"),
            row("+I", "k", 3, "v", 3L, "s", "c3")));
    t.write(List.of(row("+I", "k", 1, "v", 7L, "s", "back"), row("-D", "k", 4, "v", null, "s", null)));
  }

  /** Aggregation on a deletion-vector table (lookup compaction at every commit). */
  static void dvAggregationTable(PkTable t) throws Exception {
    t.create(
        "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"v\", \"type\": \"BIGINT\"},"
            + " {\"name\": \"s\", \"type\": \"STRING\"}",
        list(),
        list("k"),
        opts(
            "file.format", "parquet",
            "bucket", "2",
            "deletion-vectors.enabled", "true",
            "merge-engine", "aggregation",
            "fields.v.aggregate-function", "sum",
            "fields.s.aggregate-function", "last_non_null_value"));
    for (int c = 1; c <= 3; c++) {
      List<ObjectNode> rows = new ArrayList<>();
      for (int k = 0; k < 10 + c * 2; k += c) rows.add(row("+I", "k", k, "v", (long) (k + c), "s", c == 2 ? null : "s" + c));
      if (c == 3) rows.add(row("-U", "k", 0, "v", 1L, "s", null));
      t.write(rows, c == 3 ? WRITE_ONLY : Collections.emptyMap());
    }
  }

  /** Deduplicate with a write buffer small enough that one commit flushes several files per bucket. */
  static void smallBufferTable(PkTable t) throws Exception {
    t.create(
        "{\"name\": \"k\", \"type\": \"INT NOT NULL\"}, {\"name\": \"ver\", \"type\": \"INT\"},"
            + " {\"name\": \"pad\", \"type\": \"STRING\"}",
        list(),
        list("k"),
        opts(
            "file.format", "parquet",
            "bucket", "2",
            "write-buffer-size", "256 kb",
            "page-size", "16 kb",
            "write-buffer-spillable", "false",
            "num-sorted-run.compaction-trigger", "100",
            "num-sorted-run.stop-trigger", "200"));
    char[] padChars = new char[300];
    Arrays.fill(padChars, 'p');
    String pad = new String(padChars);
    for (int c = 1; c <= 2; c++) {
      List<ObjectNode> rows = new ArrayList<>();
      for (int k = 0; k < 2400; k++) {
        if (c == 2 && k % 3 != 0) continue;
        rows.add(row(c == 2 && k % 9 == 0 ? "-D" : "+I", "k", k, "ver", c, "pad", pad + k));
      }
      t.write(rows);
    }
  }

  // ---------------------------------------------------------------------------------------------

  interface Body {
    void write(PkTable t) throws Exception;
  }

  static final class Spec {
    final String name;
    final Body body;

    Spec(String name, Body body) {
      this.name = name;
      this.body = body;
    }
  }

  static List<Spec> specs() {
    List<Spec> s = new ArrayList<>();
    for (String format : new String[] {"parquet", "orc"}) {
      for (boolean partitioned : new boolean[] {true, false}) {
        for (int bucket : new int[] {1, 4}) {
          String name =
              "dedup_" + format + (partitioned ? "_partitioned" : "_unpartitioned") + "_bucket" + bucket;
          // bucket 4: full compaction before the last commit (levels 0 and max); bucket 1: four
          // overlapping level-0 files
          s.add(new Spec(name, t -> dedupTable(t, format, partitioned, bucket, bucket == 4, opts())));
        }
      }
    }
    s.add(new Spec("dedup_small_write_buffer", PkFixtures::smallBufferTable));
    s.add(new Spec("dedup_sequence_field", t -> seqFieldTable(t, false)));
    s.add(new Spec("dedup_sequence_two_fields", PkFixtures::seqTwoFieldsTable));
    s.add(new Spec("dedup_sequence_descending", t -> seqFieldTable(t, true)));
    s.add(
        new Spec(
            "dedup_ignore_delete",
            t -> dedupTable(t, "parquet", true, 2, false, opts("ignore-delete", "true"))));
    s.add(new Spec("first_row_parquet_partitioned_bucket2", t -> firstRowTable(t, "parquet", true, 2)));
    s.add(new Spec("first_row_orc_bucket1", t -> firstRowTable(t, "orc", false, 1)));
    s.add(new Spec("partial_update", PkFixtures::partialUpdateTable));
    s.add(new Spec("partial_update_sequence_group", PkFixtures::partialUpdateSeqGroupTable));
    s.add(new Spec("partial_update_remove_record_on_delete", PkFixtures::partialUpdateRemoveOnDeleteTable));
    s.add(new Spec("partial_update_sequence_group_aggregate", PkFixtures::partialUpdateSeqGroupAggTable));
    s.add(new Spec("aggregation_parquet_bucket2", t -> aggregationTable(t, "parquet", 2)));
    s.add(new Spec("aggregation_orc_bucket1", t -> aggregationTable(t, "orc", 1)));
    s.add(new Spec("aggregation_remove_record_on_delete", PkFixtures::aggregationRemoveOnDeleteTable));
    s.add(new Spec("dv_parquet_partitioned_bucket2", t -> dvTable(t, "parquet", true, 2, opts())));
    s.add(new Spec("dv_orc_bucket1", t -> dvTable(t, "orc", false, 1, opts())));
    s.add(new Spec("dv_level0_on_top", PkFixtures::dvLevel0Table));
    s.add(
        new Spec(
            "dv_bitmap64",
            t -> dvTable(t, "parquet", false, 2, opts("deletion-vectors.bitmap64", "true"))));
    s.add(new Spec("dv_aggregation", PkFixtures::dvAggregationTable));
    return s;
  }

  static void deleteTree(File f) throws IOException {
    if (!f.exists()) return;
    try (Stream<java.nio.file.Path> walk = Files.walk(f.toPath())) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Writes every table this version can write; never throws for one table. A table whose schema
   * names an option (other than the per-field {@code fields.*} ones) that this version's
   * CoreOptions does not have is skipped: the version would ignore it silently.
   */
  static void run(File root) throws Exception {
    Set<String> known = knownOptions();
    StringBuilder tables = new StringBuilder();
    StringBuilder skipped = new StringBuilder();
    for (Spec spec : specs()) {
      PkTable t = new PkTable(root, spec.name, known);
      long start = System.nanoTime();
      String reason = null;
      try {
        spec.body.write(t);
      } catch (UnknownOption e) {
        reason = "unknown option " + e.getMessage();
      } catch (Throwable e) {
        reason = "failed: " + Main.describe(e);
        if (System.getenv("FRESHET_INTEROP_TRACE") != null) e.printStackTrace();
      }
      if (reason == null) {
        tables.append(spec.name).append('\n');
        System.out.printf(
            "pk table %s: %d snapshots, %d ms%n",
            spec.name, t.recorded, (System.nanoTime() - start) / 1_000_000);
      } else {
        deleteTree(new File(t.path));
        deleteTree(new File(root, "pk/java/" + spec.name));
        skipped.append(spec.name).append('\t').append(reason).append('\n');
        System.out.println("pk table " + spec.name + " skipped: " + reason);
      }
    }
    Fixtures.writeText(new File(root, "pk/TABLES"), tables.toString());
    Fixtures.writeText(new File(root, "pk/SKIPPED"), skipped.toString());
  }

  /**
   * The {@code pk-reread} command: reads every snapshot of the primary-key tables that the
   * {@code fixtures} command of another (older) version wrote into each of {@code dirs}, with the
   * Paimon version on the class path, into {@code <dir>/pk/newest/<table>/s<N>.jsonl} (or
   * {@code .error}), then {@code <dir>/pk/newest/VERSION} and {@code DONE}. Older versions read
   * some of their own tables differently from the newest (e.g. 1.0-1.3 ignore
   * {@code sequence.field.sort-order}=descending when they read), so these rows, not the writer's
   * own, are what freshet must return.
   */
  static void reread(List<String> dirs) throws Exception {
    for (String d : dirs) {
      File root = new File(d).getAbsoluteFile();
      File out = new File(root, "pk/newest");
      deleteTree(out);
      File tables = new File(root, "pk/TABLES");
      if (!tables.isFile()) throw new IllegalArgumentException("no " + tables + ": run fixtures first");
      long start = System.nanoTime();
      int snapshots = 0;
      for (String name : Files.readAllLines(tables.toPath())) {
        if (name.isEmpty()) continue;
        FileStoreTable t = Main.openTable(new File(root, "wh/pk.db/" + name).getPath());
        File dir = new File(out, name);
        for (Snapshot s : Main.sortedSnapshots(t)) {
          StringWriter rows = new StringWriter();
          try {
            Main.readSnapshot(t, s.id(), rows);
            Fixtures.writeText(new File(dir, "s" + s.id() + ".jsonl"), rows.toString());
          } catch (Exception e) {
            Fixtures.writeText(new File(dir, "s" + s.id() + ".error"), Main.describe(e) + "\n");
          }
          snapshots++;
        }
      }
      Fixtures.writeText(new File(out, "VERSION"), Main.paimonVersion() + "\n");
      Fixtures.writeText(new File(out, "DONE"), Main.paimonVersion() + "\n");
      System.out.printf(
          "%s: read %d snapshots with Paimon %s, %d ms%n",
          d, snapshots, Main.paimonVersion(), (System.nanoTime() - start) / 1_000_000);
    }
  }

  static final class UnknownOption extends RuntimeException {
    UnknownOption(String key) {
      super(key);
    }
  }
}
