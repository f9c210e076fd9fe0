// BinaryRow bytes as they appear in manifests (partitions, min/max statistics, keys): any bytes
// must read as values or give a clean error, for every type. Values that read must build a row
// that reads back to the same row (canonical bytes are a fixed point).
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "meta/row/binary_row.h"

namespace {

using namespace freshet::meta;

// Every type a BinaryRow field can hold in a Paimon manifest.
const std::vector<DataTypePtr>& TypeMenu() {
  static const std::vector<DataTypePtr> types = [] {
    std::vector<DataTypePtr> out;
    for (const char* sql :
         {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "CHAR(3)",
          "BYTES", "BINARY(4)", "DECIMAL(10, 2)", "DECIMAL(38, 10)", "DATE", "TIME", "TIMESTAMP(3)",
          "TIMESTAMP(9)", "TIMESTAMP_LTZ(6)"}) {
      out.push_back(*ParseAtomicType(sql));
    }
    return out;
  }();
  return types;
}

// Reads every field of `row` as its type in `types`.
freshet::Result<std::vector<Value>> ReadValues(const BinaryRow& row,
                                               const std::vector<DataTypePtr>& types) {
  std::vector<Value> values;
  for (int32_t pos = 0; pos < row.arity(); ++pos) {
    FRESHET_ASSIGN_OR_RETURN(Value value, row.GetValue(pos, *types[pos]));
    values.push_back(std::move(value));
  }
  return values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::fuzz::PropertyViolated;
  if (size < 1) return 0;
  const size_t shift = data[0];
  auto row = DeserializeBinaryRow(freshet::fuzz::AsText(data + 1, size - 1));
  if (!row.ok() || row->arity() > 4096) return 0;
  std::vector<DataTypePtr> types;
  for (int32_t pos = 0; pos < row->arity(); ++pos) {
    types.push_back(TypeMenu()[(pos + shift) % TypeMenu().size()]);
  }
  auto values = ReadValues(*row, types);
  if (!values.ok()) return 0;
  auto built = BuildBinaryRow(types, *values);
  if (!built.ok()) PropertyViolated("values read from a row cannot build a row", built.status());
  auto reread = ReadValues(*built, types);
  if (!reread.ok()) PropertyViolated("a built row does not read", reread.status());
  auto rebuilt = BuildBinaryRow(types, *reread);
  if (!rebuilt.ok()) PropertyViolated("a re-read row cannot be rebuilt", rebuilt.status());
  if (SerializeBinaryRow(*rebuilt) != SerializeBinaryRow(*built)) {
    PropertyViolated("a row's values changed between two builds");
  }
  return 0;
}
