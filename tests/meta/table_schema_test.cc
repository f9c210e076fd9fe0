#include <gtest/gtest.h>

#include <filesystem>

#include "meta/schema/table_schema.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

std::vector<std::string> GoldenSchemaFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::GoldenDir())) {
    if (entry.is_regular_file() && entry.path().parent_path().filename() == "schema" &&
        entry.path().filename().string().rfind("schema-", 0) == 0) {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

// Every schema file Java wrote parses; re-serializing reproduces Java's bytes.
TEST(TableSchemaTest, GoldenSchemasRoundTripByteForByte) {
  FRESHET_REQUIRE_GOLDEN();
  std::vector<std::string> files = GoldenSchemaFiles();
  ASSERT_GE(files.size(), 25u);
  int byte_identical = 0;
  for (const std::string& path : files) {
    std::string text = testing::ReadWholeFile(path);
    ASSERT_OK_AND_ASSIGN(TableSchema schema, TableSchema::FromJson(text, path));
    EXPECT_EQ(schema.highest_field_id(), TableSchema::ComputeHighestFieldId(schema.fields()))
        << path;
    std::string written = schema.ToJson();
    ASSERT_OK_AND_ASSIGN(TableSchema reparsed, TableSchema::FromJson(written, "rewritten"));
    EXPECT_EQ(reparsed, schema) << path;
    // avro/append_multiple was not written by Jackson (4-space layout, `[]`): only equal content.
    if (path.find("append_multiple.db") != std::string::npos) {
      EXPECT_NE(written, text);
      continue;
    }
    EXPECT_EQ(written, text) << path;
    ++byte_identical;
  }
  EXPECT_EQ(byte_identical, static_cast<int>(files.size()) - 1);
}

TEST(TableSchemaTest, DerivedAccessorsOnGoldenSchema) {
  FRESHET_REQUIRE_GOLDEN();
  std::string path =
      testing::GoldenDir() + "/orc/pk_table_with_mor.db/pk_table_with_mor/schema/schema-0";
  ASSERT_OK_AND_ASSIGN(TableSchema schema,
                       TableSchema::FromJson(testing::ReadWholeFile(path), path));
  EXPECT_EQ(schema.version(), 3);
  EXPECT_EQ(schema.id(), 0);
  EXPECT_EQ(schema.bucket(), 1);
  EXPECT_EQ(schema.TrimmedPrimaryKeys(), (std::vector<std::string>{"k0", "k1"}));
  EXPECT_EQ(schema.BucketKeys(), (std::vector<std::string>{"k0", "k1"}));
  ASSERT_EQ(schema.PartitionFields().size(), 2u);
  EXPECT_EQ(schema.PartitionFields()[1].name, "p1");
  EXPECT_EQ(schema.FieldIndex("s0"), 4);
  EXPECT_EQ(schema.FieldIndex("nope"), -1);
  EXPECT_EQ(schema.option("sequence.field"), "s0,s1");
  EXPECT_EQ(schema.time_millis(), 1735120478343);

  std::string bucket_key_path = testing::GoldenDir() + "/orc/pk_09.db/pk_09/schema/schema-0";
  ASSERT_OK_AND_ASSIGN(TableSchema pk09,
                       TableSchema::FromJson(testing::ReadWholeFile(bucket_key_path), ""));
  EXPECT_EQ(pk09.BucketKeys(), (std::vector<std::string>{"f2"}));
  EXPECT_EQ(pk09.bucket(), 2);
}

TEST(TableSchemaTest, LegacyVersionDefaults) {
  const char* v1 = R"({"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],
                       "partitionKeys":[],"primaryKeys":[],"options":{}})";
  ASSERT_OK_AND_ASSIGN(TableSchema schema, TableSchema::FromJson(v1, "schema-0"));
  EXPECT_EQ(schema.version(), 1);
  EXPECT_EQ(schema.bucket(), 1);
  EXPECT_EQ(schema.option("file.format"), "orc");
  EXPECT_EQ(schema.highest_field_id(), 0);
  EXPECT_EQ(schema.time_millis(), 0);

  const char* v2 = R"({"version":2,"id":0,"fields":[],"partitionKeys":[],"primaryKeys":[],
                       "options":{"file.format":"parquet"}})";
  ASSERT_OK_AND_ASSIGN(TableSchema v2_schema, TableSchema::FromJson(v2, "schema-0"));
  EXPECT_EQ(v2_schema.bucket(), -1);
  EXPECT_EQ(v2_schema.option("file.format"), "parquet");
  EXPECT_EQ(v2_schema.highest_field_id(), -1);

  const char* v3 = R"({"version":3,"id":0,"fields":[],"partitionKeys":[],"primaryKeys":[],
                       "options":{},"comment":"c"})";
  ASSERT_OK_AND_ASSIGN(TableSchema v3_schema, TableSchema::FromJson(v3, "schema-0"));
  EXPECT_FALSE(v3_schema.option("file.format").has_value());
  EXPECT_EQ(v3_schema.comment(), "c");
  EXPECT_NE(v3_schema.ToJson().find("\"comment\" : \"c\",\n  \"timeMillis\" : 0"),
            std::string::npos);
}

void ExpectCorrupt(const std::string& text, const std::string& needle) {
  auto schema = TableSchema::FromJson(text, "/t/schema/schema-7");
  ASSERT_FALSE(schema.ok()) << text;
  EXPECT_NE(schema.status().message().find("/t/schema/schema-7"), std::string::npos)
      << schema.status().message();
  EXPECT_NE(schema.status().message().find(needle), std::string::npos) << schema.status().message();
}

TEST(TableSchemaTest, BadFilesNameTheFileAndField) {
  ExpectCorrupt("{\"id\": 0,", "not valid JSON");
  ExpectCorrupt("[1]", "not a JSON object");
  ExpectCorrupt(R"({"fields":[],"partitionKeys":[],"primaryKeys":[]})", "'id'");
  ExpectCorrupt(R"({"id":0,"partitionKeys":[],"primaryKeys":[]})", "'fields'");
  ExpectCorrupt(R"({"id":0,"fields":[{"id":0,"name":"a","type":"INTT"}],
                    "partitionKeys":[],"primaryKeys":[]})",
                "fields[0]");
  ExpectCorrupt(R"j({"id":0,"fields":[{"id":0,"name":"a","type":"DECIMAL(39, 0)"}],
                    "partitionKeys":[],"primaryKeys":[]})j",
                "precision");
  ExpectCorrupt(R"({"id":0,"fields":[],"primaryKeys":[]})", "'partitionKeys'");
  ExpectCorrupt(R"({"id":0,"fields":[],"partitionKeys":[],"primaryKeys":[1]})", "'primaryKeys'");
  ExpectCorrupt(R"({"id":0,"fields":[],"partitionKeys":[],"primaryKeys":[],
                    "options":{"bucket":3}})",
                "options.bucket");
  ExpectCorrupt(R"({"id":0,"fields":[],"partitionKeys":[],"primaryKeys":[],
                    "options":{"bucket":"many"}})",
                "option 'bucket'");
  ExpectCorrupt(R"({"id":"zero","fields":[],"partitionKeys":[],"primaryKeys":[]})", "'id'");
}

DataField Field(std::string name, DataTypePtr type) {
  DataField field;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

TEST(TableSchemaTest, CreateAssignsIdsAsJavaAndNormalisesPrimaryKeys) {
  SchemaSpec spec;
  spec.fields = {
      Field("k", DataType::String()),
      Field("r", DataType::Row(
                     {Field("x", DataType::Int()),
                      Field("y", DataType::Array(DataType::Row({Field("z", DataType::Int())})))})),
      Field("p", DataType::Int()), Field("v", DataType::Double())};
  spec.partition_keys = {"p"};
  spec.primary_keys = {"k", "p"};
  spec.options = {{"bucket", "4"}, {"file.format", "parquet"}};
  ASSERT_OK_AND_ASSIGN(TableSchema schema, TableSchema::Create(0, spec, 1234));
  EXPECT_EQ(schema.fields()[0].id, 0);
  EXPECT_EQ(schema.fields()[1].id, 1);
  EXPECT_EQ(schema.fields()[1].type->fields()[0].id, 2);
  // Inside a ROW, Java numbers a field's nested fields before the field itself: z, then y.
  EXPECT_EQ(schema.fields()[1].type->fields()[1].type->element_type()->fields()[0].id, 3);
  EXPECT_EQ(schema.fields()[1].type->fields()[1].id, 4);
  EXPECT_EQ(schema.fields()[2].id, 5);
  EXPECT_EQ(schema.fields()[3].id, 6);
  EXPECT_EQ(schema.highest_field_id(), 6);
  EXPECT_EQ(schema.fields()[0].type->ToString(), "STRING NOT NULL");
  EXPECT_EQ(schema.fields()[2].type->ToString(), "INT NOT NULL");
  EXPECT_EQ(schema.fields()[3].type->ToString(), "DOUBLE");
  EXPECT_EQ(schema.BucketKeys(), (std::vector<std::string>{"k"}));
  EXPECT_EQ(schema.version(), 3);
  ASSERT_OK_AND_ASSIGN(TableSchema reparsed, TableSchema::FromJson(schema.ToJson(), "x"));
  EXPECT_EQ(reparsed, schema);

  spec.options.emplace_back("primary-key.nullable", "true");
  ASSERT_OK_AND_ASSIGN(TableSchema nullable_pk, TableSchema::Create(0, spec, 1234));
  EXPECT_TRUE(nullable_pk.fields()[0].type->nullable());
}

TEST(TableSchemaTest, HighestFieldIdIgnoresSystemIds) {
  std::vector<DataField> fields = {Field("a", DataType::Int()), Field("_KEY_a", DataType::Int())};
  fields[0].id = 3;
  fields[1].id = kKeyFieldIdStart + 3;
  EXPECT_EQ(TableSchema::ComputeHighestFieldId(fields), 3);
  EXPECT_EQ(TableSchema::ComputeHighestFieldId({}), -1);
}

void ExpectCreateFails(SchemaSpec spec, const std::string& needle) {
  auto schema = TableSchema::Create(0, std::move(spec), 0);
  ASSERT_FALSE(schema.ok()) << needle;
  EXPECT_TRUE(schema.status().IsInvalid());
  EXPECT_NE(schema.status().message().find(needle), std::string::npos) << schema.status().message();
}

TEST(TableSchemaTest, CreateValidates) {
  SchemaSpec base;
  base.fields = {Field("a", DataType::Int()), Field("b", DataType::Int()),
                 Field("m", DataType::Map(DataType::Int(), DataType::Int()))};
  auto with = [&](auto mutate) {
    SchemaSpec spec = base;
    mutate(spec);
    return spec;
  };
  ExpectCreateFails(with([](SchemaSpec& s) { s.primary_keys = {"zz"}; }), "'zz'");
  ExpectCreateFails(with([](SchemaSpec& s) { s.partition_keys = {"zz"}; }), "'zz'");
  ExpectCreateFails(with([](SchemaSpec& s) { s.fields.push_back(Field("a", DataType::Int())); }),
                    "duplicate field name 'a'");
  ExpectCreateFails(
      with([](SchemaSpec& s) { s.fields.push_back(Field("_SEQUENCE_NUMBER", DataType::Int())); }),
      "reserved");
  ExpectCreateFails(
      with([](SchemaSpec& s) { s.fields.push_back(Field("_KEY_a", DataType::Int())); }), "_KEY_");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.primary_keys = {"a"};
                      s.partition_keys = {"a"};
                    }),
                    "partition keys");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.options = {{"bucket", "2"}};
                    }),
                    "must set option 'bucket-key'");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.options = {{"bucket-key", "a"}};
                    }),
                    "cannot be set");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.options = {{"bucket", "2"}, {"bucket-key", "m"}};
                    }),
                    "nested type");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.partition_keys = {"a"};
                      s.options = {{"bucket", "2"}, {"bucket-key", "a"}};
                    }),
                    "partition key");
  ExpectCreateFails(with([](SchemaSpec& s) {
                      s.primary_keys = {"a"};
                      s.options = {{"bucket", "2"}, {"bucket-key", "b"}};
                    }),
                    "primary-key column");
  ExpectCreateFails(with([](SchemaSpec& s) { s.options = {{"bucket", "0"}}; }), "'bucket'");
  ExpectCreateFails(with([](SchemaSpec& s) { s.options = {{"bucket", "x"}}; }), "'bucket'");
  ExpectCreateFails(with([](SchemaSpec& s) { s.options = {{"bucket", "-2"}}; }), "postpone");
  ASSERT_OK(TableSchema::Create(0, with([](SchemaSpec& s) {
                                  s.options = {{"bucket", "2"}, {"bucket-key", "a,b"}};
                                }),
                                0)
                .status());
}

}  // namespace
}  // namespace freshet::meta
