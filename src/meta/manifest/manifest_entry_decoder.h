// ManifestEntryDecoder: manifest entries decoded straight from their Avro encoding.
//
// The generic path (an AvroValue tree per entry, then DecodeManifestEntry finding each field by
// name) allocates a node per field and a string per name lookup; it is most of what a cold plan of
// a large table costs. This decoder resolves a manifest's writer schema once into a plan (for each
// writer field: the ManifestEntry member it fills, or none) and then reads every entry's bytes
// once, into the entry.
//
// It accepts what the generic path accepts for the types it knows: an int where an int is
// required, an int or a long for a long, a string, bytes or fixed for a byte string, each possibly
// in a union with null, records for _FILE and the statistics, arrays for the string lists. A writer
// schema with anything else, or an entry the generic path refuses (a required field missing or
// null, an unknown _KIND, another _VERSION, bytes that do not decode), makes it fail; callers then
// decode that manifest the generic way, which reports the error exactly as before.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "container/avro/avro_file.h"
#include "freshet/result.h"
#include "meta/manifest/manifest.h"

namespace freshet::meta {

// The entries of a manifest file's content (an Avro container file) with the direct decoder. Any
// error means "decode it the generic way" (see above); it is not meant for users.
// `expected_entries` only sizes the result up front (capped: it comes from another file).
// With `run`, only the entries of that run of blocks (SplitManifestIntoRuns of the same content),
// sized by the run's record count.
Result<std::vector<ManifestEntry>> DecodeManifestEntriesDirect(
    std::string_view content, const std::string& source, int64_t expected_entries = 0,
    const container::avro::AvroFileReader::BlockRun* run = nullptr);

// A manifest's blocks in at most `max_runs` runs of about equal entry counts, each decodable on
// its own thread; decoded in order they give the manifest's entries in order. Fails where the
// direct decoder would (callers then read the manifest whole).
Result<std::vector<container::avro::AvroFileReader::BlockRun>> SplitManifestIntoRuns(
    std::string_view content, const std::string& source, size_t max_runs);

}  // namespace freshet::meta
