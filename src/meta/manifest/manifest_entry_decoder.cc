#include "meta/manifest/manifest_entry_decoder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "container/avro/avro_binary.h"
#include "container/avro/avro_file.h"
#include "meta/manifest/manifest_codec.h"

namespace freshet::meta {

namespace {

using container::avro::AvroDecoder;
using container::avro::AvroFileReader;
using container::avro::AvroNode;
using container::avro::AvroSchema;
using container::avro::AvroType;

// What a writer field fills.
enum class Target : uint8_t {
  kSkip,
  // entry
  kVersion,
  kKind,
  kPartition,
  kBucket,
  kTotalBuckets,
  kFile,
  // _FILE
  kFileName,
  kFileSize,
  kRowCount,
  kMinKey,
  kMaxKey,
  kKeyStats,
  kValueStats,
  kMinSequence,
  kMaxSequence,
  kSchemaId,
  kLevel,
  kExtraFiles,
  kCreationTime,
  kDeleteRowCount,
  kEmbeddedIndex,
  kFileSource,
  kValueStatsCols,
  kExternalPath,
  kFirstRowId,
  kWriteCols,
  // statistics
  kMinValues,
  kMaxValues,
  kNullCounts,
  kCount
};

// How a target's value is encoded.
enum class Shape : uint8_t { kInt, kLong, kBytes, kStrings, kNullableLongs, kFileRecord, kStats };

struct TargetInfo {
  const char* name;
  Shape shape;
  bool required;  // the generic path refuses the entry when it is missing or null
};

constexpr std::array<TargetInfo, static_cast<size_t>(Target::kCount)> kTargets{{
    {"", Shape::kInt, false},  // kSkip
    {"_VERSION", Shape::kInt, false},
    {"_KIND", Shape::kInt, true},
    {"_PARTITION", Shape::kBytes, true},
    {"_BUCKET", Shape::kInt, true},
    {"_TOTAL_BUCKETS", Shape::kInt, true},
    {"_FILE", Shape::kFileRecord, true},
    {"_FILE_NAME", Shape::kBytes, true},
    {"_FILE_SIZE", Shape::kLong, true},
    {"_ROW_COUNT", Shape::kLong, true},
    {"_MIN_KEY", Shape::kBytes, true},
    {"_MAX_KEY", Shape::kBytes, true},
    {"_KEY_STATS", Shape::kStats, false},
    {"_VALUE_STATS", Shape::kStats, false},
    {"_MIN_SEQUENCE_NUMBER", Shape::kLong, true},
    {"_MAX_SEQUENCE_NUMBER", Shape::kLong, true},
    {"_SCHEMA_ID", Shape::kLong, true},
    {"_LEVEL", Shape::kInt, true},
    {"_EXTRA_FILES", Shape::kStrings, false},
    {"_CREATION_TIME", Shape::kLong, false},
    {"_DELETE_ROW_COUNT", Shape::kLong, false},
    {"_EMBEDDED_FILE_INDEX", Shape::kBytes, false},
    {"_FILE_SOURCE", Shape::kInt, false},
    {"_VALUE_STATS_COLS", Shape::kStrings, false},
    {"_EXTERNAL_PATH", Shape::kBytes, false},
    {"_FIRST_ROW_ID", Shape::kLong, false},
    {"_WRITE_COLS", Shape::kStrings, false},
    {"_MIN_VALUES", Shape::kBytes, true},
    {"_MAX_VALUES", Shape::kBytes, true},
    {"_NULL_COUNTS", Shape::kNullableLongs, false},
}};

const TargetInfo& InfoOf(Target t) { return kTargets[static_cast<size_t>(t)]; }

// The targets of each record level, in the order of kTargets.
constexpr std::pair<Target, Target> kEntryTargets{Target::kVersion, Target::kFile};
constexpr std::pair<Target, Target> kFileTargets{Target::kFileName, Target::kWriteCols};
constexpr std::pair<Target, Target> kStatsTargets{Target::kMinValues, Target::kNullCounts};

// The signal to fall back to the generic decoder; its message is never shown to users.
Status Unsupported(const char* what) { return Status::NotImplemented("direct decoding: ", what); }

bool IsBytesLike(AvroType t) {
  return t == AvroType::kString || t == AvroType::kBytes || t == AvroType::kFixed;
}

// Whether a value of `node` (not a union) can be read as `shape`.
bool Fits(const AvroNode& node, Shape shape) {
  switch (shape) {
    case Shape::kInt:
      return node.type == AvroType::kInt;
    case Shape::kLong:
      return node.type == AvroType::kInt || node.type == AvroType::kLong;
    case Shape::kBytes:
      return IsBytesLike(node.type);
    case Shape::kStrings:
    case Shape::kNullableLongs: {
      if (node.type != AvroType::kArray) return false;
      auto item_fits = [&](const AvroNode& item) {
        return shape == Shape::kStrings ? IsBytesLike(item.type)
                                        : item.type == AvroType::kNull || Fits(item, Shape::kLong);
      };
      const AvroNode& items = *node.items;
      if (items.type != AvroType::kUnion) return item_fits(items);
      for (const AvroNode* branch : items.branches) {
        if (shape == Shape::kStrings && branch->type == AvroType::kNull) continue;  // fails later
        if (!item_fits(*branch)) return false;
      }
      return true;
    }
    case Shape::kFileRecord:
    case Shape::kStats:
      return node.type == AvroType::kRecord;
  }
  return false;
}

// Every branch of `node` (itself when not a union) is null or fits `shape`.
bool FitsOrNull(const AvroNode& node, Shape shape) {
  if (node.type != AvroType::kUnion) return node.type == AvroType::kNull || Fits(node, shape);
  for (const AvroNode* branch : node.branches) {
    if (branch->type != AvroType::kNull && !Fits(*branch, shape)) return false;
  }
  return true;
}

struct FieldStep {
  Target target;
  const AvroNode* node;
};

// The steps of one writer record, and the targets it must see non-null.
struct RecordPlan {
  const AvroNode* node = nullptr;
  std::vector<FieldStep> steps;
  uint64_t required = 0;  // bit per Target
};

// Stores a decoded value (switch cases cannot declare the temporary FRESHET_ASSIGN_OR_RETURN does).
template <typename T, typename U>
Status Store(Result<U> value, T* out) {
  if (!value.ok()) return value.status();
  *out = *std::move(value);
  return Status::OK();
}

uint64_t Bit(Target t) { return uint64_t{1} << static_cast<unsigned>(t); }

class Decoder {
 public:
  explicit Decoder(const AvroSchema& schema) : schema_(schema) {}

  Status Resolve() {
    const AvroNode& root = schema_.root();
    if (root.type != AvroType::kRecord) return Unsupported("the root is not a record");
    return Plan(root, kEntryTargets, &entry_);
  }

  Status DecodeEntry(AvroDecoder* in, ManifestEntry* e) {
    uint64_t seen = 0;
    for (const FieldStep& step : entry_.steps) {
      FRESHET_ASSIGN_OR_RETURN(const AvroNode* node, Branch(step.node, in));
      if (node->type == AvroType::kNull) continue;
      seen |= Bit(step.target);
      switch (step.target) {
        case Target::kVersion: {
          FRESHET_ASSIGN_OR_RETURN(int32_t version, in->ReadInt());
          if (version != kManifestEntryVersion) return Unsupported("another _VERSION");
          break;
        }
        case Target::kKind: {
          FRESHET_ASSIGN_OR_RETURN(int32_t kind, in->ReadInt());
          if (kind != 0 && kind != 1) return Unsupported("an unknown _KIND");
          e->kind = static_cast<FileKind>(kind);
          break;
        }
        case Target::kPartition:
          FRESHET_RETURN_NOT_OK(ReadBytes(*node, in, &e->partition));
          break;
        case Target::kBucket:
          FRESHET_RETURN_NOT_OK(Store(in->ReadInt(), &e->bucket));
          break;
        case Target::kTotalBuckets:
          FRESHET_RETURN_NOT_OK(Store(in->ReadInt(), &e->total_buckets));
          break;
        case Target::kFile:
          FRESHET_RETURN_NOT_OK(DecodeFile(*node, in, &e->file));
          break;
        default:
          FRESHET_RETURN_NOT_OK(Skip(*node, in));
          break;
      }
    }
    if ((seen & entry_.required) != entry_.required) return Unsupported("a required field null");
    return Status::OK();
  }

 private:
  template <typename Targets>
  Status Plan(const AvroNode& record, Targets range, RecordPlan* plan) {
    plan->node = &record;
    uint64_t present = 0;
    for (const auto& field : record.fields) {
      Target target = Target::kSkip;
      for (auto t = static_cast<uint8_t>(range.first); t <= static_cast<uint8_t>(range.second);
           ++t) {
        if (field.name == kTargets[t].name) target = static_cast<Target>(t);
      }
      if (target != Target::kSkip) {
        if (present & Bit(target)) return Unsupported("a field named twice");
        present |= Bit(target);
        if (!FitsOrNull(*field.type, InfoOf(target).shape)) return Unsupported("a field's type");
        FRESHET_RETURN_NOT_OK(PlanNested(*field.type, InfoOf(target).shape));
      }
      plan->steps.push_back({target, field.type});
    }
    for (auto t = static_cast<uint8_t>(range.first); t <= static_cast<uint8_t>(range.second); ++t) {
      if (!kTargets[t].required) continue;
      if (!(present & Bit(static_cast<Target>(t)))) return Unsupported("a required field missing");
      plan->required |= Bit(static_cast<Target>(t));
    }
    return Status::OK();
  }

  // Plans the record branches of a _FILE or statistics field.
  Status PlanNested(const AvroNode& node, Shape shape) {
    if (shape != Shape::kFileRecord && shape != Shape::kStats) return Status::OK();
    auto plan_record = [&](const AvroNode& record) -> Status {
      if (PlanOf(record) != nullptr) return Status::OK();
      // Plans are held by unique_ptr: they keep their address while more are added.
      nested_.push_back(std::make_unique<RecordPlan>());
      return Plan(record, shape == Shape::kFileRecord ? kFileTargets : kStatsTargets,
                  nested_.back().get());
    };
    if (node.type == AvroType::kRecord) return plan_record(node);
    if (node.type != AvroType::kUnion) return Status::OK();
    for (const AvroNode* branch : node.branches) {
      if (branch->type == AvroType::kRecord) FRESHET_RETURN_NOT_OK(plan_record(*branch));
    }
    return Status::OK();
  }

  const RecordPlan* PlanOf(const AvroNode& record) const {
    for (const auto& plan : nested_) {
      if (plan->node == &record) return plan.get();
    }
    return nullptr;
  }

  // The branch the encoding selects, through unions.
  static Result<const AvroNode*> Branch(const AvroNode* node, AvroDecoder* in) {
    while (node->type == AvroType::kUnion) {
      FRESHET_ASSIGN_OR_RETURN(int64_t index, in->ReadLong());
      if (index < 0 || index >= static_cast<int64_t>(node->branches.size())) {
        return Unsupported("a union branch out of range");
      }
      node = node->branches[static_cast<size_t>(index)];
    }
    return node;
  }

  static Status ReadBytes(const AvroNode& node, AvroDecoder* in, std::string* out) {
    std::string_view bytes;
    if (node.type == AvroType::kFixed) {
      FRESHET_ASSIGN_OR_RETURN(bytes, in->ReadFixed(static_cast<size_t>(node.fixed_size)));
    } else {
      FRESHET_ASSIGN_OR_RETURN(bytes, in->ReadBytes());
    }
    out->assign(bytes.data(), bytes.size());
    return Status::OK();
  }

  static Result<int64_t> ReadLong(const AvroNode& node, AvroDecoder* in) {
    if (node.type != AvroType::kInt) return in->ReadLong();
    FRESHET_ASSIGN_OR_RETURN(int32_t value, in->ReadInt());
    return value;
  }

  // The blocks of an array of `node`, calling `item` per element. `out` is the vector the items
  // go to: sized per block, so that it grows once per block.
  template <typename Vector, typename Item>
  static Status ReadArray(const AvroNode& node, AvroDecoder* in, Vector* out, Item item) {
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(int64_t count, in->ReadBlockCount());
      if (count == 0) return Status::OK();
      // Every element of these arrays takes at least a byte.
      if (count < 0 || static_cast<uint64_t>(count) > in->remaining()) {
        return Unsupported("an array longer than its bytes");
      }
      out->reserve(out->size() + static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        FRESHET_ASSIGN_OR_RETURN(const AvroNode* element, Branch(node.items, in));
        FRESHET_RETURN_NOT_OK(item(*element));
      }
    }
  }

  static Status ReadStrings(const AvroNode& node, AvroDecoder* in, std::vector<std::string>* out) {
    out->clear();
    return ReadArray(node, in, out, [&](const AvroNode& element) -> Status {
      if (element.type == AvroType::kNull) return Unsupported("a null in a string list");
      out->emplace_back();
      return ReadBytes(element, in, &out->back());
    });
  }

  Status DecodeStats(const AvroNode& node, AvroDecoder* in, SimpleStats* out) {
    const RecordPlan* plan = PlanOf(node);
    if (plan == nullptr) return Unsupported("an unplanned statistics record");
    *out = SimpleStats();
    uint64_t seen = 0;
    for (const FieldStep& step : plan->steps) {
      FRESHET_ASSIGN_OR_RETURN(const AvroNode* value, Branch(step.node, in));
      if (value->type == AvroType::kNull) continue;
      seen |= Bit(step.target);
      switch (step.target) {
        case Target::kMinValues:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &out->min_values));
          break;
        case Target::kMaxValues:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &out->max_values));
          break;
        case Target::kNullCounts: {
          auto& counts = out->null_counts.emplace();
          FRESHET_RETURN_NOT_OK(
              ReadArray(*value, in, &counts, [&](const AvroNode& element) -> Status {
                if (element.type == AvroType::kNull) {
                  counts.push_back(std::nullopt);
                  return Status::OK();
                }
                FRESHET_ASSIGN_OR_RETURN(int64_t n, ReadLong(element, in));
                counts.push_back(n);
                return Status::OK();
              }));
          break;
        }
        default:
          FRESHET_RETURN_NOT_OK(Skip(*value, in));
          break;
      }
    }
    if ((seen & plan->required) != plan->required) return Unsupported("a required field null");
    return Status::OK();
  }

  Status DecodeFile(const AvroNode& node, AvroDecoder* in, DataFileMeta* f) {
    const RecordPlan* plan = PlanOf(node);
    if (plan == nullptr) return Unsupported("an unplanned _FILE record");
    uint64_t seen = 0;
    for (const FieldStep& step : plan->steps) {
      FRESHET_ASSIGN_OR_RETURN(const AvroNode* value, Branch(step.node, in));
      if (value->type == AvroType::kNull) continue;
      seen |= Bit(step.target);
      switch (step.target) {
        case Target::kFileName:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &f->file_name));
          break;
        case Target::kFileSize:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->file_size));
          break;
        case Target::kRowCount:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->row_count));
          break;
        case Target::kMinKey:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &f->min_key));
          break;
        case Target::kMaxKey:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &f->max_key));
          break;
        case Target::kKeyStats:
          FRESHET_RETURN_NOT_OK(DecodeStats(*value, in, &f->key_stats));
          break;
        case Target::kValueStats:
          FRESHET_RETURN_NOT_OK(DecodeStats(*value, in, &f->value_stats));
          break;
        case Target::kMinSequence:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->min_sequence_number));
          break;
        case Target::kMaxSequence:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->max_sequence_number));
          break;
        case Target::kSchemaId:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->schema_id));
          break;
        case Target::kLevel:
          FRESHET_RETURN_NOT_OK(Store(in->ReadInt(), &f->level));
          break;
        case Target::kExtraFiles:
          FRESHET_RETURN_NOT_OK(ReadStrings(*value, in, &f->extra_files));
          break;
        case Target::kCreationTime:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->creation_time_millis));
          break;
        case Target::kDeleteRowCount:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->delete_row_count));
          break;
        case Target::kEmbeddedIndex:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &f->embedded_index.emplace()));
          break;
        case Target::kFileSource:
          FRESHET_RETURN_NOT_OK(Store(in->ReadInt(), &f->file_source));
          break;
        case Target::kValueStatsCols:
          FRESHET_RETURN_NOT_OK(ReadStrings(*value, in, &f->value_stats_cols.emplace()));
          break;
        case Target::kExternalPath:
          FRESHET_RETURN_NOT_OK(ReadBytes(*value, in, &f->external_path.emplace()));
          break;
        case Target::kFirstRowId:
          FRESHET_RETURN_NOT_OK(Store(ReadLong(*value, in), &f->first_row_id));
          break;
        case Target::kWriteCols:
          FRESHET_RETURN_NOT_OK(ReadStrings(*value, in, &f->write_cols.emplace()));
          break;
        default:
          FRESHET_RETURN_NOT_OK(Skip(*value, in));
          break;
      }
    }
    if ((seen & plan->required) != plan->required) return Unsupported("a required field null");
    // Statistics missing or null (older files) read as empty, as on the generic path.
    if (!(seen & Bit(Target::kKeyStats))) f->key_stats = SimpleStats::Empty();
    if (!(seen & Bit(Target::kValueStats))) f->value_stats = SimpleStats::Empty();
    return Status::OK();
  }

  // A field nothing reads: decoded the generic way and dropped.
  Status Skip(const AvroNode& node, AvroDecoder* in) const {
    return container::avro::DecodeValue(schema_, node, in).status();
  }

  const AvroSchema& schema_;
  RecordPlan entry_;
  std::vector<std::unique_ptr<RecordPlan>> nested_;
};

}  // namespace

Result<std::vector<ManifestEntry>> DecodeManifestEntriesDirect(
    std::string_view content, const std::string& source, int64_t expected_entries,
    const AvroFileReader::BlockRun* run) {
  FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<AvroFileReader> reader,
                           AvroFileReader::Open(content, source));
  if (run != nullptr) {
    FRESHET_RETURN_NOT_OK(reader->RestrictTo(*run));
    expected_entries = run->records;
  }
  Decoder decoder(reader->schema());
  FRESHET_RETURN_NOT_OK(decoder.Resolve());
  std::vector<ManifestEntry> entries;
  // Entries are decoded in place; a hint from a manifest list avoids moving them as the vector
  // grows: a manifest merged by a full compaction holds hundreds of thousands of entries, and
  // regrowing their vector (copies of every entry into fresh pages) was a sixth of a cold plan.
  // The reservation is address space only, touched as entries are decoded, so a damaged hint
  // costs no memory below this cap (4M entries).
  constexpr int64_t kMaxReserve = int64_t{1} << 22;
  entries.reserve(static_cast<size_t>(std::clamp<int64_t>(expected_entries, 0, kMaxReserve)));
  FRESHET_RETURN_NOT_OK(reader->DecodeEach(
      [&](AvroDecoder* in) -> Status { return decoder.DecodeEntry(in, &entries.emplace_back()); }));
  return entries;
}

Result<std::vector<AvroFileReader::BlockRun>> SplitManifestIntoRuns(std::string_view content,
                                                                    const std::string& source,
                                                                    size_t max_runs) {
  FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<AvroFileReader> reader,
                           AvroFileReader::Open(content, source));
  // A writer schema the direct decoder does not take is read whole, the generic way.
  Decoder decoder(reader->schema());
  FRESHET_RETURN_NOT_OK(decoder.Resolve());
  return reader->SplitIntoRuns(max_runs);
}

}  // namespace freshet::meta
