// The option registry (src/meta/options/option_registry.h): every row parses its default, invalid
// values are errors naming the key and the accepted values, patterns and fallbacks, keys two
// layers of meta read, and CoreOptions over it with Effective(). The wiring into the format,
// write, scan and realtime layers and docs/options.md: tests/table/options_test.cc.
#include "meta/options/option_registry.h"

#include <gtest/gtest.h>

#include <set>

#include "meta/options/core_options.h"
#include "meta/partition/partition_path.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

// A value the row's rule refuses, or nullopt when it accepts any text.
std::optional<std::string> InvalidValueFor(const OptionDef& row) {
  switch (row.type) {
    case OptionType::kBool:
      return "maybe";
    case OptionType::kInt:
      return "12x";
    case OptionType::kMemorySize:
      return "12 parsecs";
    case OptionType::kDuration:
      return "3 fortnights";
    case OptionType::kEnum:
      return "no-such-value";
    case OptionType::kStatsMode:
      return "truncate(0)";
    case OptionType::kString:
      if (row.check_text && !row.check_text("a/b")) return "a/b";
      if (row.check_text && !row.check_text("")) return "";
      return std::nullopt;
  }
  return std::nullopt;
}

DataField Column(int32_t id, std::string name, DataTypePtr type) {
  DataField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

// A key of the row: the name, or the pattern with a column name.
std::string KeyOf(const OptionDef& row) {
  std::string key = row.name;
  size_t at = key.find("<name>");
  if (at != std::string::npos) key.replace(at, 6, "amount");
  return key;
}

TEST(OptionRegistryTest, EveryRowParsesItsDefault) {
  auto rows = OptionRegistry::Global().Rows();
  ASSERT_GE(rows.size(), 30u);
  std::set<std::string> names;
  for (const auto& row : rows) {
    SCOPED_TRACE(row->name);
    EXPECT_TRUE(names.insert(row->name).second) << "declared twice";
    EXPECT_FALSE(row->owner.empty());
    EXPECT_FALSE(row->description.empty());
    EXPECT_EQ(OptionRegistry::Global().Find(KeyOf(*row)), row);
    ASSERT_OK_AND_ASSIGN(auto value, LookupOption({}, KeyOf(*row)));
    if (row->default_value) {
      ASSERT_TRUE(value.has_value());
      ASSERT_OK(row->Parse(row->name, *row->default_value).status());
      // The typed getter of the row's type reads the default too.
      switch (row->type) {
        case OptionType::kBool:
          EXPECT_OK(GetBoolOption({}, KeyOf(*row)).status());
          break;
        case OptionType::kInt:
          EXPECT_OK(GetIntOption({}, KeyOf(*row)).status());
          break;
        case OptionType::kMemorySize:
          EXPECT_OK(GetMemorySizeOption({}, KeyOf(*row)).status());
          break;
        case OptionType::kDuration:
          EXPECT_OK(GetDurationOption({}, KeyOf(*row)).status());
          break;
        case OptionType::kEnum:
        case OptionType::kString:
          EXPECT_OK(GetStringOption({}, KeyOf(*row)).status());
          break;
        case OptionType::kStatsMode:
          EXPECT_OK(GetStatsModeOption({}, KeyOf(*row)).status());
          break;
      }
    } else if (row->fallback_key.empty()) {
      EXPECT_FALSE(value.has_value());
      EXPECT_FALSE(row->default_note.empty()) << "a row without default says what applies";
    } else {
      EXPECT_TRUE(value.has_value()) << "falls back to " << row->fallback_key;
    }
  }
  // Java Paimon's defaults.
  EXPECT_EQ(*GetIntOption({}, "bucket"), -1);
  EXPECT_EQ(*GetStringOption({}, "file.format"), "parquet");
  EXPECT_EQ(*GetStringOption({}, "file.compression"), "zstd");
  EXPECT_EQ(*GetIntOption({}, "file.compression.zstd-level"), 1);
  EXPECT_EQ(*GetStringOption({}, "data-file.prefix"), "data-");
  EXPECT_EQ(*GetMemorySizeOption({}, "source.split.target-size"), 128LL << 20);
  EXPECT_EQ(*GetMemorySizeOption({}, "source.split.open-file-cost"), 4LL << 20);
  EXPECT_EQ(*GetMemorySizeOption({}, "manifest.target-file-size"), 8LL << 20);
  EXPECT_EQ(*GetIntOption({}, "manifest.merge-min-count"), 30);
  EXPECT_EQ(*GetIntOption({}, "snapshot.num-retained.min"), 10);
  EXPECT_EQ(*GetIntOption({}, "snapshot.num-retained.max"), INT32_MAX);
  EXPECT_EQ(*GetDurationOption({}, "snapshot.time-retained"), 3600LL * 1000);
  EXPECT_EQ(*GetIntOption({}, "snapshot.expire.limit"), 50);
  EXPECT_EQ(*GetIntOption({}, "commit.max-retries"), 10);
  EXPECT_EQ(*GetStringOption({}, "partition.default-name"), "__DEFAULT_PARTITION__");
  EXPECT_TRUE(*GetBoolOption({}, "partition.legacy-name"));
  EXPECT_FALSE(*GetBoolOption({}, "write-only"));
  EXPECT_EQ(*GetStringOption({}, "merge-engine"), "deduplicate");
  EXPECT_EQ(GetStatsModeOption({}, "metadata.stats-mode")->length, 16);
}

TEST(OptionRegistryTest, InvalidValuesNameTheKeyAndTheAcceptedValues) {
  int checked = 0;
  for (const auto& row : OptionRegistry::Global().Rows()) {
    std::optional<std::string> bad = InvalidValueFor(*row);
    if (!bad) continue;
    std::string key = KeyOf(*row);
    SCOPED_TRACE(key + " = '" + *bad + "'");
    auto parsed = LookupOption({{key, *bad}}, key);
    ASSERT_FALSE(parsed.ok());
    EXPECT_TRUE(parsed.status().IsInvalid());
    const std::string& message = parsed.status().message();
    EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(row->AcceptedValues()), std::string::npos) << message;
    // Validation refuses it when a table is created (and written).
    EXPECT_FALSE(OptionRegistry::Global().Validate({{key, *bad}}, OptionCheck::kWrite).ok());
    EXPECT_EQ(OptionRegistry::Global().Validate({{key, *bad}}, OptionCheck::kOpen).ok(),
              row->check == OptionCheck::kWrite);
    ++checked;
  }
  EXPECT_GE(checked, 25);
  auto bucket = LookupOption({{"bucket", "0"}}, "bucket");
  ASSERT_FALSE(bucket.ok());
  EXPECT_EQ(bucket.status().message(),
            "option 'bucket' has an invalid value '0'; accepted values: -2, -1 or a positive "
            "number");
  auto compression = LookupOption({{"file.compression", "brotli"}}, "file.compression");
  EXPECT_EQ(compression.status().message(),
            "option 'file.compression' has an invalid value 'brotli'; accepted values: zstd, "
            "snappy, gzip, deflate, zlib, lz4, none or uncompressed");
  for (const char* bad : {"-3", "2147483648", ""}) {
    EXPECT_FALSE(LookupOption({{"bucket", bad}}, "bucket").ok()) << bad;
  }
  EXPECT_FALSE(
      LookupOption({{"snapshot.num-retained.min", "0"}}, "snapshot.num-retained.min").ok());
  EXPECT_FALSE(LookupOption({{"manifest.merge-min-count", "1"}}, "manifest.merge-min-count").ok());
  EXPECT_FALSE(
      LookupOption({{"source.split.target-size", "0 b"}}, "source.split.target-size").ok());
}

TEST(OptionRegistryTest, OneRulePerType) {
  // Numbers, memory sizes and durations ignore surrounding blanks; booleans and enums are
  // case-insensitive and read back in the row's spelling.
  EXPECT_EQ(*GetIntOption({{"bucket", " 4 "}}, "bucket"), 4);
  EXPECT_EQ(*GetMemorySizeOption({{"target-file-size", " 2 MB"}}, "target-file-size"), 2 << 20);
  EXPECT_EQ(*GetDurationOption({{"snapshot.time-retained", "30 min"}}, "snapshot.time-retained"),
            30 * 60'000);
  EXPECT_TRUE(*GetBoolOption({{"write-only", "TRUE"}}, "write-only"));
  EXPECT_FALSE(GetBoolOption({{"write-only", " true"}}, "write-only").ok());
  EXPECT_EQ(*GetStringOption({{"file.format", "ORC"}}, "file.format"), "orc");
  EXPECT_FALSE(GetStringOption({{"file.format", " orc"}}, "file.format").ok());
  EXPECT_EQ(*GetStringOption({{"partition.default-name", " x "}}, "partition.default-name"), " x ");
  // Reading an unknown key or with the wrong type is a bug, not a user error.
  EXPECT_TRUE(GetIntOption({}, "no.such.option").status().code() == StatusCode::kInternal);
  EXPECT_TRUE(GetIntOption({}, "write-only").status().code() == StatusCode::kInternal);
  EXPECT_TRUE(GetMemorySizeOption({}, "target-file-size").status().code() ==
              StatusCode::kInternal);  // no default
}

TEST(OptionRegistryTest, PatternsAndFallbacks) {
  auto row = OptionRegistry::Global().Find("fields.price.stats-mode");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->name, "fields.<name>.stats-mode");
  EXPECT_EQ(OptionRegistry::Global().Find("fields.a.b.stats-mode"), row);
  EXPECT_EQ(OptionRegistry::Global().Find("fields..stats-mode"), nullptr);
  EXPECT_EQ(OptionRegistry::Global().Find("fields.price.no-such-option"), nullptr);
  Options options = {{"metadata.stats-mode", "counts"}, {"fields.price.stats-mode", "FULL"}};
  EXPECT_EQ(GetStatsModeOption(options, "fields.price.stats-mode")->kind,
            StatsModeValue::Kind::kFull);
  EXPECT_EQ(GetStatsModeOption(options, "fields.other.stats-mode")->kind,
            StatsModeValue::Kind::kCounts);
  EXPECT_EQ(GetStatsModeOption({}, "fields.other.stats-mode")->length, 16);
  auto bad = GetStatsModeOption({{"fields.price.stats-mode", "all"}}, "fields.price.stats-mode");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'fields.price.stats-mode'"), std::string::npos);
}

TEST(OptionRegistryTest, RulesOverSeveralOptions) {
  Status st = OptionRegistry::Global().Validate(
      {{"snapshot.num-retained.min", "5"}, {"snapshot.num-retained.max", "4"}}, OptionCheck::kOpen);
  ASSERT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("snapshot.num-retained.max"), std::string::npos);
  st = OptionRegistry::Global().Validate(
      {{"realtime.memory.soft-limit", "2 gb"}, {"realtime.memory.hard-limit", "1 gb"}},
      OptionCheck::kOpen);
  ASSERT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("realtime.memory.hard-limit"), std::string::npos);
  // An owner filter checks that owner's rows and rules only.
  EXPECT_OK(OptionRegistry::Global().Validate({{"bucket", "0"}}, OptionCheck::kWrite, "realtime"));
  // Unknown keys are not freshet's: never refused.
  EXPECT_OK(
      OptionRegistry::Global().Validate({{"changelog-producer", "lookup"}}, OptionCheck::kWrite));
}

TEST(OptionRegistryTest, RegisteringRows) {
  OptionDef row;
  row.name = "test.registry.flag";
  row.type = OptionType::kBool;
  row.default_value = "false";
  row.owner = "test";
  row.description = "A flag of this test.";
  ASSERT_OK(OptionRegistry::Global().Register(row));
  ASSERT_OK(OptionRegistry::Global().Register(row));  // the same definition again
  EXPECT_FALSE(*GetBoolOption({}, "test.registry.flag"));
  EXPECT_TRUE(*GetBoolOption({{"test.registry.flag", "true"}}, "test.registry.flag"));
  OptionDef other = row;
  other.default_value = "true";
  EXPECT_TRUE(OptionRegistry::Global().Register(other).IsAlreadyExists());
  OptionDef clash = row;
  clash.name = "bucket";
  EXPECT_TRUE(OptionRegistry::Global().Register(clash).IsAlreadyExists());
  OptionDef bad_default = row;
  bad_default.name = "test.registry.bad-default";
  bad_default.default_value = "perhaps";
  EXPECT_TRUE(OptionRegistry::Global().Register(bad_default).IsInvalid());
  OptionDef no_owner = row;
  no_owner.name = "test.registry.no-owner";
  no_owner.owner.clear();
  EXPECT_TRUE(OptionRegistry::Global().Register(no_owner).IsInvalid());
}

// Keys two layers used to parse under different rules now agree: CoreOptions, TableSchema and
// PartitionNaming accept and refuse the same values (the format and realtime layers: see
// tests/table/options_test.cc).
TEST(OptionRegistryTest, KeysReadByTwoLayersAgree) {
  for (const char* bucket : {"4", " 4", "4 ", "0", "-2", "x", "", "2147483648"}) {
    SCOPED_TRACE(std::string("bucket = '") + bucket + "'");
    Options options = {{"bucket", bucket}, {"bucket-key", "id"}};
    Result<CoreOptions> core = CoreOptions::Make(options, true);
    SchemaSpec spec;
    spec.fields = {Column(0, "id", DataType::BigInt()), Column(1, "v", DataType::Int())};
    spec.primary_keys = {"id"};
    spec.options = options;
    Result<TableSchema> schema = TableSchema::Create(0, spec, 0);
    ASSERT_EQ(core.ok(), schema.ok())
        << core.status().ToString() << " vs " << schema.status().ToString();
    if (core.ok()) {
      EXPECT_EQ(core->bucket(), schema->bucket());
    }
  }
  for (const char* legacy : {"true", "TRUE", "False", " true", "yes", ""}) {
    SCOPED_TRACE(std::string("partition.legacy-name = '") + legacy + "'");
    Options options = {{"partition.legacy-name", legacy}, {"partition.default-name", "none"}};
    Result<CoreOptions> core = CoreOptions::Make(options, false);
    Result<PartitionNaming> naming = PartitionNaming::FromOptions(options);
    ASSERT_EQ(core.ok(), naming.ok());
    if (core.ok()) {
      EXPECT_EQ(core->partition_legacy_name(), naming->legacy_name);
      EXPECT_EQ(core->partition_default_name(), naming->default_name);
    }
  }
  for (const char* nullable : {"true", "TRUE", "false", "yes"}) {
    SCOPED_TRACE(std::string("primary-key.nullable = '") + nullable + "'");
    SchemaSpec spec;
    spec.fields = {Column(0, "id", DataType::BigInt())};
    spec.primary_keys = {"id"};
    spec.options = {{"primary-key.nullable", nullable}};
    Result<TableSchema> schema = TableSchema::Create(0, spec, 0);
    Result<bool> parsed = GetBoolOption(spec.options, "primary-key.nullable");
    ASSERT_EQ(schema.ok(), parsed.ok());
    if (schema.ok()) {
      EXPECT_EQ(schema->fields()[0].type->nullable(), *parsed);
    }
  }
}

TEST(CoreOptionsTest, OpenChecksLessThanWrite) {
  // A codec freshet cannot write keeps a table readable: refused when opened for writing only.
  Options options = {{"file.compression", "brotli"}, {"manifest.compression", "lzma"}};
  ASSERT_OK_AND_ASSIGN(CoreOptions opened, CoreOptions::Make(options, false, OptionCheck::kOpen));
  EXPECT_EQ(opened.file_compression(), "zstd");
  auto written = CoreOptions::Make(options, false);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("'file.compression'"), std::string::npos);
  // Options read at every open are refused at open.
  EXPECT_FALSE(CoreOptions::Make({{"bucket", "x"}}, false, OptionCheck::kOpen).ok());
  EXPECT_FALSE(CoreOptions::Make({{"file.format", "csv"}}, false, OptionCheck::kOpen).ok());
}

TEST(CoreOptionsTest, EffectiveListsEveryRegistryKey) {
  Options given = {{"file.format", "orc"}, {"my.own.key", "kept"}, {"bucket", "3"}};
  ASSERT_OK_AND_ASSIGN(CoreOptions options, CoreOptions::Make(given, false));
  Options effective = options.Effective();
  // The table's options first, as given.
  ASSERT_GE(effective.size(), given.size());
  EXPECT_TRUE(std::equal(given.begin(), given.end(), effective.begin()));
  std::set<std::string> keys;
  for (const auto& [key, value] : effective) EXPECT_TRUE(keys.insert(key).second) << key;
  for (const auto& row : OptionRegistry::Global().Rows()) {
    if (row->is_pattern()) continue;
    EXPECT_TRUE(keys.count(row->name)) << row->name;
  }
  EXPECT_EQ(*FindOption(effective, "target-file-size"), "256 mb (default)");
  EXPECT_EQ(*FindOption(effective, "source.split.target-size"), "128 mb (default)");
  EXPECT_EQ(*FindOption(effective, "file.compression"), "zstd (default)");
  EXPECT_EQ(*FindOption(effective, "bucket-key"),
            "the primary keys minus the partition keys (default)");
  ASSERT_OK_AND_ASSIGN(CoreOptions pk, CoreOptions::Make({}, true));
  EXPECT_EQ(*FindOption(pk.Effective(), "target-file-size"), "128 mb (default)");
}

}  // namespace
}  // namespace freshet::meta
