package dev.freshet.interop;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * freshet's Java Paimon reference harness. Usage: {@code java -jar freshet-interop-java.jar
 * <command> [options]}; see {@link #USAGE} and interop/README.md.
 */
public final class Main {
  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar freshet-interop-java.jar <command> [options]",
          "",
          "commands:",
          "  create    --table <path> --schema <schema.json>",
          "            create a Paimon table (schema-0) at <path> (LocalFileIO + SchemaManager)",
          "  write     --table <path> --input <rows.jsonl> [--overwrite]",
          "            [--commit-user U] [--commit-id N]",
          "            write JSON-lines rows in one commit (optional \"_kind\": +I/-U/+U/-D per row)",
          "  write-dynamic --table <path> --input <rows.jsonl>",
          "            write rows in one commit into a dynamic-bucket (bucket = -1) primary-key",
          "            table, buckets from Java's HashBucketAssigner (one assigner)",
          "  read      --table <path> [--snapshot N | --tag NAME | --all-snapshots]",
          "            [--output <out.jsonl>] (--tag: scan.tag-name)",
          "  read      --table <path> (--incremental-between A,B |",
          "            --incremental-between-timestamp A,B) [--scan-mode M]",
          "            print the rows of Java's batch incremental read (incremental-between, two",
          "            tags or two snapshot ids; incremental-between-scan-mode M), each with a",
          "            \"_kind\" key (+I, -U, +U, -D)",
          "            print the rows of the latest snapshot (or snapshot N) as JSON lines;",
          "            --all-snapshots: for each snapshot, ascending, a line {\"__snapshot\": N}",
          "            followed by its rows",
          "  bench-plan --table <path> [--query point|partition|full] [--partitions P] [--buckets B]",
          "            [--commits C] [--runs R]",
          "            plan the queries of bench/planning_bench.cc (a table its `create` made):",
          "            cold, warm and new-literal planning times (docs/benchmarks.md)",
          "  plan-files --table <path> --equal <column>=<JSON value>",
          "            print the number of data files Java's batch scan plans for the filter",
          "            column = value (statistics and file-index pruning; docs/file-index.md)",
          "  bucket    --table <path> --input <rows.jsonl>",
          "            print the bucket Java's write path assigns to each input row",
          "  snapshots --table <path>",
          "            print '<id> <commitKind>' for each snapshot",
          "  tag       --table <path> (--create NAME [--snapshot N] [--time-retained D] |",
          "            --delete NAME | --list)",
          "            create (FileStoreTable.createTag), delete or list tags; --list prints",
          "            '<name> <snapshotId>' per tag, by snapshot id then name",
          "  bench     [--rows N] [--format parquet|orc] [--dir D] [--seed S] [--runs R] [--keep]",
          "            append benchmark: per run, write N generated rows in one commit into a",
          "            fresh table under D/bench.db, read them fully, print a RESULT line",
          "            (docs/benchmarks.md); --verify <path> only reads a table and checksums it",
          "  bench-pk  --workload upsert|mor [--rows N] [--format parquet|orc] [--dir D] [--seed S]",
          "            [--commit-rows C] [--runs R] [--buckets K] [--compaction] [--full-compact]",
          "            [--keep] (--compaction: writers compact, the last commit waits for it;",
          "            --full-compact: then time a full compaction, a COMPACT line)",
          "            primary-key benchmark (docs/benchmarks.md): per run, write the upsert stream",
          "            or the 8 overlapping runs into a fresh 4-bucket deduplicate table, print a",
          "            RESULT line with the merged table's checksum; --read <path>[,<path>...]",
          "            [--runs R]: read tables fully (merge-on-read), a READ line per run",
          "  fixtures  --dir <D> [--pk-only]",
          "            write the fixed set of append tables (every type, layouts, snapshots,",
          "            schema evolution) with deterministic rows into the empty or missing",
          "            directory D, with the rows each snapshot holds and bucket-id vectors",
          "            (docs/interop-tests.md); run it with any Paimon bundle on the class path;",
          "            it also writes primary-key tables of every merge engine under D/wh/pk.db",
          "            with what this version reads at each snapshot (D/pk/); --pk-only: only those,",
          "            and no D/DONE (to try them out)",
          "  pk-reread --dirs <D1,D2,...>",
          "            read every snapshot of the primary-key tables that `fixtures` wrote into",
          "            each D (with another version) into D/pk/newest/ (docs/interop-tests.md)",
          "  compact   --table <path> [--full]",
          "            compact every (partition, bucket) that holds files in one COMPACT commit",
          "            (--full: full compaction, all files into the highest level)",
          "  stream-read --table <path> [--scan-mode M] [--snapshot N]",
          "            Java's streaming read (default from-snapshot at the earliest snapshot) until",
          "            every committed snapshot is read: per plan a line {\"__snapshot\": N}, then",
          "            its rows with a leading \"_ROW_KIND\" key",
          "  version   print the Paimon version on the class path",
          "",
          "Paths may be absolute or relative to the working directory. Errors: one line on",
          "stderr, non-zero exit code. Set FRESHET_INTEROP_LOG=info|debug for Paimon logs.");

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
  private static final JsonFactory JSON = new JsonFactory();

  /** Usage errors (exit code 2). */
  static final class UsageException extends RuntimeException {
    UsageException(String msg) {
      super(msg);
    }
  }

  public static void main(String[] argv) {
    String level = System.getenv("FRESHET_INTEROP_LOG");
    System.setProperty(
        "org.slf4j.simpleLogger.defaultLogLevel", level == null || level.isEmpty() ? "error" : level);
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    int rc;
    try {
      rc = run(argv);
    } catch (UsageException e) {
      System.err.println("error: " + e.getMessage() + " (see --help)");
      rc = 2;
    } catch (Throwable t) {
      System.err.println("error: " + describe(t));
      if (System.getenv("FRESHET_INTEROP_TRACE") != null) t.printStackTrace();
      rc = 1;
    }
    System.out.flush();
    System.exit(rc);
  }

  /** One line: the outermost message plus the root cause if it differs. */
  static String describe(Throwable t) {
    String msg = t.getMessage() != null ? t.getMessage() : t.getClass().getName();
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    if (root != t && root.getMessage() != null && !msg.contains(root.getMessage())) {
      msg = msg + ": caused by " + root.getClass().getSimpleName() + ": " + root.getMessage();
    } else if (root != t && root.getMessage() == null) {
      msg = msg + ": caused by " + root.getClass().getName();
    }
    return msg.replace('\n', ' ').replace('\r', ' ');
  }

  static int run(String[] argv) throws Exception {
    if (argv.length == 0 || argv[0].equals("--help") || argv[0].equals("-h") || argv[0].equals("help")) {
      System.out.println(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    String cmd = argv[0];
    Map<String, String> opts = parseOptions(argv);
    if (opts.containsKey("help")) {
      System.out.println(USAGE);
      return 0;
    }
    switch (cmd) {
      case "create":
        allow(opts, "table", "schema");
        create(require(opts, "table"), require(opts, "schema"));
        return 0;
      case "write":
        allow(opts, "table", "input", "overwrite", "commit-user", "commit-id");
        write(
            require(opts, "table"),
            require(opts, "input"),
            opts.containsKey("overwrite"),
            opts.get("commit-user"),
            opts.containsKey("commit-id") ? parseLong(opts.get("commit-id"), "--commit-id") : null);
        return 0;
      case "write-dynamic":
        allow(opts, "table", "input");
        DynamicBucketWrite.run(require(opts, "table"), require(opts, "input"));
        return 0;
      case "read":
        allow(
            opts, "table", "snapshot", "tag", "all-snapshots", "output", "incremental-between",
            "incremental-between-timestamp", "scan-mode");
        for (String key : new String[] {"incremental-between", "incremental-between-timestamp"}) {
          if (opts.containsKey(key)) {
            readIncremental(require(opts, "table"), key, opts.get(key), opts.get("scan-mode"));
            return 0;
          }
        }
        if (opts.containsKey("all-snapshots") && opts.containsKey("snapshot")) {
          throw new UsageException("--all-snapshots and --snapshot are mutually exclusive");
        }
        if (opts.containsKey("tag")) {
          readTag(require(opts, "table"), require(opts, "tag"));
          return 0;
        }
        read(
            require(opts, "table"),
            opts.containsKey("snapshot") ? parseLong(opts.get("snapshot"), "--snapshot") : null,
            opts.containsKey("all-snapshots"),
            opts.get("output"));
        return 0;
      case "plan-files":
        allow(opts, "table", "equal");
        System.out.println(planFiles(require(opts, "table"), require(opts, "equal")));
        return 0;
      case "bucket":
        allow(opts, "table", "input");
        bucket(require(opts, "table"), require(opts, "input"));
        return 0;
      case "tag":
        allow(opts, "table", "create", "delete", "list", "snapshot", "time-retained");
        tag(openTable(require(opts, "table")), opts);
        return 0;
      case "snapshots":
        allow(opts, "table");
        snapshots(require(opts, "table"));
        return 0;
      case "bench":
        allow(opts, "rows", "format", "dir", "seed", "runs", "keep", "verify");
        if (opts.containsKey("verify")) {
          Bench.verify(require(opts, "verify"));
        } else {
          Bench.run(
              opts.containsKey("rows") ? parseLong(opts.get("rows"), "--rows") : 10_000_000L,
              opts.getOrDefault("format", "parquet"),
              opts.getOrDefault("dir", "/tmp/freshet-bench"),
              opts.containsKey("seed") ? parseLong(opts.get("seed"), "--seed") : 42L,
              opts.containsKey("runs") ? (int) parseLong(opts.get("runs"), "--runs") : 1,
              opts.containsKey("keep"));
        }
        return 0;
      case "bench-pk":
        allow(opts, "workload", "rows", "format", "dir", "seed", "commit-rows", "runs", "keep",
            "read", "buckets", "compaction", "full-compact");
        {
          int runs = opts.containsKey("runs") ? (int) parseLong(opts.get("runs"), "--runs") : 1;
          if (opts.containsKey("read")) {
            BenchPk.read(java.util.Arrays.asList(require(opts, "read").split(",")), runs);
          } else {
            BenchPk.run(
                require(opts, "workload"),
                opts.containsKey("rows") ? parseLong(opts.get("rows"), "--rows") : 10_000_000L,
                opts.getOrDefault("format", "parquet"),
                opts.getOrDefault("dir", "/tmp/freshet-bench"),
                opts.containsKey("seed") ? parseLong(opts.get("seed"), "--seed") : 42L,
                opts.containsKey("commit-rows")
                    ? parseLong(opts.get("commit-rows"), "--commit-rows")
                    : 1_000_000L,
                runs,
                opts.containsKey("keep"),
                opts.containsKey("buckets") ? (int) parseLong(opts.get("buckets"), "--buckets") : 4,
                opts.containsKey("compaction"),
                opts.containsKey("full-compact"));
          }
        }
        return 0;
      case "bench-plan":
        allow(opts, "table", "query", "partitions", "buckets", "commits", "runs");
        BenchPlan.run(
            require(opts, "table"),
            opts.getOrDefault("query", "point"),
            (int) parseLong(opts.getOrDefault("partitions", "1000"), "--partitions"),
            (int) parseLong(opts.getOrDefault("buckets", "10"), "--buckets"),
            parseLong(opts.getOrDefault("commits", "100"), "--commits"),
            opts.containsKey("runs") ? (int) parseLong(opts.get("runs"), "--runs") : 200);
        return 0;
      case "fixtures":
        allow(opts, "dir", "pk-only");
        Fixtures.run(require(opts, "dir"), opts.containsKey("pk-only"));
        return 0;
      case "pk-reread":
        allow(opts, "dirs");
        PkFixtures.reread(java.util.Arrays.asList(require(opts, "dirs").split(",")));
        return 0;
      case "compact":
        allow(opts, "table", "full");
        compactTable(openTable(require(opts, "table")), opts.containsKey("full"));
        return 0;
      case "stream-read":
        allow(opts, "table", "scan-mode", "snapshot");
        StreamRead.run(
            require(opts, "table"),
            opts.get("scan-mode"),
            opts.containsKey("snapshot") ? parseLong(opts.get("snapshot"), "--snapshot") : null);
        return 0;
      case "version":
        allow(opts);
        System.out.println(paimonVersion());
        return 0;
      default:
        throw new UsageException("unknown command '" + cmd + "'");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // options

  private static final java.util.Set<String> FLAGS =
      java.util.Set.of(
          "overwrite", "help", "keep", "all-snapshots", "full", "pk-only", "compaction",
          "full-compact", "list");

  static Map<String, String> parseOptions(String[] argv) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 1; i < argv.length; i++) {
      String a = argv[i];
      if (!a.startsWith("--")) throw new UsageException("unexpected argument '" + a + "'");
      String key = a.substring(2);
      String value;
      int eq = key.indexOf('=');
      if (eq >= 0) {
        value = key.substring(eq + 1);
        key = key.substring(0, eq);
      } else if (FLAGS.contains(key)) {
        value = "true";
      } else {
        if (i + 1 >= argv.length) throw new UsageException("option --" + key + " needs a value");
        value = argv[++i];
      }
      if (opts.put(key, value) != null) throw new UsageException("option --" + key + " given twice");
    }
    return opts;
  }

  static void allow(Map<String, String> opts, String... names) {
    List<String> ok = java.util.Arrays.asList(names);
    for (String k : opts.keySet()) {
      if (!ok.contains(k)) throw new UsageException("unknown option --" + k);
    }
  }

  static String require(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null || v.isEmpty()) throw new UsageException("missing --" + name);
    return v;
  }

  static long parseLong(String s, String what) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(what + " must be an integer, got '" + s + "'");
    }
  }

  static String paimonVersion() {
    String res = "/META-INF/maven/org.apache.paimon/paimon-bundle/pom.properties";
    try (java.io.InputStream in = Main.class.getResourceAsStream(res)) {
      if (in != null) {
        java.util.Properties p = new java.util.Properties();
        p.load(in);
        String v = p.getProperty("version");
        if (v != null) return v;
      }
    } catch (IOException e) {
      // fall through
    }
    return "unknown";
  }

  // ---------------------------------------------------------------------------------------------
  // tables

  static Path tablePath(String table) {
    return new Path(new File(table).getAbsoluteFile().toPath().normalize().toString());
  }

  static FileStoreTable openTable(String table) throws Exception {
    FileIO io = LocalFileIO.create();
    Path p = tablePath(table);
    if (!new SchemaManager(io, p).latest().isPresent()) {
      throw new IllegalArgumentException("no Paimon table at " + p + " (no schema file)");
    }
    return FileStoreTableFactory.create(io, p);
  }

  static void create(String table, String schemaFile) throws Exception {
    JsonNode spec = readJsonFile(schemaFile);
    Schema schema = SchemaSpec.toSchema(spec);
    FileIO io = LocalFileIO.create();
    Path p = tablePath(table);
    SchemaManager sm = new SchemaManager(io, p);
    if (sm.latest().isPresent()) throw new IllegalArgumentException("table already exists at " + p);
    sm.createTable(schema);
  }

  static void write(String table, String input, boolean overwrite, String user, Long commitId)
      throws Exception {
    FileStoreTable t = openTable(table);
    List<GenericRow> rows = readRows(t.rowType(), input);
    if (user == null && commitId == null) {
      BatchWriteBuilder wb = t.newBatchWriteBuilder();
      if (overwrite) wb = wb.withOverwrite();
      // The IOManager: a batch write of a lookup table (deletion vectors) compacts with lookup.
      try (org.apache.paimon.disk.IOManager io = tempIOManager();
          BatchTableWrite w = wb.newWrite();
          BatchTableCommit c = wb.newCommit()) {
        ((org.apache.paimon.table.sink.TableWrite) w).withIOManager(io);
        for (GenericRow r : rows) w.write(r);
        c.commit(w.prepareCommit());
      }
    } else {
      String u = user != null ? user : UUID.randomUUID().toString();
      long id = commitId != null ? commitId : BatchWriteBuilder.COMMIT_IDENTIFIER;
      try (TableWriteImpl<?> w = t.newWrite(u);
          TableCommitImpl c = t.newCommit(u)) {
        if (overwrite) {
          w.withIgnorePreviousFiles(true);
          c.withOverwrite(Collections.emptyMap());
        }
        for (GenericRow r : rows) w.write(r);
        List<CommitMessage> msgs = w.prepareCommit(true, id);
        c.commit(id, msgs);
      }
    }
  }

  static void read(String table, Long snapshot, boolean allSnapshots, String output)
      throws Exception {
    FileStoreTable t = openTable(table);
    if (snapshot != null && !t.snapshotManager().snapshotExists(snapshot)) {
      throw new IllegalArgumentException("snapshot " + snapshot + " does not exist");
    }
    Writer out =
        output == null
            ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
            : Files.newBufferedWriter(new File(output).toPath(), StandardCharsets.UTF_8);
    try {
      if (allSnapshots) {
        // One JVM for every snapshot: a marker line, then that snapshot's rows.
        for (Snapshot s : sortedSnapshots(t)) {
          out.write("{\"__snapshot\": " + s.id() + "}\n");
          readSnapshot(t, s.id(), out);
        }
      } else {
        readSnapshot(t, snapshot, out);
      }
    } finally {
      if (output == null) out.flush();
      else out.close();
    }
  }

  /** The data files of the latest snapshot Java's batch scan keeps for {@code column = value}. */
  static int planFiles(String table, String equal) throws Exception {
    int at = equal.indexOf('=');
    if (at <= 0) throw new UsageException("--equal wants <column>=<JSON value>, not " + equal);
    FileStoreTable t = openTable(table);
    RowType type = t.rowType();
    String column = equal.substring(0, at);
    int index = type.getFieldIndex(column);
    if (index < 0) throw new IllegalArgumentException("no column " + column);
    Object literal =
        Values.readValue(
            type.getTypeAt(index), MAPPER.readTree(equal.substring(at + 1)), "--equal");
    ReadBuilder rb =
        t.newReadBuilder()
            .withFilter(
                new org.apache.paimon.predicate.PredicateBuilder(type).equal(index, literal));
    int files = 0;
    for (Split split : rb.newScan().plan().splits()) {
      files += ((org.apache.paimon.table.source.DataSplit) split).dataFiles().size();
    }
    return files;
  }

  /** Creates, deletes or lists the tags of a table (the tag command). */
  static void tag(FileStoreTable t, Map<String, String> opts) throws Exception {
    if (opts.containsKey("create")) {
      String name = opts.get("create");
      java.time.Duration retained =
          opts.containsKey("time-retained")
              ? org.apache.paimon.utils.TimeUtils.parseDuration(opts.get("time-retained"))
              : null;
      if (opts.containsKey("snapshot")) {
        long id = parseLong(opts.get("snapshot"), "--snapshot");
        if (retained != null) t.createTag(name, id, retained);
        else t.createTag(name, id);
      } else if (retained != null) {
        t.createTag(name, retained);
      } else {
        t.createTag(name);
      }
    } else if (opts.containsKey("delete")) {
      t.deleteTag(opts.get("delete"));
    } else if (opts.containsKey("list")) {
      for (Map.Entry<Snapshot, List<String>> e : t.tagManager().tags().entrySet()) {
        List<String> names = new java.util.ArrayList<>(e.getValue());
        java.util.Collections.sort(names);
        for (String name : names) System.out.println(name + " " + e.getKey().id());
      }
    } else {
      throw new UsageException("tag wants --create NAME, --delete NAME or --list");
    }
  }

  /** Writes the rows of a batch incremental read, each with its row kind as "_kind". */
  static void readIncremental(String table, String key, String between, String scanMode)
      throws Exception {
    Map<String, String> dyn = new HashMap<>();
    dyn.put(key, between);
    if (scanMode != null) dyn.put("incremental-between-scan-mode", scanMode);
    FileStoreTable t = openTable(table).copy(dyn);
    RowType type = t.rowType();
    ReadBuilder rb = t.newReadBuilder();
    Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        InternalRow row;
        while ((row = batch.next()) != null) {
          String json = rowToJson(type, row);
          out.write("{\"_kind\": \"" + row.getRowKind().shortString() + "\", " + json.substring(1));
          out.write('\n');
        }
        batch.releaseBatch();
      }
    }
    out.flush();
  }

  /** Writes the rows of tag {@code tag} (scan.tag-name) as JSON lines. */
  static void readTag(String table, String tag) throws Exception {
    FileStoreTable t =
        openTable(table).copy(java.util.Collections.singletonMap("scan.tag-name", tag));
    Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    readSnapshot(t, null, out);
    out.flush();
  }

  /** Writes the rows of snapshot {@code snapshot} (the latest when null) as JSON lines. */
  static void readSnapshot(FileStoreTable t, Long snapshot, Writer out) throws Exception {
    if (snapshot != null) {
      Map<String, String> dyn = new HashMap<>();
      dyn.put("scan.snapshot-id", Long.toString(snapshot));
      t = t.copy(dyn);
    }
    RowType type = t.rowType();
    ReadBuilder rb = t.newReadBuilder();
    List<Split> splits = rb.newScan().plan().splits();
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      RecordReader.RecordIterator<InternalRow> batch;
      while ((batch = reader.readBatch()) != null) {
        InternalRow row;
        while ((row = batch.next()) != null) {
          out.write(rowToJson(type, row));
          out.write('\n');
        }
        batch.releaseBatch();
      }
    }
  }

  /**
   * Compacts every (partition, bucket) of the latest snapshot that holds files (all levels: the
   * raw snapshot reader, without the level-0 filter of deletion-vector and first-row batch scans)
   * with {@code BatchTableWrite.compact(partition, bucket, full)}, in one commit. Nothing to do
   * for a table without snapshots.
   */
  static void compactTable(FileStoreTable table, boolean full) throws Exception {
    // As Java's compact action: a dedicated compaction also compacts write-only tables.
    FileStoreTable t = table.copy(java.util.Collections.singletonMap("write-only", "false"));
    if (t.snapshotManager().latestSnapshotId() == null) return;
    java.util.Set<List<Object>> seen = new java.util.LinkedHashSet<>();
    BatchWriteBuilder wb = t.newBatchWriteBuilder();
    try (org.apache.paimon.disk.IOManager io = tempIOManager();
        BatchTableWrite w = wb.newWrite();
        BatchTableCommit c = wb.newCommit()) {
      ((org.apache.paimon.table.sink.TableWrite) w).withIOManager(io); // as in PkFixtures
      for (Split s : t.newSnapshotReader().read().splits()) {
        org.apache.paimon.table.source.DataSplit ds = (org.apache.paimon.table.source.DataSplit) s;
        if (seen.add(java.util.Arrays.asList(ds.partition(), ds.bucket()))) {
          w.compact(ds.partition(), ds.bucket(), full);
        }
      }
      c.commit(w.prepareCommit());
    }
  }

  /** An IOManager in java.io.tmpdir: lookup compaction (deletion vectors, first-row) needs one. */
  static org.apache.paimon.disk.IOManager tempIOManager() {
    return org.apache.paimon.disk.IOManager.create(System.getProperty("java.io.tmpdir"));
  }

  static List<Snapshot> sortedSnapshots(FileStoreTable t) throws Exception {
    Iterator<Snapshot> it = t.snapshotManager().snapshots();
    List<Snapshot> all = new ArrayList<>();
    it.forEachRemaining(all::add);
    all.sort((a, b) -> Long.compare(a.id(), b.id()));
    return all;
  }

  static void bucket(String table, String input) throws Exception {
    FileStoreTable t = openTable(table);
    List<GenericRow> rows = readRows(t.rowType(), input);
    StringBuilder sb = new StringBuilder();
    try (TableWriteImpl<?> w = t.newWrite("freshet-bucket-probe")) {
      for (GenericRow r : rows) sb.append(w.getBucket(r)).append('\n');
    }
    System.out.print(sb);
  }

  static void snapshots(String table) throws Exception {
    for (Snapshot s : sortedSnapshots(openTable(table))) {
      System.out.println(s.id() + " " + s.commitKind());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // JSON

  /**
   * Separators as Python's {@code json.dumps} default (and the golden expected files): {@code ", "}
   * between entries/elements and {@code ": "} after keys; no other whitespace.
   */
  static final class PySeparators extends MinimalPrettyPrinter {
    private static final long serialVersionUID = 1L;

    @Override
    public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
      g.writeRaw(": ");
    }

    @Override
    public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
      g.writeRaw(", ");
    }

    @Override
    public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
      g.writeRaw(", ");
    }
  }

  static String rowToJson(RowType type, InternalRow row) throws IOException {
    StringWriter sw = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(sw).setPrettyPrinter(new PySeparators())) {
      Values.writeRow(g, type, row);
    }
    return sw.toString();
  }

  static JsonNode readJsonFile(String file) throws IOException {
    File f = new File(file);
    if (!f.isFile()) throw new IllegalArgumentException("no such file: " + file);
    try {
      return MAPPER.readTree(f);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file + ": invalid JSON: " + e.getMessage().split("\n")[0], e);
    }
  }

  static List<GenericRow> readRows(RowType type, String file) throws IOException {
    File f = new File(file);
    if (!f.isFile()) throw new IllegalArgumentException("no such file: " + file);
    List<GenericRow> rows = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(f.toPath(), StandardCharsets.UTF_8)) {
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (line.trim().isEmpty()) continue;
        String where = file + ":" + lineNo;
        JsonNode node;
        try {
          node = MAPPER.readTree(line);
        } catch (IOException e) {
          throw new IllegalArgumentException(where + ": invalid JSON: " + e.getMessage().split("\n")[0]);
        }
        if (!node.isObject()) throw new IllegalArgumentException(where + ": expected a JSON object");
        GenericRow row = Values.readRow(type, node, where);
        JsonNode kind = node.get("_kind");
        if (kind != null && !kind.isNull()) {
          RowKind rk;
          try {
            rk = RowKind.fromShortString(kind.asText());
          } catch (RuntimeException e) {
            throw new IllegalArgumentException(where + ": bad _kind '" + kind.asText() + "' (want +I, -U, +U or -D)");
          }
          row.setRowKind(rk);
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
