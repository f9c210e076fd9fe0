// Conversion between manifest records (as decoded from Avro or ORC manifest files) and the
// structs of manifest.h. Fields are looked up by name, as Java does: a field missing from an older
// file reads as null, and fields newer than this code are ignored.
#pragma once

#include <string_view>

#include "container/avro/avro_schema.h"
#include "container/avro/avro_value.h"
#include "freshet/result.h"
#include "meta/manifest/manifest.h"

namespace freshet::meta {

using container::avro::AvroSchema;
using container::avro::AvroValue;

inline constexpr int32_t kManifestListVersion = 2;
inline constexpr int32_t kManifestEntryVersion = 2;
inline constexpr int32_t kIndexManifestVersion = 1;

// Writer schemas of the Java 2.0 layout.
const AvroSchema& ManifestListAvroSchema();
const AvroSchema& ManifestEntryAvroSchema();
const AvroSchema& IndexManifestAvroSchema();

// `source` names the file in error messages.
Result<ManifestFileMeta> DecodeManifestFileMeta(const AvroValue& record, std::string_view source);
Result<ManifestEntry> DecodeManifestEntry(const AvroValue& record, std::string_view source);
Result<IndexManifestEntry> DecodeIndexManifestEntry(const AvroValue& record,
                                                    std::string_view source);

AvroValue EncodeManifestFileMeta(const ManifestFileMeta& meta);
AvroValue EncodeManifestEntry(const ManifestEntry& entry);
AvroValue EncodeIndexManifestEntry(const IndexManifestEntry& entry);

}  // namespace freshet::meta
