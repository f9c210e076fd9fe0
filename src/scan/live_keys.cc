#include "scan/live_keys.h"

#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace freshet::scan {

LiveKeys LiveKeys::Build(const meta::LiveEntries& live) {
  LiveKeys keys;
  keys.keys.reserve(live->size());
  // Views of the entries' bytes: the live set outlives this function.
  std::unordered_map<std::string_view, uint32_t> ids;
  for (const auto& entry : *live) {
    auto [it, added] = ids.emplace(entry->partition, static_cast<uint32_t>(ids.size()));
    if (added) keys.partitions.push_back(entry->partition);
    keys.keys.push_back(Key{it->second, entry->bucket, entry->total_buckets, entry->file.level,
                            entry->file.schema_id});
  }
  keys.partition_begin.assign(keys.partitions.size() + 1, 0);
  for (const Key& key : keys.keys) ++keys.partition_begin[key.partition + 1];
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
  // object, which the weak pointer proves is still the same one (addresses are reused).
  struct Kept {
    std::weak_ptr<const void> set;
    const void* address;
    std::shared_ptr<const LiveKeys> keys;
  };
  static std::mutex mu;
  static std::vector<Kept> kept;
  {
    std::lock_guard lock(mu);
    for (const Kept& k : kept) {
      if (k.address == live.get() && k.set.lock().get() == live.get()) return k.keys;
    }
  }
  auto keys = std::make_shared<const LiveKeys>(Build(live));
  std::lock_guard lock(mu);
  std::erase_if(kept, [](const Kept& k) { return k.set.expired(); });
  if (kept.size() >= kKeptSets) kept.erase(kept.begin());
  kept.push_back(Kept{live, live.get(), keys});
  return keys;
}

}  // namespace freshet::scan
