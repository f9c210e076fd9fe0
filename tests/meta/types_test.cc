#include <gtest/gtest.h>

#include "common/json.h"
#include "meta/types/data_type.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

std::string Canonical(std::string_view sql) {
  auto type = ParseAtomicType(sql);
  if (!type.ok()) return "ERROR: " + type.status().message();
  return (*type)->ToString();
}

TEST(DataTypeTest, ParsesCanonicalAtomicForms) {
  for (const char* sql : {"BOOLEAN",
                          "TINYINT",
                          "SMALLINT",
                          "INT",
                          "BIGINT",
                          "FLOAT",
                          "DOUBLE",
                          "DATE",
                          "STRING",
                          "BYTES",
                          "VARCHAR(10)",
                          "CHAR(3)",
                          "BINARY(4)",
                          "VARBINARY(5)",
                          "DECIMAL(2, 2)",
                          "DECIMAL(38, 10)",
                          "TIME(0)",
                          "TIME(3)",
                          "TIMESTAMP(0)",
                          "TIMESTAMP(9)",
                          "TIMESTAMP(3) WITH LOCAL TIME ZONE",
                          "VARIANT",
                          "BLOB",
                          "INT NOT NULL",
                          "STRING NOT NULL",
                          "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"}) {
    EXPECT_EQ(Canonical(sql), sql);
  }
}

TEST(DataTypeTest, AcceptsAliasesAndDefaults) {
  EXPECT_EQ(Canonical("integer"), "INT");
  EXPECT_EQ(Canonical("Dec"), "DECIMAL(10, 0)");
  EXPECT_EQ(Canonical("NUMERIC(5)"), "DECIMAL(5, 0)");
  EXPECT_EQ(Canonical("DECIMAL"), "DECIMAL(10, 0)");
  EXPECT_EQ(Canonical("double precision"), "DOUBLE");
  EXPECT_EQ(Canonical("VARCHAR"), "VARCHAR(1)");
  EXPECT_EQ(Canonical("CHAR"), "CHAR(1)");
  EXPECT_EQ(Canonical("BINARY"), "BINARY(1)");
  EXPECT_EQ(Canonical("VARCHAR(2147483647)"), "STRING");
  EXPECT_EQ(Canonical("VARBINARY(2147483647)"), "BYTES");
  EXPECT_EQ(Canonical("TIME"), "TIME(0)");
  EXPECT_EQ(Canonical("TIMESTAMP"), "TIMESTAMP(6)");
  EXPECT_EQ(Canonical("TIMESTAMP WITHOUT TIME ZONE"), "TIMESTAMP(6)");
  EXPECT_EQ(Canonical("TIMESTAMP_LTZ(3)"), "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  EXPECT_EQ(Canonical("timestamp_ltz"), "TIMESTAMP(6) WITH LOCAL TIME ZONE");
  EXPECT_EQ(Canonical("INT NULL"), "INT");
  EXPECT_EQ(Canonical("  bigint   not   null "), "BIGINT NOT NULL");
}

TEST(DataTypeTest, RejectsBadTypes) {
  for (const char* sql : {"FOO", "DECIMAL(0, 0)", "DECIMAL(39, 0)", "DECIMAL(5, 6)", "INT NOT",
                          "VARCHAR(0)", "TIMESTAMP(10)", "INT INT", "DECIMAL(5", "CHAR(x)", "",
                          "TIME(3) WITH LOCAL TIME ZONE", "VARCHAR(99999999999)"}) {
    auto type = ParseAtomicType(sql);
    ASSERT_FALSE(type.ok()) << sql;
    EXPECT_TRUE(type.status().IsInvalid());
    EXPECT_NE(type.status().message().find("invalid data type"), std::string::npos)
        << type.status().message();
  }
  EXPECT_NE(ParseAtomicType("DECIMAL(39,0)").status().message().find("precision"),
            std::string::npos);
  EXPECT_NE(ParseAtomicType("FOO").status().message().find("unknown type 'FOO'"),
            std::string::npos);
}

TEST(DataTypeTest, CompositeJsonRoundTrip) {
  const char* text = R"({"type":"ROW NOT NULL","fields":[
      {"id":3,"name":"m","type":{"type":"MAP","key":"STRING NOT NULL","value":"INT"}},
      {"id":4,"name":"a","type":{"type":"ARRAY NOT NULL","element":"FLOAT"},"description":"it's"},
      {"id":5,"name":"s","type":{"type":"MULTISET","element":"DATE"},"defaultValue":"x"}]})";
  Json json = Json::parse(text);
  ASSERT_OK_AND_ASSIGN(DataTypePtr type, DataTypeFromJson(json));
  EXPECT_EQ(type->root(), TypeRoot::kRow);
  EXPECT_FALSE(type->nullable());
  EXPECT_EQ(DataTypeToJson(*type), json);
  EXPECT_EQ(type->ToString(),
            "ROW<`m` MAP<STRING NOT NULL, INT>, `a` ARRAY<FLOAT> NOT NULL 'it''s', "
            "`s` MULTISET<DATE>> NOT NULL");
  EXPECT_EQ(type->FieldIndexByName("a"), 1);
  EXPECT_EQ(type->FieldIndexById(5), 2);
  EXPECT_EQ(type->FieldIndexByName("zz"), -1);
  ASSERT_OK_AND_ASSIGN(DataTypePtr again, DataTypeFromJson(DataTypeToJson(*type)));
  EXPECT_TRUE(again->Equals(*type));
  EXPECT_FALSE(again->Equals(*type->WithNullable(true)));
}

TEST(DataTypeTest, RejectsBadCompositeJson) {
  EXPECT_FALSE(DataTypeFromJson(Json::parse(R"({"type":"ARRAY"})")).ok());
  EXPECT_FALSE(DataTypeFromJson(Json::parse(R"({"type":"LIST","element":"INT"})")).ok());
  EXPECT_FALSE(DataTypeFromJson(Json::parse(R"({"type":"ROW","fields":[{"name":"x"}]})")).ok());
  EXPECT_FALSE(DataTypeFromJson(Json::parse("42")).ok());
}

TEST(DataTypeTest, EqualityAndNullability) {
  EXPECT_TRUE(DataType::Int()->Equals(*DataType::Int()));
  EXPECT_FALSE(DataType::Int()->Equals(*DataType::Int(false)));
  EXPECT_FALSE(DataType::String()->Equals(*DataType::Bytes()));
  EXPECT_TRUE((*DataType::Decimal(30, 20))->Equals(**DataType::Decimal(30, 20)));
  EXPECT_FALSE((*DataType::Decimal(30, 20))->Equals(**DataType::Decimal(30, 2)));
  EXPECT_TRUE((*DataType::Decimal(18, 0))->IsCompactDecimal());
  EXPECT_FALSE((*DataType::Decimal(19, 0))->IsCompactDecimal());
  EXPECT_TRUE((*DataType::TimestampLtz(3))->IsCompactTimestamp());
  EXPECT_FALSE((*DataType::Timestamp(4))->IsCompactTimestamp());
}

TEST(JacksonJsonTest, MatchesJacksonDefaultPrettyPrinter) {
  Json json = Json::parse(R"({"a":1,"b":[],"c":{},"d":["x","y"],"e":[{"k":"v"},{"k":2}]})");
  EXPECT_EQ(ToJacksonPrettyJson(json),
            "{\n  \"a\" : 1,\n  \"b\" : [ ],\n  \"c\" : { },\n  \"d\" : [ \"x\", \"y\" ],\n"
            "  \"e\" : [ {\n    \"k\" : \"v\"\n  }, {\n    \"k\" : 2\n  } ]\n}");
  EXPECT_EQ(JacksonQuote("a\"b\\c\n\x01/\xc3\xa9"), "\"a\\\"b\\\\c\\n\\u0001/\xc3\xa9\"");
}

}  // namespace
}  // namespace freshet::meta
