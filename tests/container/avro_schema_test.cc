#include <gtest/gtest.h>

#include "container/avro/avro_schema.h"
#include "testing/test_util.h"

namespace freshet::container::avro {
namespace {

// The shape of a Java Paimon manifest-list schema: nested record, nullable fields, defaults.
constexpr const char* kManifestListSchema =
    R"({"type":"record","name":"record",)"
    R"("namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},)"
    R"({"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS",)"
    R"("fields":[{"name":"_MIN_VALUES","type":"bytes"},)"
    R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],)"
    R"("default":null}]}},)"
    R"({"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],)"
    R"("default":null}]})";

TEST(AvroSchemaTest, ParsesPaimonManifestListSchema) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(kManifestListSchema));
  const AvroNode& root = schema.root();
  ASSERT_EQ(root.type, AvroType::kRecord);
  EXPECT_EQ(root.FullName(), "org.apache.paimon.avro.generated.record");
  ASSERT_EQ(root.fields.size(), 4u);
  EXPECT_EQ(root.fields[0].name, "_VERSION");
  EXPECT_EQ(root.fields[0].type->type, AvroType::kInt);
  EXPECT_EQ(root.FieldIndex("_FILE_NAME"), 1);
  EXPECT_EQ(root.FieldIndex("_NO_SUCH_FIELD"), -1);

  const AvroNode& stats = *root.fields[2].type;
  EXPECT_EQ(stats.FullName(), "org.apache.paimon.avro.generated.record__PARTITION_STATS");
  const AvroNode& null_counts = *stats.fields[1].type;
  ASSERT_EQ(null_counts.type, AvroType::kUnion);
  EXPECT_EQ(null_counts.NullBranch(), 0);
  EXPECT_EQ(null_counts.branches[1]->type, AvroType::kArray);
  EXPECT_EQ(null_counts.branches[1]->items->type, AvroType::kUnion);
  EXPECT_EQ(stats.fields[1].default_json, "null");

  const AvroNode& creation = *root.fields[3].type->branches[1];
  EXPECT_EQ(creation.type, AvroType::kLong);
  EXPECT_EQ(creation.logical_type, "timestamp-millis");
}

TEST(AvroSchemaTest, ToJsonMatchesJavaLayout) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(kManifestListSchema));
  // Java's Schema.toString() produces this exact text; byte equality keeps headers identical.
  EXPECT_EQ(schema.ToJson(), kManifestListSchema);
}

TEST(AvroSchemaTest, ToJsonRoundTripsEveryType) {
  const char* text =
      R"({"type":"record","name":"All","namespace":"n.s","fields":[)"
      R"({"name":"a","type":"null"},{"name":"b","type":"boolean"},{"name":"c","type":"int"},)"
      R"({"name":"d","type":"long"},{"name":"e","type":"float"},{"name":"f","type":"double"},)"
      R"({"name":"g","type":"bytes"},{"name":"h","type":"string"},)"
      R"({"name":"i","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},)"
      R"({"name":"j","type":{"type":"array","items":"Color"}},)"
      R"({"name":"k","type":{"type":"map","values":["null","string"]}},)"
      R"({"name":"l","type":{"type":"fixed","name":"Md5","namespace":"other","size":16}},)"
      R"({"name":"m","type":"other.Md5"},)"
      R"({"name":"n","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
      R"({"name":"o","type":{"type":"int","logicalType":"date"},"default":0}]})";
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(text));
  EXPECT_EQ(schema.ToJson(), text);
  const AvroNode& root = schema.root();
  EXPECT_EQ(root.fields[8].type->symbols, (std::vector<std::string>{"RED", "GREEN"}));
  // A named type referenced again resolves to the same node.
  EXPECT_EQ(root.fields[9].type->items, root.fields[8].type);
  EXPECT_EQ(root.fields[12].type, root.fields[11].type);
  EXPECT_EQ(root.fields[11].type->fixed_size, 16);
  EXPECT_EQ(root.fields[13].type->precision, 10);
  EXPECT_EQ(root.fields[13].type->scale, 2);
}

TEST(AvroSchemaTest, ResolvesRecursiveAndLaterReferences) {
  ASSERT_OK_AND_ASSIGN(
      AvroSchema schema,
      AvroSchema::Parse(R"({"type":"record","name":"Node","fields":[)"
                        R"({"name":"value","type":"long"},)"
                        R"({"name":"next","type":["null","Node"]},)"
                        R"({"name":"child","type":{"type":"record","name":"Leaf","fields":[]}},)"
                        R"({"name":"other","type":"Leaf"}]})"));
  const AvroNode& root = schema.root();
  EXPECT_EQ(root.fields[1].type->branches[1], &root);
  EXPECT_EQ(root.fields[3].type, root.fields[2].type);
  EXPECT_TRUE(root.fields[2].type->can_be_empty);
  EXPECT_FALSE(root.can_be_empty);
  // Serializing a recursive schema terminates and re-parses to the same text.
  ASSERT_OK_AND_ASSIGN(AvroSchema again, AvroSchema::Parse(schema.ToJson()));
  EXPECT_EQ(again.ToJson(), schema.ToJson());
}

TEST(AvroSchemaTest, PrimitiveRootAndObjectForm) {
  ASSERT_OK_AND_ASSIGN(AvroSchema a, AvroSchema::Parse(R"("string")"));
  EXPECT_EQ(a.root().type, AvroType::kString);
  ASSERT_OK_AND_ASSIGN(AvroSchema b, AvroSchema::Parse(R"({"type":"double"})"));
  EXPECT_EQ(b.root().type, AvroType::kDouble);
  EXPECT_EQ(b.ToJson(), R"("double")");
  ASSERT_OK_AND_ASSIGN(AvroSchema c, AvroSchema::Parse(R"(["null","int"])"));
  EXPECT_EQ(c.root().branches.size(), 2u);
}

TEST(AvroSchemaTest, SchemaOutlivesItsParsedObjectThroughShare) {
  std::shared_ptr<const AvroNode> node;
  {
    ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(kManifestListSchema));
    node = schema.Share(*schema.root().fields[2].type);
  }
  EXPECT_EQ(node->name, "record__PARTITION_STATS");
  EXPECT_EQ(node->fields[1].type->type, AvroType::kUnion);
}

TEST(AvroSchemaTest, RejectsInvalidSchemas) {
  struct Case {
    const char* text;
    const char* message_part;
  };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"42", "is not a string, array or object"},
      {R"("Unknown")", "unknown type 'Unknown'"},
      {R"({"type":"record","fields":[]})", "has no \"name\""},
      {R"({"type":"record","name":"R"})", "has no \"fields\" array"},
      {R"({"type":"record","name":"R","fields":[{"name":"a"}]})", "without \"name\" or \"type\""},
      {R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
       R"({"name":"a","type":"int"}]})",
       "two fields named 'a'"},
      {R"({"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]})",
       "field 'a': Avro schema refers to unknown type 'Nope'"},
      {R"(["int","int"])", "two branches of type 'int'"},
      {R"(["null",["int"]])", "directly contains another union"},
      {"[]", "no branches"},
      {R"({"type":"enum","name":"E","symbols":["A","A"]})", "invalid symbol"},
      {R"({"type":"fixed","name":"F","size":-1})", "no valid \"size\""},
      {R"({"type":"array"})", "has no \"items\""},
      {R"({"type":"map"})", "has no \"values\""},
      {R"({"type":"record","name":"1bad","fields":[]})", "not a valid name"},
      {R"({"type":"record","name":"R","fields":[{"name":"x","type":)"
       R"({"type":"record","name":"R","fields":[]}}]})",
       "defined twice"},
      {R"({"type":"bytes","logicalType":"decimal","precision":"ten"})", "precision"},
  };
  for (const Case& c : cases) {
    Result<AvroSchema> result = AvroSchema::Parse(c.text);
    ASSERT_FALSE(result.ok()) << c.text;
    EXPECT_TRUE(result.status().IsInvalid()) << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.message_part), std::string::npos)
        << c.text << " -> " << result.status().ToString();
  }
}

TEST(AvroSchemaTest, RejectsAbsurdNesting) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += R"({"type":"array","items":)";
  text += R"("int")";
  for (int i = 0; i < 1000; ++i) text += "}";
  Result<AvroSchema> result = AvroSchema::Parse(text);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("nested deeper"), std::string::npos);
}

}  // namespace
}  // namespace freshet::container::avro
