// A whole-table corruption check shared by the `table` fuzz target and the corrupted-table test:
// small Java-layout tables (Parquet and ORC, partitioned, two buckets, three snapshots) whose
// files are damaged one at a time. After any damage to one file, every read of every snapshot
// must end in a clean error or return exactly the original rows (as a multiset): never a crash,
// a hang, or other rows without an error.
//
// One exception, inherent to the format: ORC has no checksums (neither Java's nor Apache ORC's
// C++ reader can tell), so damage inside an ORC data stream may change values. It must still
// never change the number of rows or crash; such reads are counted, not failed (docs/fuzzing.md).
// Parquet pages carry CRCs, verified on read; metadata damage is caught by the cross-checks of
// the manifests (row counts against the snapshot's totals) and the file checks (row counts,
// field ids, types).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "meta/types/data_type.h"

namespace freshet::fuzz {

struct SubjectFile {
  std::string table;  // directory of the table
  std::string path;   // the file
  std::string kind;   // "snapshot", "hint", "schema", "manifest-list", "manifest", "parquet", "orc"
  std::string content;
};

// One single damage to a file's bytes.
struct Mutation {
  enum class Kind : uint8_t { kFlipBit, kSetByte, kTruncate, kInsertByte, kEraseByte, kZeroRun };
  Kind kind = Kind::kFlipBit;
  uint32_t offset = 0;  // taken modulo the content size
  uint8_t value = 0;    // the bit (kFlipBit), the byte (kSetByte, kInsertByte), the run length
};
std::string ApplyMutation(std::string content, const Mutation& mutation);
std::string DescribeMutation(const Mutation& mutation, size_t content_size);

// What the reads of every snapshot returned after one file was damaged.
struct DamageReport {
  int64_t failed_reads = 0;    // ended in an error (what most damage does)
  int64_t intact_reads = 0;    // returned exactly the original rows
  int64_t changed_values = 0;  // ORC data files only: the original number of rows, other values
  std::string violation;       // "" unless a read broke the rule above
};

class CorruptionSubject {
 public:
  // Writes the tables under `dir` (which must exist and be empty) and reads them once.
  static Result<std::unique_ptr<CorruptionSubject>> Make(const std::string& dir);

  // The tables' files in an order that does not depend on the random parts of their names.
  const std::vector<SubjectFile>& files() const { return files_; }

  // Puts `content` in place of files()[index], reads every snapshot of its table (and the latest
  // through the LATEST hint), and restores the file.
  DamageReport CheckReplaced(size_t index, std::string_view content);

 private:
  struct TableRows {
    std::string path;
    std::vector<meta::DataField> fields;  // of the undamaged schema
    std::vector<int64_t> snapshot_ids;
    std::vector<std::string> rows;  // per snapshot: the rows as JSON lines
  };
  CorruptionSubject() = default;
  Status Build(const std::string& dir);
  Status AddTable(const std::string& path, const std::string& format);
  const TableRows& RowsOf(const std::string& table) const;

  std::vector<TableRows> tables_;
  std::vector<SubjectFile> files_;
};

}  // namespace freshet::fuzz
