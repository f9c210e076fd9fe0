// ParsedFileCache: parsed metadata files (snapshots, schemas) by path, reused while the file
// holds the same bytes.
//
// Every query resolves the latest snapshot and its schema; parsing their JSON was most of the
// cost of planning an unchanged table. The files are immutable once published, but a path can
// be reused (a table dropped and created again), so an entry is keyed by path and checked
// against the bytes just read: a hit skips only the parse, never the read, and cannot serve
// another file's content.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/lru_cache.h"
#include "freshet/result.h"

namespace freshet {

template <typename T>
class ParsedFileCache {
 public:
  // `budget`: bytes of file content (and as much again for the parsed objects) kept at most.
  explicit ParsedFileCache(int64_t budget) : budget_(budget) {}

  // The parse of `content` (the bytes of `path` just read): the cached object when the same
  // bytes were parsed last time under this path, otherwise `parse(content)`, then cached.
  Result<std::shared_ptr<const T>> Parse(
      const std::string& path, std::string content,
      const std::function<Result<T>(const std::string&)>& parse) {
    if (auto known = cache_.Get(path); known && (*known)->content == content) {
      return (*known)->parsed;
    }
    FRESHET_ASSIGN_OR_RETURN(T parsed, parse(content));
    auto entry = std::make_shared<const Entry>(
        Entry{std::move(content), std::make_shared<const T>(std::move(parsed))});
    const int64_t cost = 2 * static_cast<int64_t>(entry->content.size()) + 256;
    cache_.Put(path, entry, cost, budget_);
    return entry->parsed;
  }

 private:
  struct Entry {
    std::string content;
    std::shared_ptr<const T> parsed;
  };
  const int64_t budget_;
  LruCache<std::shared_ptr<const Entry>> cache_;
};

}  // namespace freshet
