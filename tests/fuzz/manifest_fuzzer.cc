// Manifest lists, manifests and index manifests: any container bytes must decode into entries or
// give a clean error; decoded entries must encode back to the same entries.
#include "container/avro/avro_file.h"
#include "fuzz_target.h"
#include "meta/manifest/manifest_codec.h"

namespace {

using freshet::container::avro::AvroValue;
using freshet::fuzz::PropertyViolated;

// Decodes `record` with `decode`; a record that decodes must round-trip through `encode`.
template <typename Decode, typename Encode>
void CheckRoundTrip(const AvroValue& record, Decode decode, Encode encode) {
  auto decoded = decode(record, "fuzz-manifest");
  if (!decoded.ok()) return;
  auto again = decode(encode(*decoded), "re-encoded");
  if (!again.ok())
    PropertyViolated("a decoded entry does not decode after encoding", again.status());
  if (!(*again == *decoded)) PropertyViolated("an entry changed in an encode/decode round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace meta = freshet::meta;
  freshet::container::avro::AvroReaderOptions options;
  options.max_block_bytes = 4 << 20;
  auto contents = freshet::container::avro::ReadAvroFile(freshet::fuzz::AsText(data, size),
                                                         "fuzz.avro", options);
  if (!contents.ok()) return 0;
  for (const AvroValue& record : contents->records) {
    CheckRoundTrip(record, meta::DecodeManifestFileMeta, meta::EncodeManifestFileMeta);
    CheckRoundTrip(record, meta::DecodeManifestEntry, meta::EncodeManifestEntry);
    CheckRoundTrip(record, meta::DecodeIndexManifestEntry, meta::EncodeIndexManifestEntry);
  }
  return 0;
}
