// Conversions between Arrow array elements and freshet's Paimon values (meta::Value).
//
// The Arrow side is the layout ToArrowType() produces (see arrow_schema.h). Used by row routing
// (partition and bucket keys), statistics (min/max of data files) and the CLI.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>

#include "freshet/result.h"
#include "meta/row/value.h"
#include "meta/types/data_type.h"

namespace freshet::bridge {

// Element `row` of `array` as a Paimon value of `type`: Value::Null() for a null element;
// BOOLEAN..DOUBLE as the matching C++ type; DECIMAL as its unscaled __int128 with the type's
// precision and scale; CHAR/VARCHAR and BINARY/VARBINARY as bytes; DATE as int32 epoch days; TIME
// as int32 millis of the day; TIMESTAMP / TIMESTAMP_LTZ as epoch millis plus nano-of-milli.
// Errors: Invalid when `row` is out of range or the array's Arrow type does not fit `type`;
// NotImplemented for ARRAY / MAP / MULTISET / ROW (meta::Value has no nested form).
// A timestamp stored as `value` units of `unit` since the epoch, as Paimon holds it.
meta::Timestamp TimestampFromUnits(int64_t value, arrow::TimeUnit::type unit);

Result<meta::Value> ArrowValueAt(const arrow::Array& array, int64_t row,
                                 const meta::DataType& type);

// Appends `value` (which must be of `type`'s kind, or null) to `builder`, whose type must be
// ToArrowType(type). The inverse of ArrowValueAt for non-nested types.
Status AppendArrowValue(arrow::ArrayBuilder* builder, const meta::Value& value,
                        const meta::DataType& type);

}  // namespace freshet::bridge
