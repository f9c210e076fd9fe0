package dev.freshet.interop;

import java.util.List;
import java.util.UUID;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.data.InternalRow;

/**
 * {@code write-dynamic}: one commit of JSON-lines rows into a dynamic-bucket primary-key table
 * ({@code bucket} = -1). Java's batch write cannot pick the bucket of such a table itself (its
 * row key extractor refuses): the rows go through the bucket assigner a single Flink assigner
 * subtask uses, which loads the table's hash index, and are written with {@code write(row,
 * bucket)}.
 */
final class DynamicBucketWrite {
  private DynamicBucketWrite() {}

  static void run(String table, String input) throws Exception {
    FileStoreTable t = Main.openTable(table);
    List<GenericRow> rows = Main.readRows(t.rowType(), input);
    String user = UUID.randomUUID().toString();
    CoreOptions options = t.coreOptions();
    Integer maxBuckets = options.dynamicBucketMaxBuckets();
    HashBucketAssigner assigner =
        new HashBucketAssigner(
            t.snapshotManager(),
            user,
            t.store().newIndexFileHandler(),
            1,
            1,
            0,
            options.dynamicBucketTargetRowNum(),
            maxBuckets == null ? -1 : maxBuckets);
    KeyAndBucketExtractor<InternalRow> keys = t.createRowKeyExtractor();
    try (TableWriteImpl<?> w = t.newWrite(user);
        TableCommitImpl c = t.newCommit(user)) {
      for (GenericRow r : rows) {
        keys.setRecord(r);
        int bucket = assigner.assign(keys.partition(), keys.trimmedPrimaryKey().hashCode());
        w.write(r, bucket);
      }
      long id = BatchWriteBuilder.COMMIT_IDENTIFIER;
      assigner.prepareCommit(id);
      List<CommitMessage> messages = w.prepareCommit(true, id);
      c.commit(id, messages);
    }
  }
}
