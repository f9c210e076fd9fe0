// Bucket ids computed by freshet equal the ids Java Paimon's own write path assigns, for random
// rows of every primitive type, many bucket-key shapes and bucket counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "interop/interop_harness.h"
#include "io/file_io.h"
#include "meta/bucket/bucket_function.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

using meta::DataField;
using meta::DataType;
using meta::DataTypePtr;
using meta::Decimal;
using meta::Timestamp;
using meta::TypeRoot;
using meta::Value;

DataTypePtr Must(Result<DataTypePtr> type) { return *type; }

// One column per primitive type (and per storage variant: compact / non-compact DECIMAL and
// TIMESTAMP, inline / out-of-line strings).
std::vector<DataField> PrimitiveColumns() {
  std::vector<std::pair<std::string, DataTypePtr>> columns = {
      {"c_bool", DataType::Boolean()},
      {"c_tiny", DataType::TinyInt()},
      {"c_small", DataType::SmallInt()},
      {"c_int", DataType::Int()},
      {"c_big", DataType::BigInt()},
      {"c_float", DataType::Float()},
      {"c_double", DataType::Double()},
      {"c_dec9", Must(DataType::Decimal(9, 2))},
      {"c_dec18", Must(DataType::Decimal(18, 6))},
      {"c_dec20", Must(DataType::Decimal(20, 4))},
      {"c_dec38", Must(DataType::Decimal(38, 10))},
      {"c_char", Must(DataType::Char(10))},
      {"c_varchar", Must(DataType::VarChar(20))},
      {"c_string", DataType::String()},
      {"c_binary", Must(DataType::Binary(12))},
      {"c_bytes", DataType::Bytes()},
      {"c_date", DataType::Date()},
      {"c_time", Must(DataType::Time(3))},
      {"c_ts0", Must(DataType::Timestamp(0))},
      {"c_ts3", Must(DataType::Timestamp(3))},
      {"c_ts6", Must(DataType::Timestamp(6))},
      {"c_ts9", Must(DataType::Timestamp(9))},
      {"c_ltz3", Must(DataType::TimestampLtz(3))},
      {"c_ltz6", Must(DataType::TimestampLtz(6))},
      {"c_ltz9", Must(DataType::TimestampLtz(9))},
  };
  std::vector<DataField> fields;
  for (auto& [name, type] : columns) {
    DataField f;
    f.id = static_cast<int32_t>(fields.size());
    f.name = name;
    f.type = type;
    fields.push_back(f);
  }
  return fields;
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

class RowGenerator {
 public:
  explicit RowGenerator(uint64_t seed) : rng_(seed) {}

  Value Next(const DataType& type) {
    if (Chance(0.08)) return Value::Null();
    switch (type.root()) {
      case TypeRoot::kBoolean:
        return Value::Boolean(Chance(0.5));
      case TypeRoot::kTinyInt:
        return Value::TinyInt(static_cast<int8_t>(Integral(INT8_MIN, INT8_MAX)));
      case TypeRoot::kSmallInt:
        return Value::SmallInt(static_cast<int16_t>(Integral(INT16_MIN, INT16_MAX)));
      case TypeRoot::kInt:
        return Value::Int(static_cast<int32_t>(Integral(INT32_MIN, INT32_MAX)));
      case TypeRoot::kBigInt:
        return Value::BigInt(Integral(INT64_MIN, INT64_MAX));
      case TypeRoot::kFloat:
        return Value::Float(RandomFloating<float, uint32_t>());
      case TypeRoot::kDouble:
        return Value::Double(RandomFloating<double, uint64_t>());
      case TypeRoot::kDecimal:
        return Value::Dec(RandomDecimal(type.precision(), type.scale()));
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
        // Java counts CHAR/VARCHAR lengths in UTF-16 units; a 4-byte character takes two.
        return Value::String(
            RandomUtf8(type.length() == DataType::kMaxLength ? 40 : type.length() / 2));
      case TypeRoot::kBinary:
      case TypeRoot::kVarBinary:
        return Value::Bytes(
            RandomBytes(type.length() == DataType::kMaxLength ? 40 : type.length()));
      case TypeRoot::kDate:
        return Value::Int(RandomDay());
      case TypeRoot::kTime:
        return Value::Int(Chance(0.05) ? (Chance(0.5) ? 0 : 86399999)
                                       : static_cast<int32_t>(Integral(0, 86399999)));
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz:
        return Value::Ts(RandomTimestamp(type.precision()));
      default:
        return Value::Null();
    }
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  // Mostly uniform, sometimes a boundary value.
  int64_t Integral(int64_t lo, int64_t hi) {
    if (Chance(0.1)) {
      const int64_t edges[] = {lo, hi, 0, -1, 1};
      int64_t v = edges[Uniform(0, 4)];
      return v < lo ? lo : v;
    }
    if (Chance(0.3)) return Uniform(std::max<int64_t>(lo, -1000), std::min<int64_t>(hi, 1000));
    return Uniform(lo, hi);
  }

  template <typename F, typename Bits>
  F RandomFloating() {
    if (Chance(0.15)) {
      const F edges[] = {F(0),
                         -F(0),
                         std::numeric_limits<F>::quiet_NaN(),
                         std::numeric_limits<F>::infinity(),
                         -std::numeric_limits<F>::infinity(),
                         std::numeric_limits<F>::denorm_min(),
                         std::numeric_limits<F>::max(),
                         std::numeric_limits<F>::lowest(),
                         F(1),
                         F(0.1)};
      return edges[Uniform(0, 9)];
    }
    if (Chance(0.4)) return static_cast<F>(Uniform(-100000, 100000)) / F(64);
    Bits bits = static_cast<Bits>(rng_());
    F v;
    std::memcpy(&v, &bits, sizeof(v));
    // Text can only carry Java's canonical NaN.
    return std::isnan(v) ? std::numeric_limits<F>::quiet_NaN() : v;
  }

  Decimal RandomDecimal(int32_t precision, int32_t scale) {
    __int128 limit = Pow10(precision);  // |unscaled| < 10^precision
    __int128 unscaled;
    if (Chance(0.1)) {
      const __int128 edges[] = {0, 1, -1, limit - 1, -(limit - 1)};
      unscaled = edges[Uniform(0, 4)];
    } else {
      unsigned __int128 raw = (static_cast<unsigned __int128>(rng_()) << 64) | rng_();
      // A random number of digits, so small magnitudes are common too.
      __int128 bound = Pow10(static_cast<int>(Uniform(1, precision)));
      unscaled = static_cast<__int128>(raw % static_cast<unsigned __int128>(bound));
      if (Chance(0.5)) unscaled = -unscaled;
    }
    return Decimal{unscaled, precision, scale};
  }

  std::string RandomUtf8(int max_chars) {
    static const char* kPieces[] = {
        "a",  "Z",  "0", " ", "\"", "\\",           "/", "\n", "\x01", "\x7f", "é", "ß", "Ω",
        "中", "文", "€", "😀", "𝄞",  "\xe2\x80\x8b", "x", "y",  "long", "q",    ",", "=", ":"};
    int n =
        static_cast<int>(Chance(0.5) ? Uniform(0, std::min(max_chars, 8)) : Uniform(0, max_chars));
    std::string out;
    int chars = 0;
    while (chars < n) {
      std::string piece = kPieces[Uniform(0, std::size(kPieces) - 1)];
      if (piece == "long") piece = "k";
      out += piece;
      ++chars;
    }
    return out;
  }

  std::string RandomBytes(int max_len) {
    int n = static_cast<int>(Chance(0.5) ? Uniform(0, std::min(max_len, 8)) : Uniform(0, max_len));
    std::string out;
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(Uniform(0, 255)));
    return out;
  }

  int32_t RandomDay() {
    if (Chance(0.1)) {
      const int32_t edges[] = {meta::EpochDayFromCivil(1, 1, 1),
                               meta::EpochDayFromCivil(9999, 12, 31), 0, -1,
                               meta::EpochDayFromCivil(2000, 2, 29)};
      return edges[Uniform(0, 4)];
    }
    return static_cast<int32_t>(
        Uniform(meta::EpochDayFromCivil(1900, 1, 1), meta::EpochDayFromCivil(2100, 12, 31)));
  }

  Timestamp RandomTimestamp(int32_t precision) {
    constexpr int64_t kDay = 86400000;
    Timestamp ts;
    if (Chance(0.1)) {
      const int64_t edges[] = {meta::EpochDayFromCivil(1, 1, 1) * kDay,
                               meta::EpochDayFromCivil(9999, 12, 31) * kDay + kDay - 1, 0, -1,
                               -kDay};
      ts.millis = edges[Uniform(0, 4)];
      ts.nano_of_milli = static_cast<int32_t>(Chance(0.5) ? 999999 : 0);
    } else {
      ts.millis = Uniform(meta::EpochDayFromCivil(1900, 1, 1) * kDay,
                          meta::EpochDayFromCivil(2100, 12, 31) * kDay);
      ts.nano_of_milli = static_cast<int32_t>(Uniform(0, 999999));
    }
    // Keep only the digits the column holds (the harness does not truncate its input).
    if (precision == 0) {
      ts.millis -= ((ts.millis % 1000) + 1000) % 1000;
      ts.nano_of_milli = 0;
    } else if (precision <= 3) {
      ts.nano_of_milli = 0;
    } else if (precision <= 6) {
      ts.nano_of_milli -= ts.nano_of_milli % 1000;
    }
    return ts;
  }

  std::mt19937_64 rng_;
};

int RowCountFromEnv() {
  const char* text = std::getenv("FRESHET_INTEROP_BUCKET_ROWS");
  return text != nullptr && *text != '\0' ? std::atoi(text) : 10000;
}

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

struct KeyShape {
  std::vector<std::string> columns;
  int32_t buckets;
};

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

TEST(BucketInteropTest, BucketIdsOfRandomRowsEqualJavaForEveryKeyShape) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  const uint64_t seed = SeedFromEnv();
  const int num_rows = RowCountFromEnv();
  std::cout << "bucket interop: seed " << seed << " (set FRESHET_INTEROP_SEED=" << seed
            << " to repeat), " << num_rows << " rows" << std::endl;
  SCOPED_TRACE("FRESHET_INTEROP_SEED=" + std::to_string(seed));

  const std::vector<DataField> fields = PrimitiveColumns();
  RowGenerator gen(seed);
  std::vector<std::vector<Value>> rows(num_rows);
  for (auto& row : rows) {
    for (const auto& f : fields) row.push_back(gen.Next(*f.type));
  }

  // Every single column, then multi-column keys (order matters: the key row follows bucket-key
  // order, not table order). Bucket counts vary from 1 to Integer.MAX_VALUE, which exposes
  // almost the whole hash.
  const int32_t kBucketCounts[] = {2,    3,     7,      10,      16,      100,        128,
                                   997,  1024,  12345,  65536,   1000003, 2147483647, 5,
                                   4096, 33331, 999999, 8388608, 31,      123456789,  65521};
  std::vector<KeyShape> shapes;
  for (size_t i = 0; i < fields.size(); ++i) {
    shapes.push_back(
        {{fields[i].name}, kBucketCounts[i % (sizeof(kBucketCounts) / sizeof(int32_t))]});
  }
  std::vector<std::string> all_columns;
  for (const auto& f : fields) all_columns.push_back(f.name);
  shapes.push_back({{"c_int", "c_string"}, 1});
  shapes.push_back({{"c_int", "c_string"}, 4});
  shapes.push_back({{"c_string", "c_dec38", "c_ts9", "c_bytes"}, 12345});
  shapes.push_back({{"c_big", "c_bool", "c_date", "c_ltz9", "c_float"}, 2147483647});
  shapes.push_back({{"c_double", "c_char", "c_time", "c_dec18", "c_tiny", "c_small"}, 1000});
  shapes.push_back({{"c_ts6", "c_int", "c_dec20", "c_varchar", "c_binary"}, 77});
  shapes.push_back({all_columns, 2147483647});

  // Each shape gets a table of just its key columns (in table order; the bucket-key option
  // lists them in shape order) and the rows projected onto them: less JSON for Java to parse.
  freshet::testing::TempDir tmp;
  struct ShapeTable {
    std::string path;
    std::vector<size_t> columns;  // indexes into `fields`, table order
  };
  std::vector<ShapeTable> tables;
  std::vector<Chain> chains;
  for (size_t s = 0; s < shapes.size(); ++s) {
    ShapeTable t;
    t.path = tmp.Sub("wh/bucket.db/shape_" + std::to_string(s));
    for (size_t i = 0; i < fields.size(); ++i) {
      if (std::find(shapes[s].columns.begin(), shapes[s].columns.end(), fields[i].name) !=
          shapes[s].columns.end()) {
        t.columns.push_back(i);
      }
    }
    std::vector<DataField> table_fields;
    for (size_t i : t.columns) table_fields.push_back(fields[i]);
    std::string spec = "{\"fields\": [";
    for (size_t i = 0; i < table_fields.size(); ++i) {
      spec += (i ? ", " : "") + std::string("{\"name\": ") + JsonString(table_fields[i].name) +
              ", \"type\": " + JsonString(table_fields[i].type->ToString()) + "}";
    }
    spec += "], \"options\": {\"bucket\": \"" + std::to_string(shapes[s].buckets) +
            "\", \"bucket-key\": " + JsonString(Join(shapes[s].columns, ",")) + "}}";
    std::string jsonl;
    for (const auto& row : rows) {
      std::vector<Value> projected;
      for (size_t i : t.columns) projected.push_back(row[i]);
      jsonl += JsonRow(table_fields, projected) + "\n";
    }
    std::string spec_path = tmp.Sub("schema_" + std::to_string(s) + ".json");
    std::string rows_path = tmp.Sub("rows_" + std::to_string(s) + ".jsonl");
    WriteTextFile(spec_path, spec);
    WriteTextFile(rows_path, jsonl);
    chains.push_back({JavaCommand({"create", "--table", t.path, "--schema", spec_path}),
                      JavaCommand({"bucket", "--table", t.path, "--input", rows_path})});
    tables.push_back(std::move(t));
  }
  auto start = std::chrono::steady_clock::now();
  auto results = RunChains(chains);
  std::cout << "bucket interop: " << 2 * shapes.size() << " Java runs took "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s" << std::endl;
  ASSERT_EQ(FirstFailure(results), "");

  auto file_io = io::LocalFileIO();
  int64_t compared = 0;
  for (size_t s = 0; s < shapes.size(); ++s) {
    const KeyShape& shape = shapes[s];
    SCOPED_TRACE("bucket-key " + Join(shape.columns, ",") + ", bucket " +
                 std::to_string(shape.buckets));
    ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, tables[s].path).ReadSchema(0));
    // The table Java made is the one we think it is.
    ASSERT_EQ(schema.fields().size(), tables[s].columns.size());
    for (size_t i = 0; i < tables[s].columns.size(); ++i) {
      const DataField& expected = fields[tables[s].columns[i]];
      ASSERT_TRUE(schema.fields()[i].type->Equals(*expected.type))
          << schema.fields()[i].type->ToString() << " vs " << expected.type->ToString();
    }
    ASSERT_EQ(schema.BucketKeys(), shape.columns);
    ASSERT_EQ(schema.bucket(), shape.buckets);

    std::vector<std::string> java_ids = SplitLines(results[s][1].out);
    ASSERT_EQ(java_ids.size(), rows.size());
    int mismatches = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<Value> projected;
      for (size_t i : tables[s].columns) projected.push_back(rows[r][i]);
      ASSERT_OK_AND_ASSIGN(meta::BinaryRow key_row, meta::BucketKeyRowOf(schema, projected));
      ASSERT_OK_AND_ASSIGN(int32_t ours, meta::BucketOf(key_row, schema.bucket()));
      ++compared;
      if (std::to_string(ours) != java_ids[r]) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << "row " << r << ": Java bucket " << java_ids[r] << ", freshet " << ours
                        << "\n  key row " << Hex(key_row.bytes()) << "\n  row "
                        << JsonRow(fields, rows[r]);
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << mismatches << " of " << rows.size() << " bucket ids differ";
  }
  std::cout << "bucket interop: compared " << compared << " bucket ids over " << shapes.size()
            << " key shapes" << std::endl;
}

}  // namespace
}  // namespace freshet::interop
