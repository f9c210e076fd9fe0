// Differential tests against fastavro, an independent Avro implementation (installed in
// .venv-pypaimon by scripts/setup.sh). Files go both ways; records are compared as JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "container/avro/avro_file.h"
#include "testing/test_util.h"

namespace freshet::container::avro {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Maps fastavro's Python values to JSON the same way ValueToJson() maps ours: bytes become
// {"$bytes": hex}, timestamps become epoch millis, unions are unwrapped, enums are symbols.
constexpr const char* kScript = R"PY(
import datetime, json, sys
import fastavro

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

def to_json(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return (v - EPOCH) // datetime.timedelta(milliseconds=1)
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    raise TypeError("unexpected value type %s" % type(v))

def from_json(v):
    if isinstance(v, dict):
        if list(v) == ["$bytes"]:
            return bytes.fromhex(v["$bytes"])
        return {k: from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_json(x) for x in v]
    return v

if sys.argv[1] == "read":
    out = {}
    for path in sys.argv[3:]:
        with open(path, "rb") as f:
            reader = fastavro.reader(f)
            out[path] = {"codec": reader.codec, "records": [to_json(r) for r in reader]}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)
elif sys.argv[1] == "write":
    _, _, schema_path, records_path, codec, sync_interval, out_path = sys.argv
    with open(schema_path) as f:
        schema = fastavro.parse_schema(json.load(f))
    with open(records_path) as f:
        records = from_json(json.load(f))
    with open(out_path, "wb") as f:
        fastavro.writer(f, schema, records, codec=codec, sync_interval=int(sync_interval))
)PY";

std::string Python() { return std::string(FRESHET_SOURCE_DIR) + "/.venv-pypaimon/bin/python"; }

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Json ValueToJson(const AvroValue& v) {
  switch (v.type()) {
    case AvroType::kNull:
      return nullptr;
    case AvroType::kBoolean:
      return v.bool_value();
    case AvroType::kInt:
    case AvroType::kLong:
      return v.long_value();
    case AvroType::kFloat:
    case AvroType::kDouble:
      return v.double_value();
    case AvroType::kString:
      return v.string_value();
    case AvroType::kBytes:
    case AvroType::kFixed:
      return Json{{"$bytes", Hex(v.string_value())}};
    case AvroType::kEnum:
      return std::string(v.enum_symbol());
    case AvroType::kUnion:
      return ValueToJson(v.union_value());
    case AvroType::kArray: {
      Json out = Json::array();
      for (const AvroValue& item : v.items()) out.push_back(ValueToJson(item));
      return out;
    }
    case AvroType::kMap: {
      Json out = Json::object();
      for (size_t i = 0; i < v.items().size(); ++i)
        out[v.map_keys()[i]] = ValueToJson(v.items()[i]);
      return out;
    }
    case AvroType::kRecord: {
      Json out = Json::object();
      for (size_t i = 0; i < v.fields().size(); ++i) {
        out[v.record_schema()->fields[i].name] = ValueToJson(v.fields()[i]);
      }
      return out;
    }
  }
  return nullptr;
}

Json RecordsToJson(const std::vector<AvroValue>& records) {
  Json out = Json::array();
  for (const AvroValue& r : records) out.push_back(ValueToJson(r));
  return out;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class FastavroTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // setup.sh always installs this venv: a missing interpreter is a broken checkout, not a skip.
    ASSERT_TRUE(fs::exists(Python())) << Python() << " is missing; run scripts/setup.sh";
    script_ = dir_.Sub("fastavro_tool.py");
    WriteText(script_, kScript);
  }

  // Runs the tool; returns false (with a test failure carrying stderr) when Python fails.
  bool Run(const std::string& args) {
    std::string err = dir_.Sub("stderr.txt");
    std::string cmd = "'" + Python() + "' '" + script_ + "' " + args + " 2>'" + err + "'";
    int rc = std::system(cmd.c_str());
    if (rc != 0) {
      ADD_FAILURE() << "fastavro tool failed (" << rc << "): " << cmd << "\n"
                    << testing::ReadWholeFile(err);
    }
    return rc == 0;
  }

  // fastavro's view of `paths`: path -> {"codec": ..., "records": [...]}.
  Json FastavroRead(const std::vector<std::string>& paths) {
    std::string out = dir_.Sub("read.json");
    std::string args = "read '" + out + "'";
    for (const std::string& p : paths) args += " '" + p + "'";
    if (!Run(args)) return Json::object();
    return Json::parse(testing::ReadWholeFile(out));
  }

  testing::TempDir dir_;
  std::string script_;
};

constexpr const char* kSchema =
    R"({"type":"record","name":"Row","namespace":"t","fields":[)"
    R"({"name":"id","type":"long"},{"name":"ok","type":"boolean"},{"name":"i","type":"int"},)"
    R"({"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"name","type":"string"},)"
    R"({"name":"raw","type":"bytes"},)"
    R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["ADD","DELETE"]}},)"
    R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":3}},)"
    R"({"name":"tags","type":{"type":"array","items":"string"}},)"
    R"({"name":"props","type":{"type":"map","values":["null","long"]}},)"
    R"({"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
    R"({"name":"child","type":["null",{"type":"record","name":"Child","fields":[)"
    R"({"name":"x","type":"int"},{"name":"ys","type":{"type":"array","items":["null","double"]}}]}]},)"
    R"({"name":"children","type":{"type":"array","items":"Child"}}]})";

AvroValue MakeChild(const AvroSchema& schema, int i) {
  const AvroNode& child = *schema.root().fields[12].type->branches[1];
  std::vector<AvroValue> ys;
  for (int y = 0; y < i % 4; ++y) {
    ys.push_back(y == 1 ? AvroValue::Union(0, AvroValue())
                        : AvroValue::Union(1, AvroValue::Double(y * 1.25)));
  }
  return AvroValue::Record(schema.Share(child),
                           {AvroValue::Int(-i), AvroValue::Array(std::move(ys))});
}

std::vector<AvroValue> MakeRows(const AvroSchema& schema, int n) {
  const AvroNode& root = schema.root();
  std::vector<AvroValue> rows;
  for (int i = 0; i < n; ++i) {
    std::vector<AvroValue> tags, children;
    for (int t = 0; t < i % 3; ++t)
      tags.push_back(AvroValue::String("t\xc3\xa4g" + std::to_string(t)));
    for (int c = 0; c < i % 2 + 1; ++c) children.push_back(MakeChild(schema, i + c));
    std::vector<std::string> keys{"k" + std::to_string(i), "null"};
    rows.push_back(AvroValue::Record(
        schema.root_ptr(),
        {AvroValue::Long((int64_t{1} << 60) / (i + 1) * (i % 2 ? -1 : 1)),
         AvroValue::Boolean(i % 2), AvroValue::Int(i * 7919 - 40000),
         AvroValue::Float(0.1f * static_cast<float>(i)), AvroValue::Double(1.0 / (i + 3)),
         AvroValue::String("row " + std::to_string(i)),
         AvroValue::Bytes(std::string(i % 4, '\0') + "\xfe"),
         AvroValue::Enum(i % 2, schema.Share(*root.fields[7].type)),
         AvroValue::Fixed(std::string("ab") + static_cast<char>('0' + i % 10)),
         AvroValue::Array(std::move(tags)),
         AvroValue::Map(std::move(keys), {AvroValue::Union(1, AvroValue::Long(i)),
                                          AvroValue::Union(0, AvroValue())}),
         i % 3 == 0 ? AvroValue::Union(0, AvroValue())
                    : AvroValue::Union(1, AvroValue::Long(1700000000000LL + i)),
         i % 2 ? AvroValue::Union(1, MakeChild(schema, i)) : AvroValue::Union(0, AvroValue()),
         AvroValue::Array(std::move(children))}));
  }
  return rows;
}

const AvroCodec kCodecs[] = {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy,
                             AvroCodec::kZstandard};

TEST_F(FastavroTest, FastavroReadsOurFilesInEveryCodec) {
  AvroSchema schema = *AvroSchema::Parse(kSchema);
  std::vector<AvroValue> rows = MakeRows(schema, 25);
  std::vector<std::string> paths;
  for (AvroCodec codec : kCodecs) {
    AvroWriterOptions options;
    options.codec = codec;
    options.records_per_block = 4;
    ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(schema, options));
    for (const AvroValue& row : rows) ASSERT_OK(writer->Append(row));
    ASSERT_OK_AND_ASSIGN(std::string bytes, writer->Finish());
    paths.push_back(dir_.Sub(std::string("ours-") + AvroCodecName(codec) + ".avro"));
    WriteText(paths.back(), bytes);
  }
  Json theirs = FastavroRead(paths);
  Json expected = RecordsToJson(rows);
  for (size_t i = 0; i < paths.size(); ++i) {
    ASSERT_TRUE(theirs.contains(paths[i])) << paths[i];
    EXPECT_EQ(theirs[paths[i]]["codec"], AvroCodecName(kCodecs[i]));
    EXPECT_EQ(theirs[paths[i]]["records"], expected) << paths[i];
  }
}

TEST_F(FastavroTest, WeReadFastavroFilesInEveryCodec) {
  AvroSchema schema = *AvroSchema::Parse(kSchema);
  std::vector<AvroValue> rows = MakeRows(schema, 25);
  Json expected = RecordsToJson(rows);
  std::string schema_path = dir_.Sub("schema.json");
  std::string records_path = dir_.Sub("records.json");
  WriteText(schema_path, kSchema);
  WriteText(records_path, expected.dump());
  for (AvroCodec codec : kCodecs) {
    std::string path = dir_.Sub(std::string("theirs-") + AvroCodecName(codec) + ".avro");
    // A small sync interval gives several blocks.
    ASSERT_TRUE(Run("write '" + schema_path + "' '" + records_path + "' " + AvroCodecName(codec) +
                    " 300 '" + path + "'"));
    std::string content = testing::ReadWholeFile(path);
    ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(content, path));
    EXPECT_EQ(contents.codec, codec);
    EXPECT_EQ(RecordsToJson(contents.records), expected) << path;
    // Unions are resolved by value in fastavro, so compare values, not branch numbers, above; the
    // schema must still be the one fastavro embedded.
    EXPECT_EQ(contents.schema.root().FullName(), "t.Row");
  }
}

std::vector<std::string> GoldenAvroManifests() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(testing::GoldenDir())) {
    if (!entry.is_regular_file() || entry.path().parent_path().filename() != "manifest") continue;
    if (testing::ReadWholeFile(entry.path().string()).rfind(std::string("Obj\x01", 4), 0) == 0) {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Java-written manifests: our decoding equals fastavro's, and our re-encoding in every codec (with
// the Java schema, incl. the timestamp-millis logical type) is read back identically by fastavro.
TEST_F(FastavroTest, GoldenManifestsAgreeWithFastavro) {
  FRESHET_REQUIRE_GOLDEN();
  std::vector<std::string> golden = GoldenAvroManifests();
  ASSERT_FALSE(golden.empty());
  std::vector<std::string> rewritten;
  std::vector<Json> ours;
  for (size_t i = 0; i < golden.size(); ++i) {
    std::string content = testing::ReadWholeFile(golden[i]);
    ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(content, golden[i]));
    ours.push_back(RecordsToJson(contents.records));
    AvroWriterOptions options;
    options.codec = kCodecs[i % 4];
    options.records_per_block = 2;
    ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(contents.schema, options));
    for (const AvroValue& record : contents.records) ASSERT_OK(writer->Append(record));
    ASSERT_OK_AND_ASSIGN(std::string bytes, writer->Finish());
    rewritten.push_back(dir_.Sub("rewritten-" + std::to_string(i) + ".avro"));
    WriteText(rewritten.back(), bytes);
  }
  std::vector<std::string> all = golden;
  all.insert(all.end(), rewritten.begin(), rewritten.end());
  Json theirs = FastavroRead(all);
  for (size_t i = 0; i < golden.size(); ++i) {
    EXPECT_EQ(theirs[golden[i]]["records"], ours[i]) << golden[i];
    EXPECT_EQ(theirs[rewritten[i]]["records"], ours[i]) << rewritten[i] << " from " << golden[i];
    EXPECT_EQ(theirs[rewritten[i]]["codec"], AvroCodecName(kCodecs[i % 4]));
  }
}

}  // namespace
}  // namespace freshet::container::avro
