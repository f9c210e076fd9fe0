#include "container/avro/avro_value.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace freshet::container::avro {

namespace {

const std::string kEmptyString;
const std::vector<AvroValue> kEmptyValues;
const std::vector<std::string> kEmptyKeys;
const std::shared_ptr<const AvroNode> kNoSchema;

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out->append(buf);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

}  // namespace

AvroValue AvroValue::Enum(int32_t index, std::shared_ptr<const AvroNode> schema) {
  return AvroValue(AvroType::kEnum, EnumData{index, std::move(schema)});
}

AvroValue AvroValue::Array(std::vector<AvroValue> items) {
  ListData data;
  data.values = std::move(items);
  return AvroValue(AvroType::kArray, std::move(data));
}

AvroValue AvroValue::Map(std::vector<std::string> keys, std::vector<AvroValue> values) {
  assert(keys.size() == values.size());
  ListData data;
  data.keys = std::move(keys);
  data.values = std::move(values);
  return AvroValue(AvroType::kMap, std::move(data));
}

AvroValue AvroValue::Record(std::shared_ptr<const AvroNode> schema, std::vector<AvroValue> fields) {
  return AvroValue(AvroType::kRecord, RecordData{std::move(schema), std::move(fields)});
}

AvroValue AvroValue::EmptyRecord(std::shared_ptr<const AvroNode> schema) {
  size_t n = schema ? schema->fields.size() : 0;
  return Record(std::move(schema), std::vector<AvroValue>(n));
}

AvroValue AvroValue::Union(int32_t branch, AvroValue value) {
  ListData data;
  data.branch = branch;
  data.values.push_back(std::move(value));
  return AvroValue(AvroType::kUnion, std::move(data));
}

const AvroValue& AvroValue::Unwrapped() const {
  const AvroValue* v = this;
  while (v->type_ == AvroType::kUnion) v = &std::get<ListData>(v->storage_).values[0];
  return *v;
}

bool AvroValue::bool_value() const {
  const bool* v = std::get_if<bool>(&Unwrapped().storage_);
  assert(v != nullptr);
  return v != nullptr && *v;
}

int32_t AvroValue::int_value() const {
  const int32_t* v = std::get_if<int32_t>(&Unwrapped().storage_);
  assert(v != nullptr);
  return v != nullptr ? *v : 0;
}

int64_t AvroValue::long_value() const {
  const AvroValue& u = Unwrapped();
  if (const int32_t* i = std::get_if<int32_t>(&u.storage_)) return *i;
  const int64_t* v = std::get_if<int64_t>(&u.storage_);
  assert(v != nullptr);
  return v != nullptr ? *v : 0;
}

float AvroValue::float_value() const {
  const float* v = std::get_if<float>(&Unwrapped().storage_);
  assert(v != nullptr);
  return v != nullptr ? *v : 0.0f;
}

double AvroValue::double_value() const {
  const AvroValue& u = Unwrapped();
  if (const float* f = std::get_if<float>(&u.storage_)) return *f;
  const double* v = std::get_if<double>(&u.storage_);
  assert(v != nullptr);
  return v != nullptr ? *v : 0.0;
}

const std::string& AvroValue::string_value() const {
  const std::string* v = std::get_if<std::string>(&Unwrapped().storage_);
  assert(v != nullptr);
  return v != nullptr ? *v : kEmptyString;
}

int32_t AvroValue::enum_index() const {
  const EnumData* v = std::get_if<EnumData>(&Unwrapped().storage_);
  assert(v != nullptr);
  return v != nullptr ? v->index : 0;
}

std::string_view AvroValue::enum_symbol() const {
  const EnumData* v = std::get_if<EnumData>(&Unwrapped().storage_);
  if (v == nullptr || v->schema == nullptr || v->index < 0 ||
      static_cast<size_t>(v->index) >= v->schema->symbols.size()) {
    return {};
  }
  return v->schema->symbols[v->index];
}

Result<int32_t> AvroValue::GetInt() const {
  const AvroValue& u = Unwrapped();
  if (u.type_ != AvroType::kInt) {
    return Status::Invalid("expected an Avro int, found ", AvroTypeName(u.type_));
  }
  return std::get<int32_t>(u.storage_);
}

Result<int64_t> AvroValue::GetLong() const {
  const AvroValue& u = Unwrapped();
  if (u.type_ != AvroType::kInt && u.type_ != AvroType::kLong) {
    return Status::Invalid("expected an Avro long, found ", AvroTypeName(u.type_));
  }
  return u.long_value();
}

Result<std::string_view> AvroValue::GetString() const {
  const AvroValue& u = Unwrapped();
  if (u.type_ != AvroType::kString) {
    return Status::Invalid("expected an Avro string, found ", AvroTypeName(u.type_));
  }
  return std::string_view(std::get<std::string>(u.storage_));
}

Result<std::string_view> AvroValue::GetBytes() const {
  const AvroValue& u = Unwrapped();
  if (u.type_ != AvroType::kBytes && u.type_ != AvroType::kFixed) {
    return Status::Invalid("expected Avro bytes, found ", AvroTypeName(u.type_));
  }
  return std::string_view(std::get<std::string>(u.storage_));
}

const std::shared_ptr<const AvroNode>& AvroValue::record_schema() const {
  const RecordData* r = std::get_if<RecordData>(&Unwrapped().storage_);
  return r != nullptr ? r->schema : kNoSchema;
}

const std::vector<AvroValue>& AvroValue::fields() const {
  const RecordData* r = std::get_if<RecordData>(&Unwrapped().storage_);
  assert(r != nullptr);
  return r != nullptr ? r->fields : kEmptyValues;
}

AvroValue& AvroValue::MutableUnwrapped() {
  return const_cast<AvroValue&>(static_cast<const AvroValue*>(this)->Unwrapped());
}

std::vector<AvroValue>& AvroValue::mutable_fields() {
  AvroValue& v = MutableUnwrapped();
  if (!std::holds_alternative<RecordData>(v.storage_)) {
    v.type_ = AvroType::kRecord;
    v.storage_ = RecordData{};
  }
  return std::get<RecordData>(v.storage_).fields;
}

const AvroValue* AvroValue::GetField(std::string_view name) const {
  const RecordData* r = std::get_if<RecordData>(&Unwrapped().storage_);
  if (r == nullptr || r->schema == nullptr) return nullptr;
  int index = r->schema->FieldIndex(name);
  if (index < 0 || static_cast<size_t>(index) >= r->fields.size()) return nullptr;
  return &r->fields[index];
}

AvroValue* AvroValue::MutableField(std::string_view name) {
  return const_cast<AvroValue*>(GetField(name));
}

const std::vector<AvroValue>& AvroValue::items() const {
  const AvroValue& u = Unwrapped();
  const ListData* l = std::get_if<ListData>(&u.storage_);
  assert(l != nullptr && u.type_ != AvroType::kUnion);
  return l != nullptr ? l->values : kEmptyValues;
}

std::vector<AvroValue>& AvroValue::mutable_items() {
  AvroValue& v = MutableUnwrapped();
  if (!std::holds_alternative<ListData>(v.storage_)) {
    v.type_ = AvroType::kArray;
    v.storage_ = ListData{};
  }
  return std::get<ListData>(v.storage_).values;
}

const std::vector<std::string>& AvroValue::map_keys() const {
  const ListData* l = std::get_if<ListData>(&Unwrapped().storage_);
  return l != nullptr ? l->keys : kEmptyKeys;
}

int32_t AvroValue::union_branch() const {
  const ListData* l = std::get_if<ListData>(&storage_);
  assert(type_ == AvroType::kUnion);
  return type_ == AvroType::kUnion && l != nullptr ? l->branch : 0;
}

const AvroValue& AvroValue::union_value() const {
  assert(type_ == AvroType::kUnion);
  return type_ == AvroType::kUnion ? std::get<ListData>(storage_).values[0] : *this;
}

bool AvroValue::operator==(const AvroValue& other) const {
  if (type_ != other.type_) return false;
  switch (type_) {
    case AvroType::kRecord:
      return fields() == other.fields();
    case AvroType::kEnum:
      return enum_index() == other.enum_index();
    case AvroType::kArray:
    case AvroType::kMap:
    case AvroType::kUnion: {
      const ListData& a = std::get<ListData>(storage_);
      const ListData& b = std::get<ListData>(other.storage_);
      return a.branch == b.branch && a.keys == b.keys && a.values == b.values;
    }
    case AvroType::kNull:
      return true;
    case AvroType::kBoolean:
      return bool_value() == other.bool_value();
    case AvroType::kInt:
    case AvroType::kLong:
      return long_value() == other.long_value();
    case AvroType::kFloat:
    case AvroType::kDouble: {
      // Values read back must equal what was written, NaN included.
      double a = double_value();
      double b = other.double_value();
      return a == b || (std::isnan(a) && std::isnan(b));
    }
    case AvroType::kString:
    case AvroType::kBytes:
    case AvroType::kFixed:
      return string_value() == other.string_value();
  }
  return false;
}

std::string AvroValue::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

void AvroValue::AppendTo(std::string* out) const {
  switch (type_) {
    case AvroType::kNull:
      out->append("null");
      return;
    case AvroType::kBoolean:
      out->append(bool_value() ? "true" : "false");
      return;
    case AvroType::kInt:
    case AvroType::kLong:
      out->append(std::to_string(long_value()));
      return;
    case AvroType::kFloat:
    case AvroType::kDouble: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", double_value());
      out->append(buf);
      return;
    }
    case AvroType::kString:
    case AvroType::kBytes:
    case AvroType::kFixed:
      AppendQuoted(string_value(), out);
      return;
    case AvroType::kEnum: {
      std::string_view symbol = enum_symbol();
      if (symbol.empty()) {
        out->append(std::to_string(enum_index()));
      } else {
        AppendQuoted(symbol, out);
      }
      return;
    }
    case AvroType::kUnion:
      union_value().AppendTo(out);
      return;
    case AvroType::kArray:
    case AvroType::kMap:
    case AvroType::kRecord:
      break;
  }
  bool is_array = type_ == AvroType::kArray;
  const std::vector<AvroValue>& values = type_ == AvroType::kRecord ? fields() : items();
  const std::shared_ptr<const AvroNode>& schema = record_schema();
  out->push_back(is_array ? '[' : '{');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->append(", ");
    if (type_ == AvroType::kMap) {
      AppendQuoted(map_keys()[i], out);
      out->append(": ");
    } else if (type_ == AvroType::kRecord) {
      bool named = schema != nullptr && i < schema->fields.size();
      AppendQuoted(named ? schema->fields[i].name : "#" + std::to_string(i), out);
      out->append(": ");
    }
    values[i].AppendTo(out);
  }
  out->push_back(is_array ? ']' : '}');
}

}  // namespace freshet::container::avro
