// Schema files are checked on load as schemas are on create: a damaged or hand-edited file must
// not map one column's data onto another, and no schema JSON, however nested, may exhaust the
// stack or be accepted when Arrow could not carry it.
#include <gtest/gtest.h>

#include <string>

#include "meta/schema/schema_spec_json.h"
#include "meta/schema/table_schema.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

std::string SchemaFile(const std::string& fields, const std::string& extra = "") {
  return R"({"version": 3, "id": 0, "fields": [)" + fields + R"(], "highestFieldId": 2, )" +
         R"("partitionKeys": [], "primaryKeys": [], "options": {})" + extra + "}";
}

const char* const kGoodFields =
    R"({"id": 0, "name": "id", "type": "BIGINT"}, {"id": 1, "name": "v", "type": "STRING"},)"
    R"({"id": 2, "name": "r", "type": {"type": "ROW", "fields": []}})";

Status Load(const std::string& text) { return TableSchema::FromJson(text, "schema-0").status(); }

void ExpectCorruption(const std::string& text, const std::string& message) {
  Status st = Load(text);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(message), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("schema-0"), std::string::npos) << st.ToString();
}

TEST(SchemaValidationTest, AGoodSchemaLoads) { ASSERT_OK(Load(SchemaFile(kGoodFields))); }

TEST(SchemaValidationTest, FieldIdsOutOfRangeAreNotNarrowed) {
  // 2^32 + 1 and 2^63 would narrow to 1 and 0: column v or id would show another's values.
  for (const char* id : {"4294967297", "9223372036854775808", "2147483648", "-1", "1.5"}) {
    ExpectCorruption(SchemaFile(R"({"id": 0, "name": "id", "type": "BIGINT"}, {"id": )" +
                                std::string(id) + R"(, "name": "v", "type": "STRING"})"),
                     "between 0 and 2147483647");
  }
}

TEST(SchemaValidationTest, DuplicateIdsNamesAndUncoveredIds) {
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "id", "type": "BIGINT"},)"
                              R"({"id": 0, "name": "v", "type": "STRING"})"),
                   "field id 0 is used twice");
  ExpectCorruption(
      SchemaFile(R"({"id": 0, "name": "id", "type": "BIGINT"}, {"id": 1, "name": "r", "type": )"
                 R"({"type": "ROW", "fields": [{"id": 0, "name": "a", "type": "INT"}]}})"),
      "field id 0 is used twice");
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "id", "type": "BIGINT"},)"
                              R"({"id": 1, "name": "id", "type": "STRING"})"),
                   "duplicate field name 'id'");
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "id", "type": "BIGINT"},)"
                              R"({"id": 7, "name": "v", "type": "STRING"})"),
                   "field id 7 is above highestFieldId 2");
  ExpectCorruption(
      R"({"version": 3, "id": 0, "fields": [)" + std::string(kGoodFields) +
          R"(], "highestFieldId": 2, "partitionKeys": ["nope"], "primaryKeys": [], "options": {}})",
      "partition column 'nope' is not a field");
}

// A type nested `levels` deep: ARRAY<ARRAY<...<INT>>>.
std::string NestedArray(int levels) {
  std::string type;
  for (int i = 0; i < levels; ++i) type += R"({"type": "ARRAY", "element": )";
  return type + R"("INT")" + std::string(levels, '}');
}

TEST(SchemaValidationTest, NestingIsLimitedSoThatArrowCanCarryEveryAcceptedType) {
  ASSERT_OK(Load(
      SchemaFile(R"({"id": 0, "name": "a", "type": )" + NestedArray(kMaxTypeNestingDepth) + "}")));
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "a", "type": )" +
                              NestedArray(kMaxTypeNestingDepth + 1) + "}"),
                   "nest deeper than");
  // Deep enough to overflow the stack of a recursive parser (and of a recursive dump() of the
  // offending JSON in the error message): a clean error instead.
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "a", "type": )" + NestedArray(200000) + "}"),
                   "nests JSON deeper than 256 levels");
  std::string deep_json = std::string(100000, '[') + std::string(100000, ']');
  ExpectCorruption(SchemaFile(R"({"id": 0, "name": "a", "type": )" + deep_json + "}"),
                   "nests JSON deeper than 256 levels");
  // The same limit applies to a new table's schema spec (freshet create).
  auto spec = SchemaSpecFromJson(
      R"({"fields": [{"name": "a", "type": )" + NestedArray(kMaxTypeNestingDepth + 1) + "}]}",
      "schema");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("nest deeper than"), std::string::npos)
      << spec.status().ToString();
}

}  // namespace
}  // namespace freshet::meta
