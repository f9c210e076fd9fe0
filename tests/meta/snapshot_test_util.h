// A minimal snapshot for tests of snapshot files: id, commit time and placeholder manifest lists.
#pragma once

#include <cstdint>
#include <string>

#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

inline Snapshot TestSnapshot(int64_t id, int64_t time_millis) {
  Snapshot s;
  s.id = id;
  s.base_manifest_list = "manifest-list-a-" + std::to_string(id);
  s.delta_manifest_list = "manifest-list-b-" + std::to_string(id);
  s.commit_user = "user";
  s.time_millis = time_millis;
  return s;
}

}  // namespace freshet::meta
