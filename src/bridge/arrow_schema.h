// The Arrow form of Paimon types: how every Paimon column looks inside freshet and at its API.
//
// Each Arrow field carries its Paimon field id in its metadata ("PARQUET:field_id", which Arrow's
// Parquet writer turns into the Parquet field_id Java reads, and "paimon.id" for ORC).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <vector>

#include "freshet/result.h"
#include "meta/types/data_type.h"

namespace freshet::bridge {

inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";
inline constexpr char kOrcFieldIdKey[] = "paimon.id";

// BOOLEAN bool, TINYINT..BIGINT int8..int64, FLOAT/DOUBLE float32/float64, DECIMAL decimal128,
// CHAR/VARCHAR utf8, BINARY/VARBINARY binary, DATE date32, TIME time32[ms],
// TIMESTAMP(p) timestamp[ms|us|ns] by precision, TIMESTAMP_LTZ the same with zone "UTC",
// ARRAY list<element>, MAP map<key, value>, MULTISET map<element, int32>, ROW struct.
Result<std::shared_ptr<arrow::DataType>> ToArrowType(const meta::DataType& type);
Result<std::shared_ptr<arrow::Field>> ToArrowField(const meta::DataField& field);
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const std::vector<meta::DataField>& fields);

// The Paimon field id recorded in an Arrow field's metadata, if any.
std::optional<int32_t> FieldIdOf(const arrow::Field& field);

}  // namespace freshet::bridge
