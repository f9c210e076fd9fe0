// Releases references on a background thread, for callers on a latency-sensitive path: a query
// that replaces a cached plan would otherwise free the superseded plan (and with it, often, the
// previous live set of 10,000 entry references) before it returns.
#pragma once

#include <memory>
#include <vector>

namespace freshet {

// Drops `objects` on a process-wide background thread (started by the first call). Their
// destructors must not need the caller's locks or thread.
void ReleaseInBackground(std::vector<std::shared_ptr<const void>> objects);

template <typename T>
void ReleaseInBackground(std::vector<std::shared_ptr<const T>>&& objects) {
  if (objects.empty()) return;
  std::vector<std::shared_ptr<const void>> erased;
  erased.reserve(objects.size());
  for (auto& object : objects) erased.push_back(std::move(object));
  ReleaseInBackground(std::move(erased));
}

}  // namespace freshet
