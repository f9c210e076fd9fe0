#include "scan/live_keys.h"

#include <algorithm>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace freshet::scan {

LiveKeys LiveKeys::Build(const meta::LiveEntries& live, const LiveKeys* previous,
                         const meta::LiveEntries* previous_live) {
  LiveKeys keys;
  keys.keys.resize(live->size());
  if (previous) keys.partitions = previous->partitions;
  // Partition ids by value, for entries not carried over: views of the previous keys' strings
  // and of the entries' bytes (both outlive this function). Built on the first such entry.
  std::unordered_map<std::string_view, uint32_t> ids;
  bool ids_built = false;
  std::string_view last_partition;
  uint32_t last_id = 0;
  auto id_of = [&](const std::string& partition) -> uint32_t {
    if (ids_built && partition == last_partition) return last_id;
    if (!ids_built) {
      for (uint32_t p = 0; p < keys.partitions.size(); ++p) ids.emplace(previous->partitions[p], p);
      ids_built = true;
    }
    auto [it, added] = ids.emplace(partition, static_cast<uint32_t>(keys.partitions.size()));
    if (added) keys.partitions.push_back(partition);
    last_partition = it->first;
    last_id = it->second;
    return last_id;
  };
  PairWithPrevious(
      live, previous ? previous_live : nullptr,
      [&](size_t i, size_t j) { keys.keys[i] = previous->keys[j]; },
      [&](size_t i) {
        const meta::ManifestEntry& entry = *(*live)[i];
        keys.keys[i] = Key{id_of(entry.partition), entry.bucket, entry.total_buckets,
                           entry.file.level, entry.file.schema_id};
      });
  keys.partition_begin.assign(keys.partitions.size() + 1, 0);
  for (const Key& key : keys.keys) ++keys.partition_begin[key.partition + 1];
  // Partitions carried over that no entry is in any more (dropped, or of another table's set)
  // are left out, so that a chain of advances does not accumulate them.
  if (std::count(keys.partition_begin.begin() + 1, keys.partition_begin.end(), 0) > 0) {
    std::vector<uint32_t> renumbered(keys.partitions.size());
    std::vector<std::string> partitions;
    for (size_t p = 0; p < keys.partitions.size(); ++p) {
      if (keys.partition_begin[p + 1] == 0) continue;
      renumbered[p] = static_cast<uint32_t>(partitions.size());
      partitions.push_back(std::move(keys.partitions[p]));
    }
    for (Key& key : keys.keys) key.partition = renumbered[key.partition];
    keys.partitions = std::move(partitions);
    keys.partition_begin.assign(keys.partitions.size() + 1, 0);
    for (const Key& key : keys.keys) ++keys.partition_begin[key.partition + 1];
  }
  for (size_t p = 1; p < keys.partition_begin.size(); ++p) {
    keys.partition_begin[p] += keys.partition_begin[p - 1];
  }
  keys.by_partition.resize(keys.keys.size());
  std::vector<uint32_t> next(keys.partition_begin.begin(), keys.partition_begin.end() - 1);
  for (size_t i = 0; i < keys.keys.size(); ++i) {
    keys.by_partition[next[keys.keys[i].partition]++] = static_cast<uint32_t>(i);
  }
  return keys;
}

std::shared_ptr<const LiveKeys> LiveKeys::Of(const meta::LiveEntries& live) {
  // A handful of live sets (the latest of the tables being queried): a set is recognized by its
  // object, which the weak pointer proves is still the same one (addresses are reused). A new
  // set is built from the most recent kept one that is still alive: an advanced live set keeps
  // its predecessor's entries, whose keys are copied instead of read from the entries again.
  using Set = meta::LiveEntries::element_type;
  struct Kept {
    std::weak_ptr<Set> set;
    const void* address;
    std::shared_ptr<const LiveKeys> keys;
  };
  static std::mutex mu;
  static std::vector<Kept> kept;
  std::shared_ptr<const LiveKeys> previous;
  meta::LiveEntries previous_live;
  {
    std::lock_guard lock(mu);
    for (const Kept& k : kept) {
      if (k.address == live.get() && k.set.lock().get() == live.get()) return k.keys;
    }
    for (auto k = kept.rbegin(); k != kept.rend() && !previous_live; ++k) {
      previous_live = k->set.lock();
      previous = k->keys;
    }
  }
  auto keys = std::make_shared<const LiveKeys>(
      Build(live, previous_live ? previous.get() : nullptr, &previous_live));
  std::lock_guard lock(mu);
  std::erase_if(kept, [](const Kept& k) { return k.set.expired(); });
  if (kept.size() >= kKeptSets) kept.erase(kept.begin());
  kept.push_back(Kept{live, live.get(), keys});
  return keys;
}

}  // namespace freshet::scan
