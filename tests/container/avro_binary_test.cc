#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "container/avro/avro_binary.h"
#include "testing/test_util.h"

namespace freshet::container::avro {
namespace {

std::string Encoded(int64_t v) {
  std::string out;
  EncodeLong(v, &out);
  return out;
}

AvroSchema MustParse(const std::string& text) {
  Result<AvroSchema> schema = AvroSchema::Parse(text);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return std::move(schema).MoveValueUnsafe();
}

TEST(AvroBinaryTest, ZigZagVarintsMatchTheSpec) {
  EXPECT_EQ(Encoded(0), std::string("\x00", 1));
  EXPECT_EQ(Encoded(-1), "\x01");
  EXPECT_EQ(Encoded(1), "\x02");
  EXPECT_EQ(Encoded(-64), "\x7f");
  EXPECT_EQ(Encoded(64), "\x80\x01");
  EXPECT_EQ(Encoded(std::numeric_limits<int64_t>::max()),
            "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  EXPECT_EQ(Encoded(std::numeric_limits<int64_t>::min()),
            "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  for (int64_t v :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{300}, int64_t{-300}, int64_t{1} << 40,
        std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    std::string bytes = Encoded(v);
    AvroDecoder in(bytes);
    ASSERT_OK_AND_ASSIGN(int64_t back, in.ReadLong());
    EXPECT_EQ(back, v);
    EXPECT_TRUE(in.at_end());
  }
}

TEST(AvroBinaryTest, FloatsAreLittleEndian) {
  std::string out;
  EncodeFloat(1.0f, &out);
  EncodeDouble(-2.0, &out);
  EXPECT_EQ(out, std::string("\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\xc0", 12));
}

// A record using every Avro type, nested records, arrays of records, maps of unions.
constexpr const char* kAllTypes =
    R"({"type":"record","name":"All","namespace":"t","fields":[)"
    R"({"name":"n","type":"null"},{"name":"b","type":"boolean"},{"name":"i","type":"int"},)"
    R"({"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},)"
    R"({"name":"by","type":"bytes"},{"name":"s","type":"string"},)"
    R"({"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},)"
    R"({"name":"fx","type":{"type":"fixed","name":"Four","size":4}},)"
    R"({"name":"arr","type":{"type":"array","items":{"type":"record","name":"Item","fields":[)"
    R"({"name":"k","type":"string"},{"name":"v","type":["null","long"]}]}}},)"
    R"({"name":"m","type":{"type":"map","values":["null","string","double"]}},)"
    R"({"name":"u","type":["null","Item"]},)"
    R"({"name":"nested","type":{"type":"array","items":{"type":"map","values":)"
    R"({"type":"array","items":"int"}}}}]})";

AvroValue MakeItem(const AvroSchema& schema, const std::string& k, std::optional<int64_t> v) {
  const AvroNode& item = *schema.root().fields[10].type->items;
  return AvroValue::Record(schema.Share(item),
                           {AvroValue::String(k), v ? AvroValue::Union(1, AvroValue::Long(*v))
                                                    : AvroValue::Union(0, AvroValue::Null())});
}

AvroValue MakeAllTypes(const AvroSchema& schema, int seed) {
  const AvroNode& root = schema.root();
  std::vector<AvroValue> items;
  for (int i = 0; i < seed % 4; ++i) {
    items.push_back(MakeItem(schema, "k" + std::to_string(i),
                             i % 2 ? std::nullopt : std::optional<int64_t>(i)));
  }
  std::vector<AvroValue> nested;
  for (int i = 0; i < seed % 3; ++i) {
    nested.push_back(
        AvroValue::Map({"a", "b"}, {AvroValue::Array({AvroValue::Int(i)}), AvroValue::Array({})}));
  }
  return AvroValue::Record(
      schema.root_ptr(),
      {AvroValue::Null(), AvroValue::Boolean(seed % 2 == 0), AvroValue::Int(-seed * 1000),
       AvroValue::Long(int64_t{seed} << 40), AvroValue::Float(1.5f * seed),
       AvroValue::Double(-0.125 * seed), AvroValue::Bytes(std::string("\x00\xff\x7f", 3)),
       AvroValue::String("h\xc3\xa9llo " + std::to_string(seed)),
       AvroValue::Enum(seed % 3, schema.Share(*root.fields[8].type)),
       AvroValue::Fixed(std::string("\x01\x02\x03", 3) + static_cast<char>(seed)),
       AvroValue::Array(std::move(items)),
       AvroValue::Map({"x", "y", "z"}, {AvroValue::Union(0, AvroValue::Null()),
                                        AvroValue::Union(1, AvroValue::String("s")),
                                        AvroValue::Union(2, AvroValue::Double(seed))}),
       seed % 2 ? AvroValue::Union(1, MakeItem(schema, "u", seed))
                : AvroValue::Union(0, AvroValue::Null()),
       AvroValue::Array(std::move(nested))});
}

TEST(AvroBinaryTest, EveryTypeRoundTrips) {
  AvroSchema schema = MustParse(kAllTypes);
  for (int seed = 0; seed < 7; ++seed) {
    AvroValue value = MakeAllTypes(schema, seed);
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDatum(schema, value));
    ASSERT_OK_AND_ASSIGN(AvroValue back, DecodeDatum(schema, bytes));
    EXPECT_EQ(back, value) << back.ToString() << "\nvs\n" << value.ToString();
    EXPECT_EQ(back.GetField("e")->enum_symbol(),
              std::vector<std::string>({"RED", "GREEN", "BLUE"})[seed % 3]);
    // A nullable record can be looked into without unwrapping.
    if (seed % 2) {
      EXPECT_EQ(back.GetField("u")->GetField("k")->string_value(), "u");
    }
  }
}

TEST(AvroBinaryTest, FieldLookupByNameFollowsTheWriterSchema) {
  AvroSchema schema = MustParse(kAllTypes);
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDatum(schema, MakeAllTypes(schema, 3)));
  ASSERT_OK_AND_ASSIGN(AvroValue record, DecodeDatum(schema, bytes));
  ASSERT_NE(record.GetField("l"), nullptr);
  EXPECT_EQ(record.GetField("l")->long_value(), int64_t{3} << 40);
  ASSERT_OK_AND_ASSIGN(int64_t l, record.GetField("l")->GetLong());
  EXPECT_EQ(l, int64_t{3} << 40);
  // A field the writer schema lacks is nullptr, which reads as null.
  EXPECT_EQ(record.GetField("_MISSING"), nullptr);
  EXPECT_TRUE(IsNullOrMissing(record.GetField("_MISSING")));
  EXPECT_TRUE(IsNullOrMissing(record.GetField("n")));
  EXPECT_FALSE(IsNullOrMissing(record.GetField("s")));
  // Typed accessors report mismatches instead of crashing.
  Result<int32_t> wrong = record.GetField("s")->GetInt();
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "expected an Avro int, found string");
  EXPECT_EQ(record.GetField("l")->GetField("x"), nullptr);  // not a record
}

TEST(AvroBinaryTest, EmptyRecordIsFilledByName) {
  AvroSchema schema =
      MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
                R"({"name":"b","type":["null","string"]}]})");
  AvroValue record = AvroValue::EmptyRecord(schema.root_ptr());
  *record.MutableField("a") = AvroValue::Int(7);
  // A plain value goes to the matching union branch.
  *record.MutableField("b") = AvroValue::String("x");
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDatum(schema, record));
  EXPECT_EQ(bytes, std::string("\x0e\x02\x02x", 4));
  *record.MutableField("b") = AvroValue::Null();
  ASSERT_OK_AND_ASSIGN(bytes, EncodeDatum(schema, record));
  EXPECT_EQ(bytes, std::string("\x0e\x00", 2));
}

TEST(AvroBinaryTest, MutableAccessorsSeeThroughUnions) {
  AvroSchema schema =
      MustParse(R"(["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
                R"({"name":"m","type":{"type":"map","values":"bytes"}}]}])");
  AvroValue value =
      AvroValue::Union(1, AvroValue::EmptyRecord(schema.Share(*schema.root().branches[1])));
  value.mutable_fields()[0] = AvroValue::Int(5);
  EXPECT_EQ(value.GetField("a")->int_value(), 5);
  *value.MutableField("m") = AvroValue::Map({"k"}, {AvroValue::Bytes("\x01")});
  EXPECT_EQ(value.ToString(), R"({"a": 5, "m": {"k": "\x01"}})");
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDatum(schema, value));
  ASSERT_OK_AND_ASSIGN(AvroValue back, DecodeDatum(schema, bytes));
  EXPECT_EQ(back, value);
  // A map whose keys and values disagree is refused, not read out of bounds.
  value.MutableField("m")->mutable_items().push_back(AvroValue::Bytes("x"));
  Result<std::string> bad = EncodeDatum(schema, value);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "field 'm': map value has 1 keys but 2 values");
}

TEST(AvroBinaryTest, IntIsPromotedToLongAndFloatToDouble) {
  AvroSchema schema = MustParse(R"(["null","long","double"])");
  ASSERT_OK_AND_ASSIGN(std::string a, EncodeDatum(schema, AvroValue::Int(3)));
  EXPECT_EQ(a, "\x02\x06");
  ASSERT_OK_AND_ASSIGN(std::string b, EncodeDatum(schema, AvroValue::Float(1.0f)));
  EXPECT_EQ(b, std::string("\x04\x00\x00\x00\x00\x00\x00\xf0\x3f", 9));
}

TEST(AvroBinaryTest, EncodingRejectsValuesThatDoNotFit) {
  AvroSchema schema = MustParse(kAllTypes);
  AvroValue value = MakeAllTypes(schema, 1);
  value.mutable_fields()[7] = AvroValue::Long(1);
  Result<std::string> r1 = EncodeDatum(schema, value);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.status().message(), "field 's': cannot write an Avro long value as string");

  value = MakeAllTypes(schema, 1);
  value.mutable_fields()[9] = AvroValue::Fixed("abc");
  EXPECT_FALSE(EncodeDatum(schema, value).ok());

  value = MakeAllTypes(schema, 1);
  value.mutable_fields().pop_back();
  EXPECT_FALSE(EncodeDatum(schema, value).ok());

  value = MakeAllTypes(schema, 1);
  value.mutable_fields()[12] = AvroValue::Union(5, AvroValue::Null());
  EXPECT_FALSE(EncodeDatum(schema, value).ok());

  value = MakeAllTypes(schema, 1);
  value.mutable_fields()[12] = AvroValue::Int(1);
  Result<std::string> r2 = EncodeDatum(schema, value);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("matches no branch"), std::string::npos);
}

// Decoding untrusted bytes: each case is a clear Corruption, never a crash or a huge allocation.
TEST(AvroBinaryTest, CorruptInputIsReportedNotTrusted) {
  struct Case {
    const char* schema;
    std::string bytes;
    const char* message_part;
  };
  const Case cases[] = {
      {R"("long")", std::string(10, '\xff') + "\x01", "overflows 64 bits"},
      {R"("long")", std::string(9, '\xff') + "\x02", "overflows 64 bits"},
      {R"("long")", "\x80\x80", "varint at byte 2 is truncated"},
      {R"("int")", "\x80\x80\x80\x80\x20", "out of range"},
      {R"("string")", "\x01", "negative length -1"},
      {R"("bytes")",
       "\x10"
       "abc",
       "byte string at byte 1 is truncated (needs 8 bytes, 3 left)"},
      {R"("boolean")", "\x02", "invalid value 2"},
      {R"("double")", "abc", "double at byte 0 is truncated"},
      {R"({"type":"fixed","name":"F","size":8})", "abc", "fixed at byte 0 is truncated"},
      {R"({"type":"enum","name":"E","symbols":["A"]})", "\x02", "enum index 1"},
      {R"(["null","int"])", "\x04", "union branch 2"},
      {R"(["null","int"])", "\x01", "union branch -1"},
      {R"({"type":"array","items":"long"})", "\xfe\xff\xff\xff\x0f", "claims 2147483647 items"},
      {R"({"type":"map","values":"null"})", "\xfe\xff\xff\xff\x0f", "claims 2147483647 items"},
      {R"({"type":"array","items":"null"})", "\xfe\xff\xff\xff\xff\x0f", "empty items"},
      {R"({"type":"array","items":"long"})", "\x03\x7e\x02", "claims a size of 63 bytes"},
      {R"({"type":"array","items":"long"})", "\x03\x01\x02", "claims a size of -1 bytes"},
      {R"({"type":"array","items":"long"})", std::string("\x02\x02\x00\x00", 4), "unread bytes"},
      {R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},)"
       R"({"name":"b","type":"string"}]})",
       "\x02\x09", "field 'b': byte string at byte 1 has negative length -5"},
  };
  for (const Case& c : cases) {
    AvroSchema schema = MustParse(c.schema);
    Result<AvroValue> result = DecodeDatum(schema, c.bytes);
    ASSERT_FALSE(result.ok()) << c.schema;
    EXPECT_TRUE(result.status().IsCorruption()) << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.message_part), std::string::npos)
        << c.schema << " -> " << result.status().ToString();
  }
}

TEST(AvroBinaryTest, NegativeBlockCountsWithSizesDecode) {
  AvroSchema schema = MustParse(R"({"type":"map","values":"int"})");
  // Block of -2 entries with byte size 6, then a block of 1 entry, then the end.
  std::string bytes(
      "\x03\x0c\x02"
      "a\x02\x02"
      "b\x04\x02\x02"
      "c\x06\x00",
      13);
  ASSERT_OK_AND_ASSIGN(AvroValue map, DecodeDatum(schema, bytes));
  EXPECT_EQ(map.map_keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(map.items()[2].int_value(), 3);
}

TEST(AvroBinaryTest, DeepRecursionIsBounded) {
  AvroSchema schema =
      MustParse(R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})");
  std::string ok_bytes = std::string(100, '\x02') + std::string(1, '\x00');
  ASSERT_OK_AND_ASSIGN(AvroValue list, DecodeDatum(schema, ok_bytes));
  EXPECT_FALSE(list.GetField("next")->is_null());
  std::string deep(100000, '\x02');
  Result<AvroValue> result = DecodeDatum(schema, deep);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("nested deeper"), std::string::npos);
}

TEST(AvroBinaryTest, NanRoundTripsAndCompares) {
  AvroSchema schema = MustParse(R"("double")");
  AvroValue nan = AvroValue::Double(std::numeric_limits<double>::quiet_NaN());
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDatum(schema, nan));
  ASSERT_OK_AND_ASSIGN(AvroValue back, DecodeDatum(schema, bytes));
  EXPECT_TRUE(std::isnan(back.double_value()));
  EXPECT_EQ(back, nan);
}

}  // namespace
}  // namespace freshet::container::avro
