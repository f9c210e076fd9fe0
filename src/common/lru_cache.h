// LruCache: a thread-safe map of shared values bounded by a cost budget (bytes, or 1 per entry
// for a count), least recently used out first. The process-wide caches of immutable things
// (decoded data files, parsed file indexes, planned snapshots) are built on it.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace freshet {

template <typename Value>
class LruCache {
 public:
  // The value under `key` (now the most recently used), if any.
  std::optional<Value> Get(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    recency_.splice(recency_.begin(), recency_, it->second.recency);
    return it->second.value;
  }

  // Stores `value` under `key` (replacing what was there), then drops least recently used
  // entries until the total cost is within `budget`; the entry just stored always stays. The
  // values dropped are destroyed after the lock is released, or moved to `*dropped` when given
  // (a caller on a latency-sensitive path may release them elsewhere).
  void Put(const std::string& key, Value value, int64_t cost, int64_t budget,
           std::vector<Value>* dropped = nullptr) {
    std::vector<Value> released;
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end()) {
        cost_ -= it->second.cost;
        recency_.erase(it->second.recency);
        released.push_back(std::move(it->second.value));
        entries_.erase(it);
      }
      recency_.push_front(key);
      entries_.emplace(key, Entry{std::move(value), cost, recency_.begin()});
      cost_ += cost;
      while (cost_ > budget && recency_.size() > 1) {
        auto last = entries_.find(recency_.back());
        cost_ -= last->second.cost;
        released.push_back(std::move(last->second.value));
        entries_.erase(last);
        recency_.pop_back();
      }
    }
    if (dropped != nullptr) {
      for (Value& value : released) dropped->push_back(std::move(value));
    }
  }

  // The entries whose keys start with `prefix` (their recency unchanged), in no order.
  std::vector<std::pair<std::string, Value>> WithKeyPrefix(const std::string& prefix) const {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, Value>> found;
    for (const auto& [key, entry] : entries_) {
      if (key.compare(0, prefix.size(), prefix) == 0) found.emplace_back(key, entry.value);
    }
    return found;
  }

  int64_t cost() const {
    std::lock_guard lock(mu_);
    return cost_;
  }

  void Clear() {
    std::lock_guard lock(mu_);
    entries_.clear();
    recency_.clear();
    cost_ = 0;
  }

 private:
  struct Entry {
    Value value;
    int64_t cost = 0;
    std::list<std::string>::iterator recency;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> recency_;  // most recently used first
  int64_t cost_ = 0;
};

}  // namespace freshet
