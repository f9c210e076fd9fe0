// LiveKeys: the fields of every live entry that planning tests before it looks at a file's
// statistics (partition, bucket, level, schema), in contiguous arrays.
//
// A live set of a million files is ~700 MB of entries. A query of one partition-bucket that has
// never been planned rejects almost all of them by bucket and partition, but walking the entries
// to do so misses the cache once per entry (~30 ms at 10^6). The same walk over these keys reads
// 24 contiguous bytes an entry. They are built once per live set, by the first plan that has no
// verdicts to reuse, and kept while that live set is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "meta/manifest/live_files_cache.h"

namespace freshet::scan {

struct LiveKeys {
  struct Key {
    uint32_t partition;  // index into `partitions`
    int32_t bucket;
    int32_t total_buckets;
    int32_t level;
    int64_t schema_id;
  };
  std::vector<std::string> partitions;  // serialized, distinct, in first-use order
  std::vector<Key> keys;                // per live entry, in the live set's order
  // The entries of partition p are by_partition[partition_begin[p] .. partition_begin[p + 1]),
  // positions in the live set, in order.
  std::vector<uint32_t> partition_begin;
  std::vector<uint32_t> by_partition;

  // The keys of `live`; those of entries also in `previous_live` are copied from `previous`
  // (its keys), and `previous`'s partitions come first, with the same ids.
  static LiveKeys Build(const meta::LiveEntries& live, const LiveKeys* previous = nullptr,
                        const meta::LiveEntries* previous_live = nullptr);
  // The keys of `live`: built on first use and kept (process-wide, for the few most recent live
  // sets) while that live set object is alive.
  static std::shared_ptr<const LiveKeys> Of(const meta::LiveEntries& live);

  // Live sets smaller than this are walked directly.
  static constexpr size_t kMinEntries = 4096;
  static constexpr size_t kKeptSets = 4;
  // Positions are 32-bit: larger live sets are walked directly.
  static constexpr size_t kMaxEntries = size_t{1} << 32;
};

// Pairs each entry of `live` with the same entry (by object) of `previous`: an advanced live set
// keeps the survivors of the previous one in order and appends the added entries, so one walk
// pairs them. Calls `same(i, j)` for live[i] == previous[j] and `added(i)` for the others (in any
// other order, the entries past the first one out of order count as added: correct, less reused).
template <typename Same, typename Added>
void PairWithPrevious(const meta::LiveEntries& live, const meta::LiveEntries* previous, Same&& same,
                      Added&& added) {
  size_t previous_at = 0;
  const size_t previous_size = previous ? (*previous)->size() : 0;
  for (size_t i = 0; i < live->size(); ++i) {
    if (previous_size > 0) {
      const meta::ManifestEntry* entry = (*live)[i].get();
      while (previous_at < previous_size && (**previous)[previous_at].get() != entry) {
        ++previous_at;
      }
    }
    if (previous_at < previous_size) {
      same(i, previous_at++);
    } else {
      added(i);
    }
  }
}

}  // namespace freshet::scan
