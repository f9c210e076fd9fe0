// What freshet's metadata readers must be able to do with a table another implementation wrote.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace freshet::interop {

struct TableExpectation {
  // Expected Σ rowCount of the live data files, by snapshot id (snapshots not listed are only
  // checked against their own totalRecordCount).
  std::map<int64_t, int64_t> live_records;
  // Number of snapshots the table must have (-1: any).
  int64_t num_snapshots = -1;
  // Data file extension every live file must have ("parquet", "orc"); empty: any.
  std::string file_format;
  // Schema files must re-serialize byte for byte (Java's Jackson layout). pypaimon writes its own
  // JSON layout, so for its tables only the parsed content must round-trip.
  bool schema_bytes_identical = true;
};

// Reads the table at `path` with freshet alone and returns every problem found (empty = good):
//  * each schema file parses and TableSchema::ToJson() reproduces it byte for byte;
//  * each snapshot file parses, and re-parses from Snapshot::ToJson() to an equal snapshot;
//    ids are contiguous and the LATEST lookup finds the newest;
//  * each snapshot's live entries (ReadLiveEntries) sum to its totalRecordCount and to the
//    expectation; its delta list sums to deltaRecordCount;
//  * each live data file exists at <table>/<partition path>/bucket-<b>/<name>, with the partition
//    path computed by freshet's partition-path algorithm, with exactly _FILE_SIZE bytes; buckets
//    and _TOTAL_BUCKETS agree with the schema's `bucket`;
//  * index manifests and changelog lists (if any) read.
std::vector<std::string> CheckTableWithFreshet(const std::string& path,
                                               const TableExpectation& expected);

// Runs `freshet inspect <path> --json` and checks it lists every snapshot with the same record
// counts and live files as CheckTableWithFreshet found. Returns problems (empty = good).
std::vector<std::string> CheckInspectCli(const std::string& path);

// Line-by-line differences of two texts (at most `max_lines`), for failure messages.
std::string DescribeDifference(const std::string& expected, const std::string& actual,
                               int max_lines = 10);

// "\n  - a\n  - b" for failure messages.
std::string ListProblems(const std::vector<std::string>& problems);

}  // namespace freshet::interop
