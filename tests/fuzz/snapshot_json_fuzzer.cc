// Snapshot files: any text must parse into a snapshot or give a clean error; a parsed snapshot
// must print (Java's layout) and parse back to the same snapshot.
#include "fuzz_target.h"
#include "meta/snapshot/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::meta::Snapshot;
  auto snapshot = Snapshot::FromJson(freshet::fuzz::AsText(data, size), "snapshot-fuzz");
  if (!snapshot.ok()) return 0;
  auto again = Snapshot::FromJson(snapshot->ToJson(), "printed");
  if (!again.ok())
    freshet::fuzz::PropertyViolated("a printed snapshot does not parse", again.status());
  snapshot->log_offsets.reset();  // read from Java <= 1.3 files, never written
  if (!(*again == *snapshot)) {
    freshet::fuzz::PropertyViolated("a snapshot changed in a round trip; printed:\n" +
                                    snapshot->ToJson() + "\nre-printed:\n" + again->ToJson());
  }
  return 0;
}
