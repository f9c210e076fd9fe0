#include "meta/partition/partition_path.h"

#include "common/java_text.h"
#include "meta/options/option_registry.h"

#include <charconv>
#include <cmath>

namespace freshet::meta {

namespace {

bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '}':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

// Java Character.isWhitespace for one code point.
bool IsJavaWhitespace(uint32_t cp) {
  if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20)) return true;
  if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x2006) || (cp >= 0x2008 && cp <= 0x200A)) {
    return true;  // space separators except the non-breaking ones (U+00A0, U+2007, U+202F)
  }
  return cp == 0x2028 || cp == 0x2029 || cp == 0x205F || cp == 0x3000;
}

// Java StringUtils.isNullOrWhitespaceOnly on UTF-8 text (invalid bytes count as non-space).
bool IsEmptyOrWhitespaceOnly(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto lead = static_cast<unsigned char>(text[i]);
    int extra = lead < 0x80 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1;
    if (extra < 0 || i + extra >= text.size()) return false;  // not UTF-8: not whitespace
    uint32_t cp = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (!IsJavaWhitespace(cp)) return false;
    i += 1 + extra;
  }
  return true;
}

// Shortest round-trip digits and decimal exponent: value = 0.d1d2d3... * 10^(exponent + 1).
// TIME cast to STRING: HH:mm:ss plus `precision` (at most 3) fraction digits.
std::string FormatTimeOfDay(int32_t millis_of_day, int32_t precision) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%02d:%02d:%02d", millis_of_day / 3600000,
                millis_of_day / 60000 % 60, millis_of_day / 1000 % 60);
  std::string out = buffer;
  int32_t digits = std::min(precision, 3);
  if (digits > 0) {
    std::snprintf(buffer, sizeof(buffer), "%03d", millis_of_day % 1000);
    out += "." + std::string(buffer, digits);
  }
  return out;
}

Status ValueMismatch(const DataType& type) {
  return Status::Invalid("partition value does not match its type ", type.ToString());
}

template <typename T>
Result<T> Held(const Value& value, const DataType& type) {
  const T* held = value.get_if<T>();
  if (held == nullptr) return ValueMismatch(type);
  return *held;
}

}  // namespace

Result<PartitionNaming> PartitionNaming::FromOptions(const Options& options) {
  PartitionNaming naming;
  FRESHET_ASSIGN_OR_RETURN(naming.default_name, GetStringOption(options, "partition.default-name"));
  FRESHET_ASSIGN_OR_RETURN(naming.legacy_name, GetBoolOption(options, "partition.legacy-name"));
  return naming;
}

std::string EscapePathName(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80 && NeedsEscape(byte)) {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::string> PartitionValueName(const Value& value, const DataType& type, bool legacy_name) {
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      FRESHET_ASSIGN_OR_RETURN(bool v, Held<bool>(value, type));
      return std::string(v ? "true" : "false");
    }
    case TypeRoot::kTinyInt: {
      FRESHET_ASSIGN_OR_RETURN(int8_t v, Held<int8_t>(value, type));
      return std::to_string(v);
    }
    case TypeRoot::kSmallInt: {
      FRESHET_ASSIGN_OR_RETURN(int16_t v, Held<int16_t>(value, type));
      return std::to_string(v);
    }
    case TypeRoot::kInt: {
      FRESHET_ASSIGN_OR_RETURN(int32_t v, Held<int32_t>(value, type));
      return std::to_string(v);
    }
    case TypeRoot::kBigInt: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v, Held<int64_t>(value, type));
      return std::to_string(v);
    }
    case TypeRoot::kFloat: {
      FRESHET_ASSIGN_OR_RETURN(float v, Held<float>(value, type));
      return JavaFloatToString(v);
    }
    case TypeRoot::kDouble: {
      FRESHET_ASSIGN_OR_RETURN(double v, Held<double>(value, type));
      return JavaDoubleToString(v);
    }
    case TypeRoot::kDecimal: {
      FRESHET_ASSIGN_OR_RETURN(Decimal v, Held<Decimal>(value, type));
      return v.ToPlainString();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Held<std::string>(value, type);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (legacy_name) {
        // Java's legacy name would be byte[].toString(), an identity hash: not reproducible.
        return Status::NotImplemented("legacy partition names of ", type.ToString(),
                                      " columns are not stable in Java; set "
                                      "partition.legacy-name=false");
      }
      return Held<std::string>(value, type);
    case TypeRoot::kDate: {
      FRESHET_ASSIGN_OR_RETURN(int32_t day, Held<int32_t>(value, type));
      return legacy_name ? std::to_string(day) : FormatEpochDay(day);
    }
    case TypeRoot::kTime: {
      FRESHET_ASSIGN_OR_RETURN(int32_t millis, Held<int32_t>(value, type));
      return legacy_name ? std::to_string(millis) : FormatTimeOfDay(millis, type.precision());
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FRESHET_ASSIGN_OR_RETURN(Timestamp ts, Held<Timestamp>(value, type));
      return legacy_name ? ts.ToLocalDateTimeString() : ts.ToSqlString(type.precision());
    }
    default:
      return Status::NotImplemented("partition columns of type ", type.ToString());
  }
}

Result<std::vector<std::pair<std::string, std::string>>> PartitionSpec(
    const BinaryRow& partition, const std::vector<DataField>& partition_fields,
    const PartitionNaming& naming) {
  if (partition.arity() != static_cast<int32_t>(partition_fields.size())) {
    return Status::Invalid("partition row has ", partition.arity(), " fields but the table has ",
                           partition_fields.size(), " partition keys");
  }
  std::vector<std::pair<std::string, std::string>> spec;
  for (size_t i = 0; i < partition_fields.size(); ++i) {
    const DataField& field = partition_fields[i];
    FRESHET_ASSIGN_OR_RETURN(Value value, partition.GetValue(static_cast<int32_t>(i), *field.type));
    std::string name = naming.default_name;
    if (!value.is_null()) {
      auto converted = PartitionValueName(value, *field.type, naming.legacy_name);
      if (!converted.ok())
        return converted.status().WithContext("partition key '" + field.name + "'");
      if (!IsEmptyOrWhitespaceOnly(*converted)) name = *converted;
    }
    spec.emplace_back(field.name, std::move(name));
  }
  return spec;
}

Result<std::string> PartitionPath(const BinaryRow& partition,
                                  const std::vector<DataField>& partition_fields,
                                  const PartitionNaming& naming) {
  FRESHET_ASSIGN_OR_RETURN(auto spec, PartitionSpec(partition, partition_fields, naming));
  std::string path;
  for (const auto& [key, value] : spec) {
    path += EscapePathName(key) + "=" + EscapePathName(value) + "/";
  }
  return path;
}

}  // namespace freshet::meta
