#include "scan/file_index_filter.h"

#include "common/lru_cache.h"

namespace freshet::scan {

namespace {

// The hash class of a type: values of two types with the same class hash alike.
bool SameHashing(const meta::DataType& a, const meta::DataType& b) {
  if (a.root() != b.root()) return false;
  const bool timestamp =
      a.root() == meta::TypeRoot::kTimestamp || a.root() == meta::TypeRoot::kTimestampLtz;
  return !timestamp || (a.precision() <= 3) == (b.precision() <= 3);
}

Result<bool> LeafMayMatch(const Predicate& leaf, const meta::FileIndexContents& index,
                          const meta::TableSchema& file_schema) {
  const bool equality = leaf.kind == Expr::Kind::kIn ||
                        (leaf.kind == Expr::Kind::kCompare && leaf.op == CompareOp::kEq);
  if (!equality || leaf.literals.empty()) return true;
  const meta::DataField* file_field = nullptr;
  for (const meta::DataField& f : file_schema.fields()) {
    if (f.id == leaf.field.id) file_field = &f;
  }
  if (file_field == nullptr || !SameHashing(*file_field->type, *leaf.field.type) ||
      !meta::BloomFilterSupports(*file_field->type)) {
    return true;
  }
  const auto* bytes = index.Find(file_field->name, meta::kBloomFilterIndexType);
  if (bytes == nullptr || !bytes->has_value()) return true;
  for (const meta::Value& literal : leaf.literals) {
    if (literal.is_null()) continue;  // `= NULL` is never TRUE
    FRESHET_ASSIGN_OR_RETURN(int64_t hash, meta::BloomHashOf(literal, *file_field->type));
    FRESHET_ASSIGN_OR_RETURN(bool may, meta::BloomFilter64::TestSerialized(**bytes, hash));
    if (may) return true;
  }
  return false;
}

// Parsed `.index` files by path (they never change once written), up to 128 MiB of them.
constexpr int64_t kIndexFileCacheBytes = 128LL << 20;
LruCache<std::shared_ptr<const meta::FileIndexContents>>& IndexFiles() {
  static auto* cache = new LruCache<std::shared_ptr<const meta::FileIndexContents>>();
  return *cache;
}

}  // namespace

bool AsksForValues(const Predicate& predicate) {
  if (predicate.IsLeaf()) {
    return predicate.kind == Expr::Kind::kIn ||
           (predicate.kind == Expr::Kind::kCompare && predicate.op == CompareOp::kEq);
  }
  if (predicate.kind == Expr::Kind::kNot) return false;
  for (const Predicate& child : predicate.children) {
    if (AsksForValues(child)) return true;
  }
  return false;
}

Result<bool> FileIndexMayMatch(const Predicate& predicate, const meta::FileIndexContents& index,
                               const meta::TableSchema& file_schema) {
  if (predicate.IsLeaf()) return LeafMayMatch(predicate, index, file_schema);
  switch (predicate.kind) {
    case Expr::Kind::kAnd:
      for (const Predicate& child : predicate.children) {
        FRESHET_ASSIGN_OR_RETURN(bool may, FileIndexMayMatch(child, index, file_schema));
        if (!may) return false;
      }
      return true;
    case Expr::Kind::kOr:
      for (const Predicate& child : predicate.children) {
        FRESHET_ASSIGN_OR_RETURN(bool may, FileIndexMayMatch(child, index, file_schema));
        if (may) return true;
      }
      return predicate.children.empty();
    default:  // NOT: a bloom filter proves absence only
      return true;
  }
}

Result<std::shared_ptr<const meta::FileIndexContents>> LoadFileIndex(
    io::FileIO* file_io, const meta::DataFilePaths& paths, const meta::ManifestEntry& entry) {
  using Contents = std::shared_ptr<const meta::FileIndexContents>;
  if (entry.file.embedded_index) {
    auto parsed = meta::FileIndexContents::Parse(*entry.file.embedded_index);
    if (!parsed.ok()) {
      return parsed.status().WithContext("the file index inlined for data file '" +
                                         entry.file.file_name + "'");
    }
    return Contents(std::make_shared<const meta::FileIndexContents>(std::move(*parsed)));
  }
  FRESHET_ASSIGN_OR_RETURN(auto extras,
                           paths.ExtraFilePaths(entry.partition, entry.bucket, entry.file));
  const std::string* index_path = nullptr;
  for (const std::string& path : extras) {
    if (!path.ends_with(meta::kFileIndexFileSuffix)) continue;
    if (index_path != nullptr) {
      return Status::IOError("data file '", entry.file.file_name,
                             "' lists more than one index file: ", *index_path, " and ", path);
    }
    index_path = &path;
  }
  if (index_path == nullptr) return Contents();
  if (auto cached = IndexFiles().Get(*index_path)) return *cached;
  FRESHET_ASSIGN_OR_RETURN(std::string bytes, file_io->ReadFile(*index_path));
  const auto size = static_cast<int64_t>(bytes.size());
  auto parsed = meta::FileIndexContents::Parse(std::move(bytes));
  if (!parsed.ok()) return parsed.status().WithContext("file index '" + *index_path + "'");
  auto contents = std::make_shared<const meta::FileIndexContents>(std::move(*parsed));
  if (size <= kIndexFileCacheBytes)
    IndexFiles().Put(*index_path, contents, size, kIndexFileCacheBytes);
  return Contents(std::move(contents));
}

}  // namespace freshet::scan
