#include "meta/manifest/manifest_codec.h"

#include <cstdlib>

namespace freshet::meta {

using container::avro::AvroNode;
using container::avro::AvroType;

namespace {

// ---- Writer schemas (Java 2.0 layout: nullable unions with null first, defaults null). ----

constexpr char kStatsFields[] =
    R"([{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}])";

std::string StatsRecord(const std::string& name) {
  return R"({"type":"record","name":")" + name + R"(","fields":)" + kStatsFields + "}";
}

std::string NullableField(const std::string& name, const std::string& type) {
  return R"({"name":")" + name + R"(","type":["null",)" + type + R"(],"default":null})";
}

std::string Field(const std::string& name, const std::string& type) {
  return R"({"name":")" + name + R"(","type":)" + type + "}";
}

std::string Record(const std::string& name, const std::vector<std::string>& fields) {
  std::string out = R"({"type":"record","name":")" + name +
                    R"(","namespace":"org.apache.paimon.avro.generated","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out + "]}";
}

const AvroSchema& ParseBuiltin(const std::string& json) {
  // Built-in schemas are constants; failing to parse one is a programming error.
  Result<AvroSchema> parsed = AvroSchema::Parse(json);
  if (!parsed.ok()) std::abort();
  return *new AvroSchema(std::move(parsed).ValueOrDie());
}

std::string ManifestListJson() {
  return Record("record",
                {Field("_VERSION", R"("int")"), Field("_FILE_NAME", R"("string")"),
                 Field("_FILE_SIZE", R"("long")"), Field("_NUM_ADDED_FILES", R"("long")"),
                 Field("_NUM_DELETED_FILES", R"("long")"),
                 Field("_PARTITION_STATS", StatsRecord("record__PARTITION_STATS")),
                 Field("_SCHEMA_ID", R"("long")"), NullableField("_MIN_BUCKET", R"("int")"),
                 NullableField("_MAX_BUCKET", R"("int")"), NullableField("_MIN_LEVEL", R"("int")"),
                 NullableField("_MAX_LEVEL", R"("int")"), NullableField("_MIN_ROW_ID", R"("long")"),
                 NullableField("_MAX_ROW_ID", R"("long")")});
}

std::string ManifestEntryJson() {
  const std::string strings = R"({"type":"array","items":"string"})";
  std::string file =
      R"({"type":"record","name":"record__FILE","fields":[)" + Field("_FILE_NAME", R"("string")") +
      "," + Field("_FILE_SIZE", R"("long")") + "," + Field("_ROW_COUNT", R"("long")") + "," +
      Field("_MIN_KEY", R"("bytes")") + "," + Field("_MAX_KEY", R"("bytes")") + "," +
      Field("_KEY_STATS", StatsRecord("record__FILE__KEY_STATS")) + "," +
      Field("_VALUE_STATS", StatsRecord("record__FILE__VALUE_STATS")) + "," +
      Field("_MIN_SEQUENCE_NUMBER", R"("long")") + "," +
      Field("_MAX_SEQUENCE_NUMBER", R"("long")") + "," + Field("_SCHEMA_ID", R"("long")") + "," +
      Field("_LEVEL", R"("int")") + "," + Field("_EXTRA_FILES", strings) + "," +
      NullableField("_CREATION_TIME", R"({"type":"long","logicalType":"timestamp-millis"})") + "," +
      NullableField("_DELETE_ROW_COUNT", R"("long")") + "," +
      NullableField("_EMBEDDED_FILE_INDEX", R"("bytes")") + "," +
      NullableField("_FILE_SOURCE", R"("int")") + "," +
      NullableField("_VALUE_STATS_COLS", strings) + "," +
      NullableField("_EXTERNAL_PATH", R"("string")") + "," +
      NullableField("_FIRST_ROW_ID", R"("long")") + "," + NullableField("_WRITE_COLS", strings) +
      "]}";
  return Record("record", {Field("_VERSION", R"("int")"), Field("_KIND", R"("int")"),
                           Field("_PARTITION", R"("bytes")"), Field("_BUCKET", R"("int")"),
                           Field("_TOTAL_BUCKETS", R"("int")"), Field("_FILE", file)});
}

std::string IndexManifestJson() {
  std::string range = R"({"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[)" +
                      Field("f0", R"("string")") + "," + Field("f1", R"("int")") + "," +
                      Field("f2", R"("int")") + "," + NullableField("_CARDINALITY", R"("long")") +
                      "]}";
  return Record("record", {Field("_VERSION", R"("int")"), Field("_KIND", R"("int")"),
                           Field("_PARTITION", R"("bytes")"), Field("_BUCKET", R"("int")"),
                           Field("_INDEX_TYPE", R"("string")"), Field("_FILE_NAME", R"("string")"),
                           Field("_FILE_SIZE", R"("long")"), Field("_ROW_COUNT", R"("long")"),
                           NullableField("_DELETIONS_VECTORS_RANGES",
                                         R"({"type":"array","items":["null",)" + range + "]}"),
                           NullableField("_EXTERNAL_PATH", R"("string")")});
}

// ---- Decoding: typed, named field access with errors that name the file and the field. ----

// Strings and bytes both carry raw bytes; which one a writer used does not matter here.
Result<std::string_view> TextOrBytes(const AvroValue& v) {
  return v.type() == AvroType::kString ? v.GetString() : v.GetBytes();
}

class RecordReader {
 public:
  RecordReader(const AvroValue& record, std::string_view source, std::string context)
      : record_(record.Unwrapped()), source_(source), context_(std::move(context)) {}

  Status CheckIsRecord() const {
    if (record_.type() != AvroType::kRecord) return Error("is not a record");
    return Status::OK();
  }

  // The field's value (unions unwrapped), or nullptr when absent or null.
  const AvroValue* Find(std::string_view name) const {
    const AvroValue* v = record_.GetField(name);
    if (v == nullptr || v->is_null()) return nullptr;
    return &v->Unwrapped();
  }

  Result<int64_t> Long(std::string_view name) const {
    FRESHET_ASSIGN_OR_RETURN(const AvroValue* v, Required(name));
    return Wrap(v->GetLong(), name);
  }
  Result<int32_t> Int(std::string_view name) const {
    FRESHET_ASSIGN_OR_RETURN(const AvroValue* v, Required(name));
    return Wrap(v->GetInt(), name);
  }
  Result<std::string> String(std::string_view name) const {
    FRESHET_ASSIGN_OR_RETURN(const AvroValue* v, Required(name));
    FRESHET_ASSIGN_OR_RETURN(std::string_view s, Wrap(TextOrBytes(*v), name));
    return std::string(s);
  }
  template <typename T, typename Getter>
  Status Optional(std::string_view name, std::optional<T>* out, Getter getter) const {
    if (Find(name) == nullptr) return Status::OK();
    FRESHET_ASSIGN_OR_RETURN(T value, (this->*getter)(name));
    *out = std::move(value);
    return Status::OK();
  }
  Result<std::vector<std::string>> Strings(std::string_view name) const {
    std::vector<std::string> out;
    const AvroValue* v = Find(name);
    if (v == nullptr) return out;
    if (v->type() != AvroType::kArray) return Error(std::string(name) + " is not an array");
    for (const AvroValue& item : v->items()) {
      FRESHET_ASSIGN_OR_RETURN(std::string_view s, Wrap(TextOrBytes(item.Unwrapped()), name));
      out.emplace_back(s);
    }
    return out;
  }
  Result<SimpleStats> Stats(std::string_view name) const {
    const AvroValue* v = Find(name);
    if (v == nullptr) return SimpleStats::Empty();  // older files may lack key stats
    RecordReader stats(*v, source_, context_ + "." + std::string(name));
    FRESHET_RETURN_NOT_OK(stats.CheckIsRecord());
    SimpleStats out;
    FRESHET_ASSIGN_OR_RETURN(out.min_values, stats.String("_MIN_VALUES"));
    FRESHET_ASSIGN_OR_RETURN(out.max_values, stats.String("_MAX_VALUES"));
    if (const AvroValue* counts = stats.Find("_NULL_COUNTS")) {
      if (counts->type() != AvroType::kArray) return stats.Error("_NULL_COUNTS is not an array");
      out.null_counts.emplace();
      for (const AvroValue& item : counts->items()) {
        if (item.is_null()) {
          out.null_counts->push_back(std::nullopt);
        } else {
          FRESHET_ASSIGN_OR_RETURN(int64_t n, stats.Wrap(item.Unwrapped().GetLong(), name));
          out.null_counts->push_back(n);
        }
      }
    }
    return out;
  }
  Status CheckVersion(int32_t expected) const {
    const AvroValue* v = Find("_VERSION");
    if (v == nullptr) return Status::OK();
    FRESHET_ASSIGN_OR_RETURN(int32_t version, Int("_VERSION"));
    if (version != expected) {
      return Error("has _VERSION " + std::to_string(version) + ", expected " +
                   std::to_string(expected) + " (a table this old must be recreated)");
    }
    return Status::OK();
  }

  Status Error(const std::string& what) const {
    return Status::Corruption("'", source_, "': ", context_, " ", what);
  }

 private:
  Result<const AvroValue*> Required(std::string_view name) const {
    const AvroValue* v = Find(name);
    if (v == nullptr) return Error("lacks required field " + std::string(name));
    return v;
  }
  template <typename T>
  Result<T> Wrap(Result<T> value, std::string_view name) const {
    if (!value.ok()) return Error("field " + std::string(name) + ": " + value.status().message());
    return value;
  }

  const AvroValue& record_;
  std::string_view source_;
  std::string context_;
};

// ---- Encoding ----

class RecordBuilder {
 public:
  explicit RecordBuilder(const AvroSchema& schema, const AvroNode& node)
      : schema_(schema), node_(node) {}

  RecordBuilder& Add(AvroValue value) {
    fields_.push_back(std::move(value));
    return *this;
  }
  template <typename T, typename Make>
  RecordBuilder& AddOptional(const std::optional<T>& value, Make make) {
    fields_.push_back(value ? AvroValue::Union(1, make(*value)) : AvroValue::Union(0, {}));
    return *this;
  }
  // The record node of the next field (a plain record or the non-null branch of a union).
  const AvroNode& NextRecordNode() const {
    const AvroNode* type = node_.fields[fields_.size()].type;
    if (type->type == AvroType::kUnion) type = type->branches[1];
    if (type->type == AvroType::kArray) type = type->items;
    if (type->type == AvroType::kUnion) type = type->branches[1];
    return *type;
  }
  AvroValue Build() { return AvroValue::Record(schema_.Share(node_), std::move(fields_)); }

 private:
  const AvroSchema& schema_;
  const AvroNode& node_;
  std::vector<AvroValue> fields_;
};

AvroValue StringArray(const std::vector<std::string>& values) {
  std::vector<AvroValue> items;
  for (const auto& v : values) items.push_back(AvroValue::String(v));
  return AvroValue::Array(std::move(items));
}

AvroValue EncodeStats(const AvroSchema& schema, const AvroNode& node, const SimpleStats& stats) {
  RecordBuilder b(schema, node);
  b.Add(AvroValue::Bytes(stats.min_values)).Add(AvroValue::Bytes(stats.max_values));
  b.AddOptional(stats.null_counts, [](const std::vector<std::optional<int64_t>>& counts) {
    std::vector<AvroValue> items;
    for (const auto& c : counts) {
      items.push_back(c ? AvroValue::Union(1, AvroValue::Long(*c)) : AvroValue::Union(0, {}));
    }
    return AvroValue::Array(std::move(items));
  });
  return b.Build();
}

AvroValue Long(int64_t v) { return AvroValue::Long(v); }
AvroValue Int(int32_t v) { return AvroValue::Int(v); }

}  // namespace

const AvroSchema& ManifestListAvroSchema() {
  static const AvroSchema& schema = ParseBuiltin(ManifestListJson());
  return schema;
}
const AvroSchema& ManifestEntryAvroSchema() {
  static const AvroSchema& schema = ParseBuiltin(ManifestEntryJson());
  return schema;
}
const AvroSchema& IndexManifestAvroSchema() {
  static const AvroSchema& schema = ParseBuiltin(IndexManifestJson());
  return schema;
}

Result<ManifestFileMeta> DecodeManifestFileMeta(const AvroValue& record, std::string_view source) {
  RecordReader r(record, source, "manifest list record");
  FRESHET_RETURN_NOT_OK(r.CheckIsRecord());
  FRESHET_RETURN_NOT_OK(r.CheckVersion(kManifestListVersion));
  ManifestFileMeta m;
  FRESHET_ASSIGN_OR_RETURN(m.file_name, r.String("_FILE_NAME"));
  FRESHET_ASSIGN_OR_RETURN(m.file_size, r.Long("_FILE_SIZE"));
  FRESHET_ASSIGN_OR_RETURN(m.num_added_files, r.Long("_NUM_ADDED_FILES"));
  FRESHET_ASSIGN_OR_RETURN(m.num_deleted_files, r.Long("_NUM_DELETED_FILES"));
  FRESHET_ASSIGN_OR_RETURN(m.partition_stats, r.Stats("_PARTITION_STATS"));
  FRESHET_ASSIGN_OR_RETURN(m.schema_id, r.Long("_SCHEMA_ID"));
  FRESHET_RETURN_NOT_OK(r.Optional("_MIN_BUCKET", &m.min_bucket, &RecordReader::Int));
  FRESHET_RETURN_NOT_OK(r.Optional("_MAX_BUCKET", &m.max_bucket, &RecordReader::Int));
  FRESHET_RETURN_NOT_OK(r.Optional("_MIN_LEVEL", &m.min_level, &RecordReader::Int));
  FRESHET_RETURN_NOT_OK(r.Optional("_MAX_LEVEL", &m.max_level, &RecordReader::Int));
  FRESHET_RETURN_NOT_OK(r.Optional("_MIN_ROW_ID", &m.min_row_id, &RecordReader::Long));
  FRESHET_RETURN_NOT_OK(r.Optional("_MAX_ROW_ID", &m.max_row_id, &RecordReader::Long));
  return m;
}

namespace {

Result<DataFileMeta> DecodeDataFileMeta(const AvroValue& value, std::string_view source) {
  RecordReader r(value, source, "manifest entry _FILE");
  FRESHET_RETURN_NOT_OK(r.CheckIsRecord());
  DataFileMeta f;
  FRESHET_ASSIGN_OR_RETURN(f.file_name, r.String("_FILE_NAME"));
  FRESHET_ASSIGN_OR_RETURN(f.file_size, r.Long("_FILE_SIZE"));
  FRESHET_ASSIGN_OR_RETURN(f.row_count, r.Long("_ROW_COUNT"));
  FRESHET_ASSIGN_OR_RETURN(f.min_key, r.String("_MIN_KEY"));
  FRESHET_ASSIGN_OR_RETURN(f.max_key, r.String("_MAX_KEY"));
  FRESHET_ASSIGN_OR_RETURN(f.key_stats, r.Stats("_KEY_STATS"));
  FRESHET_ASSIGN_OR_RETURN(f.value_stats, r.Stats("_VALUE_STATS"));
  FRESHET_ASSIGN_OR_RETURN(f.min_sequence_number, r.Long("_MIN_SEQUENCE_NUMBER"));
  FRESHET_ASSIGN_OR_RETURN(f.max_sequence_number, r.Long("_MAX_SEQUENCE_NUMBER"));
  FRESHET_ASSIGN_OR_RETURN(f.schema_id, r.Long("_SCHEMA_ID"));
  FRESHET_ASSIGN_OR_RETURN(f.level, r.Int("_LEVEL"));
  FRESHET_ASSIGN_OR_RETURN(f.extra_files, r.Strings("_EXTRA_FILES"));
  FRESHET_RETURN_NOT_OK(r.Optional("_CREATION_TIME", &f.creation_time_millis, &RecordReader::Long));
  FRESHET_RETURN_NOT_OK(r.Optional("_DELETE_ROW_COUNT", &f.delete_row_count, &RecordReader::Long));
  FRESHET_RETURN_NOT_OK(
      r.Optional("_EMBEDDED_FILE_INDEX", &f.embedded_index, &RecordReader::String));
  FRESHET_RETURN_NOT_OK(r.Optional("_FILE_SOURCE", &f.file_source, &RecordReader::Int));
  if (r.Find("_VALUE_STATS_COLS")) {
    FRESHET_ASSIGN_OR_RETURN(f.value_stats_cols, r.Strings("_VALUE_STATS_COLS"));
  }
  FRESHET_RETURN_NOT_OK(r.Optional("_EXTERNAL_PATH", &f.external_path, &RecordReader::String));
  FRESHET_RETURN_NOT_OK(r.Optional("_FIRST_ROW_ID", &f.first_row_id, &RecordReader::Long));
  if (r.Find("_WRITE_COLS")) {
    FRESHET_ASSIGN_OR_RETURN(f.write_cols, r.Strings("_WRITE_COLS"));
  }
  return f;
}

Result<FileKind> DecodeKind(const RecordReader& r) {
  FRESHET_ASSIGN_OR_RETURN(int32_t kind, r.Int("_KIND"));
  if (kind != 0 && kind != 1) return r.Error("has unknown _KIND " + std::to_string(kind));
  return static_cast<FileKind>(kind);
}

}  // namespace

Result<ManifestEntry> DecodeManifestEntry(const AvroValue& record, std::string_view source) {
  RecordReader r(record, source, "manifest entry");
  FRESHET_RETURN_NOT_OK(r.CheckIsRecord());
  FRESHET_RETURN_NOT_OK(r.CheckVersion(kManifestEntryVersion));
  ManifestEntry e;
  FRESHET_ASSIGN_OR_RETURN(e.kind, DecodeKind(r));
  FRESHET_ASSIGN_OR_RETURN(e.partition, r.String("_PARTITION"));
  FRESHET_ASSIGN_OR_RETURN(e.bucket, r.Int("_BUCKET"));
  FRESHET_ASSIGN_OR_RETURN(e.total_buckets, r.Int("_TOTAL_BUCKETS"));
  const AvroValue* file = r.Find("_FILE");
  if (file == nullptr) return r.Error("lacks required field _FILE");
  FRESHET_ASSIGN_OR_RETURN(e.file, DecodeDataFileMeta(*file, source));
  return e;
}

Result<IndexManifestEntry> DecodeIndexManifestEntry(const AvroValue& record,
                                                    std::string_view source) {
  RecordReader r(record, source, "index manifest entry");
  FRESHET_RETURN_NOT_OK(r.CheckIsRecord());
  FRESHET_RETURN_NOT_OK(r.CheckVersion(kIndexManifestVersion));
  IndexManifestEntry e;
  FRESHET_ASSIGN_OR_RETURN(e.kind, DecodeKind(r));
  FRESHET_ASSIGN_OR_RETURN(e.partition, r.String("_PARTITION"));
  FRESHET_ASSIGN_OR_RETURN(e.bucket, r.Int("_BUCKET"));
  FRESHET_ASSIGN_OR_RETURN(e.index_type, r.String("_INDEX_TYPE"));
  FRESHET_ASSIGN_OR_RETURN(e.file_name, r.String("_FILE_NAME"));
  FRESHET_ASSIGN_OR_RETURN(e.file_size, r.Long("_FILE_SIZE"));
  FRESHET_ASSIGN_OR_RETURN(e.row_count, r.Long("_ROW_COUNT"));
  if (const AvroValue* ranges = r.Find("_DELETIONS_VECTORS_RANGES")) {
    if (ranges->type() != AvroType::kArray) return r.Error("_DELETIONS_VECTORS_RANGES not array");
    e.deletion_vector_ranges.emplace();
    for (const AvroValue& item : ranges->items()) {
      RecordReader range(item, source, "deletion vector range");
      FRESHET_RETURN_NOT_OK(range.CheckIsRecord());
      DeletionVectorRange out;
      FRESHET_ASSIGN_OR_RETURN(out.data_file_name, range.String("f0"));
      FRESHET_ASSIGN_OR_RETURN(out.offset, range.Int("f1"));
      FRESHET_ASSIGN_OR_RETURN(out.length, range.Int("f2"));
      FRESHET_RETURN_NOT_OK(range.Optional("_CARDINALITY", &out.cardinality, &RecordReader::Long));
      e.deletion_vector_ranges->push_back(std::move(out));
    }
  }
  FRESHET_RETURN_NOT_OK(r.Optional("_EXTERNAL_PATH", &e.external_path, &RecordReader::String));
  return e;
}

AvroValue EncodeManifestFileMeta(const ManifestFileMeta& m) {
  const AvroSchema& schema = ManifestListAvroSchema();
  RecordBuilder b(schema, schema.root());
  b.Add(Int(kManifestListVersion))
      .Add(AvroValue::String(m.file_name))
      .Add(Long(m.file_size))
      .Add(Long(m.num_added_files))
      .Add(Long(m.num_deleted_files));
  b.Add(EncodeStats(schema, b.NextRecordNode(), m.partition_stats));
  b.Add(Long(m.schema_id));
  b.AddOptional(m.min_bucket, Int).AddOptional(m.max_bucket, Int);
  b.AddOptional(m.min_level, Int).AddOptional(m.max_level, Int);
  b.AddOptional(m.min_row_id, Long).AddOptional(m.max_row_id, Long);
  return b.Build();
}

AvroValue EncodeManifestEntry(const ManifestEntry& e) {
  const AvroSchema& schema = ManifestEntryAvroSchema();
  RecordBuilder b(schema, schema.root());
  b.Add(Int(kManifestEntryVersion))
      .Add(Int(static_cast<int32_t>(e.kind)))
      .Add(AvroValue::Bytes(e.partition))
      .Add(Int(e.bucket))
      .Add(Int(e.total_buckets));
  const DataFileMeta& f = e.file;
  RecordBuilder fb(schema, b.NextRecordNode());
  fb.Add(AvroValue::String(f.file_name))
      .Add(Long(f.file_size))
      .Add(Long(f.row_count))
      .Add(AvroValue::Bytes(f.min_key))
      .Add(AvroValue::Bytes(f.max_key));
  fb.Add(EncodeStats(schema, fb.NextRecordNode(), f.key_stats));
  fb.Add(EncodeStats(schema, fb.NextRecordNode(), f.value_stats));
  fb.Add(Long(f.min_sequence_number))
      .Add(Long(f.max_sequence_number))
      .Add(Long(f.schema_id))
      .Add(Int(f.level))
      .Add(StringArray(f.extra_files));
  fb.AddOptional(f.creation_time_millis, Long).AddOptional(f.delete_row_count, Long);
  fb.AddOptional(f.embedded_index, AvroValue::Bytes).AddOptional(f.file_source, Int);
  fb.AddOptional(f.value_stats_cols, StringArray);
  fb.AddOptional(f.external_path, AvroValue::String).AddOptional(f.first_row_id, Long);
  fb.AddOptional(f.write_cols, StringArray);
  b.Add(fb.Build());
  return b.Build();
}

AvroValue EncodeIndexManifestEntry(const IndexManifestEntry& e) {
  const AvroSchema& schema = IndexManifestAvroSchema();
  RecordBuilder b(schema, schema.root());
  b.Add(Int(kIndexManifestVersion))
      .Add(Int(static_cast<int32_t>(e.kind)))
      .Add(AvroValue::Bytes(e.partition))
      .Add(Int(e.bucket))
      .Add(AvroValue::String(e.index_type))
      .Add(AvroValue::String(e.file_name))
      .Add(Long(e.file_size))
      .Add(Long(e.row_count));
  const AvroNode& range_node = b.NextRecordNode();
  b.AddOptional(e.deletion_vector_ranges, [&](const std::vector<DeletionVectorRange>& ranges) {
    std::vector<AvroValue> items;
    for (const auto& range : ranges) {
      RecordBuilder rb(schema, range_node);
      rb.Add(AvroValue::String(range.data_file_name)).Add(Int(range.offset)).Add(Int(range.length));
      rb.AddOptional(range.cardinality, Long);
      items.push_back(AvroValue::Union(1, rb.Build()));
    }
    return AvroValue::Array(std::move(items));
  });
  b.AddOptional(e.external_path, AvroValue::String);
  return b.Build();
}

}  // namespace freshet::meta
