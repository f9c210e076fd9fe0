#include "container/avro/avro_schema.h"

#include "common/json.h"
#include "common/lru_cache.h"

#include <nlohmann/json.hpp>

#include <unordered_set>

namespace freshet::container::avro {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Deeper schemas than this are certainly not Paimon's and would only risk the stack.
constexpr int kMaxSchemaDepth = 200;

struct Primitive {
  const char* name;
  AvroType type;
};
constexpr Primitive kPrimitives[] = {
    {"null", AvroType::kNull},   {"boolean", AvroType::kBoolean}, {"int", AvroType::kInt},
    {"long", AvroType::kLong},   {"float", AvroType::kFloat},     {"double", AvroType::kDouble},
    {"bytes", AvroType::kBytes}, {"string", AvroType::kString},
};

std::optional<AvroType> PrimitiveType(std::string_view name) {
  for (const Primitive& p : kPrimitives) {
    if (name == p.name) return p.type;
  }
  return std::nullopt;
}

bool IsNamedType(AvroType type) {
  return type == AvroType::kRecord || type == AvroType::kEnum || type == AvroType::kFixed;
}

// Avro names: [A-Za-z_][A-Za-z0-9_]*.
bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

bool IsValidNamespace(std::string_view ns) {
  if (ns.empty()) return true;
  size_t start = 0;
  while (true) {
    size_t dot = ns.find('.', start);
    if (!IsValidName(ns.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

const char* AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull:
      return "null";
    case AvroType::kBoolean:
      return "boolean";
    case AvroType::kInt:
      return "int";
    case AvroType::kLong:
      return "long";
    case AvroType::kFloat:
      return "float";
    case AvroType::kDouble:
      return "double";
    case AvroType::kBytes:
      return "bytes";
    case AvroType::kString:
      return "string";
    case AvroType::kRecord:
      return "record";
    case AvroType::kEnum:
      return "enum";
    case AvroType::kArray:
      return "array";
    case AvroType::kMap:
      return "map";
    case AvroType::kUnion:
      return "union";
    case AvroType::kFixed:
      return "fixed";
  }
  return "unknown";
}

std::string AvroNode::FullName() const {
  return name_space.empty() ? name : name_space + "." + name;
}

int AvroNode::FieldIndex(std::string_view field_name) const {
  auto it = field_index.find(std::string(field_name));
  return it == field_index.end() ? -1 : it->second;
}

int AvroNode::NullBranch() const {
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i]->type == AvroType::kNull) return static_cast<int>(i);
  }
  return -1;
}

// Builds the node graph of one schema. Named types are registered before their fields are parsed,
// so a record may refer to itself and later parts of the schema may refer back to it by name.
class SchemaParser {
 public:
  Result<AvroSchema> Run(std::string_view text) {
    // Refused before parsing: nlohmann's DOM and the messages below recurse over nesting.
    if (!CheckJsonNesting(text, "Avro schema").ok()) {
      return Status::Invalid("Avro schema is nested deeper than ", kMaxJsonNestingDepth,
                             " JSON levels");
    }
    Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return Status::Invalid("Avro schema is not valid JSON");
    FRESHET_ASSIGN_OR_RETURN(const AvroNode* root, ParseNode(json, "", 0));
    ComputeCanBeEmpty();
    return AvroSchema(std::move(graph_), root);
  }

 private:
  AvroNode* NewNode(AvroType type) {
    graph_->nodes.push_back(std::make_unique<AvroNode>());
    graph_->nodes.back()->type = type;
    return graph_->nodes.back().get();
  }

  Result<const AvroNode*> ParseNode(const Json& json, const std::string& ns, int depth) {
    if (depth > kMaxSchemaDepth) {
      return Status::Invalid("Avro schema is nested deeper than ", kMaxSchemaDepth, " levels");
    }
    if (json.is_string()) return ParseTypeName(json.get<std::string>(), ns);
    if (json.is_array()) return ParseUnion(json, ns, depth);
    if (json.is_object()) return ParseObject(json, ns, depth);
    return Status::Invalid("Avro schema element ", json.dump(),
                           " is not a string, array or object");
  }

  // A primitive type name or a reference to a named type defined earlier.
  Result<const AvroNode*> ParseTypeName(const std::string& name, const std::string& ns) {
    if (std::optional<AvroType> primitive = PrimitiveType(name)) return NewNode(*primitive);
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named_.find(ns + "." + name);
      if (it != named_.end()) return it->second;
    }
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
    return Status::Invalid("Avro schema refers to unknown type ", Quote(name));
  }

  Result<const AvroNode*> ParseUnion(const Json& json, const std::string& ns, int depth) {
    AvroNode* node = NewNode(AvroType::kUnion);
    std::unordered_set<std::string> seen;
    for (const Json& branch_json : json) {
      FRESHET_ASSIGN_OR_RETURN(const AvroNode* branch, ParseNode(branch_json, ns, depth + 1));
      if (branch->type == AvroType::kUnion) {
        return Status::Invalid("Avro union ", json.dump(), " directly contains another union");
      }
      // Branches are told apart by type, and by name for named types.
      std::string key = IsNamedType(branch->type) ? branch->FullName() : AvroTypeName(branch->type);
      if (!seen.insert(key).second) {
        return Status::Invalid("Avro union has two branches of type ", Quote(key));
      }
      node->branches.push_back(branch);
    }
    if (node->branches.empty()) return Status::Invalid("Avro union has no branches");
    return node;
  }

  Result<const AvroNode*> ParseObject(const Json& json, const std::string& ns, int depth) {
    auto type_it = json.find("type");
    if (type_it == json.end()) {
      return Status::Invalid("Avro schema object has no \"type\": ", Abbreviate(json));
    }
    // Tolerate {"type": {...}} / {"type": [...]}: the nested value is the whole schema.
    if (!type_it->is_string()) return ParseNode(*type_it, ns, depth + 1);
    const std::string type = type_it->get<std::string>();
    const AvroNode* result = nullptr;
    if (type == "record" || type == "error") {
      FRESHET_ASSIGN_OR_RETURN(result, ParseRecord(json, ns, depth));
    } else if (type == "enum") {
      FRESHET_ASSIGN_OR_RETURN(result, ParseEnum(json, ns));
    } else if (type == "fixed") {
      FRESHET_ASSIGN_OR_RETURN(result, ParseFixed(json, ns));
    } else if (type == "array" || type == "map") {
      FRESHET_ASSIGN_OR_RETURN(result, ParseContainer(json, type, ns, depth));
    } else {
      FRESHET_ASSIGN_OR_RETURN(result, ParseTypeName(type, ns));
      // Attributes of a reference to a named type do not change that type.
      if (IsNamedType(result->type)) return result;
    }
    FRESHET_RETURN_NOT_OK(ParseLogicalType(json, const_cast<AvroNode*>(result)));
    return result;
  }

  // Sets name and namespace from "name"/"namespace" and registers the full name.
  Status DefineName(const Json& json, const std::string& ns, AvroNode* node) {
    auto name_it = json.find("name");
    if (name_it == json.end() || !name_it->is_string()) {
      return Status::Invalid("Avro ", AvroTypeName(node->type),
                             " has no \"name\": ", Abbreviate(json));
    }
    std::string name = name_it->get<std::string>();
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
      node->name_space = name.substr(0, dot);
      node->name = name.substr(dot + 1);
    } else {
      auto ns_it = json.find("namespace");
      node->name_space = ns;
      if (ns_it != json.end() && ns_it->is_string()) node->name_space = ns_it->get<std::string>();
      node->name = name;
    }
    if (!IsValidName(node->name) || !IsValidNamespace(node->name_space)) {
      return Status::Invalid("Avro type name ", Quote(name), " is not a valid name");
    }
    if (PrimitiveType(node->name) && node->name_space.empty()) {
      return Status::Invalid("Avro type name ", Quote(name), " redefines a primitive type");
    }
    if (!named_.emplace(node->FullName(), node).second) {
      return Status::Invalid("Avro type ", Quote(node->FullName()), " is defined twice");
    }
    return Status::OK();
  }

  Result<const AvroNode*> ParseRecord(const Json& json, const std::string& ns, int depth) {
    AvroNode* node = NewNode(AvroType::kRecord);
    FRESHET_RETURN_NOT_OK(DefineName(json, ns, node));
    auto fields_it = json.find("fields");
    if (fields_it == json.end() || !fields_it->is_array()) {
      return Status::Invalid("Avro record ", Quote(node->FullName()), " has no \"fields\" array");
    }
    for (const Json& field_json : *fields_it) {
      FRESHET_RETURN_NOT_OK(ParseField(field_json, depth, node));
    }
    return node;
  }

  Status ParseField(const Json& json, int depth, AvroNode* record) {
    const std::string where = "Avro record " + Quote(record->FullName());
    if (!json.is_object()) return Status::Invalid(where, " has a field that is not an object");
    auto name_it = json.find("name");
    auto type_it = json.find("type");
    if (name_it == json.end() || !name_it->is_string() || type_it == json.end()) {
      return Status::Invalid(where,
                             " has a field without \"name\" or \"type\": ", Abbreviate(json));
    }
    AvroField field;
    field.name = name_it->get<std::string>();
    if (!IsValidName(field.name)) {
      return Status::Invalid(where, " has a field with invalid name ", Quote(field.name));
    }
    // Types inside a record are named relative to the record's namespace.
    Result<const AvroNode*> type = ParseNode(*type_it, record->name_space, depth + 1);
    if (!type.ok()) return type.status().WithContext(where + " field " + Quote(field.name));
    field.type = *type;
    auto default_it = json.find("default");
    if (default_it != json.end()) field.default_json = default_it->dump();
    int index = static_cast<int>(record->fields.size());
    if (!record->field_index.emplace(field.name, index).second) {
      return Status::Invalid(where, " has two fields named ", Quote(field.name));
    }
    record->fields.push_back(std::move(field));
    return Status::OK();
  }

  Result<const AvroNode*> ParseEnum(const Json& json, const std::string& ns) {
    AvroNode* node = NewNode(AvroType::kEnum);
    FRESHET_RETURN_NOT_OK(DefineName(json, ns, node));
    auto symbols_it = json.find("symbols");
    if (symbols_it == json.end() || !symbols_it->is_array()) {
      return Status::Invalid("Avro enum ", Quote(node->FullName()), " has no \"symbols\" array");
    }
    std::unordered_set<std::string> seen;
    for (const Json& symbol : *symbols_it) {
      if (!symbol.is_string() || !IsValidName(symbol.get<std::string>()) ||
          !seen.insert(symbol.get<std::string>()).second) {
        return Status::Invalid("Avro enum ", Quote(node->FullName()), " has an invalid symbol ",
                               symbol.dump());
      }
      node->symbols.push_back(symbol.get<std::string>());
    }
    return node;
  }

  Result<const AvroNode*> ParseFixed(const Json& json, const std::string& ns) {
    AvroNode* node = NewNode(AvroType::kFixed);
    FRESHET_RETURN_NOT_OK(DefineName(json, ns, node));
    auto size_it = json.find("size");
    if (size_it == json.end() || !size_it->is_number_integer() || size_it->get<int64_t>() < 0 ||
        size_it->get<int64_t>() > INT32_MAX) {
      return Status::Invalid("Avro fixed ", Quote(node->FullName()), " has no valid \"size\"");
    }
    node->fixed_size = static_cast<int32_t>(size_it->get<int64_t>());
    return node;
  }

  Result<const AvroNode*> ParseContainer(const Json& json, const std::string& type,
                                         const std::string& ns, int depth) {
    const char* key = type == "array" ? "items" : "values";
    auto it = json.find(key);
    if (it == json.end()) return Status::Invalid("Avro ", type, " has no \"", key, "\"");
    AvroNode* node = NewNode(type == "array" ? AvroType::kArray : AvroType::kMap);
    Result<const AvroNode*> items = ParseNode(*it, ns, depth + 1);
    if (!items.ok()) return items.status().WithContext("Avro " + type);
    node->items = *items;
    return node;
  }

  static Status ParseLogicalType(const Json& json, AvroNode* node) {
    auto it = json.find("logicalType");
    if (it == json.end() || !it->is_string()) return Status::OK();
    node->logical_type = it->get<std::string>();
    FRESHET_RETURN_NOT_OK(ParseIntAttribute(json, "precision", &node->precision));
    return ParseIntAttribute(json, "scale", &node->scale);
  }

  static Status ParseIntAttribute(const Json& json, const char* key, std::optional<int32_t>* out) {
    auto it = json.find(key);
    if (it == json.end()) return Status::OK();
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > INT32_MAX) {
      return Status::Invalid("Avro logical type attribute \"", key,
                             "\" is not a valid integer: ", it->dump());
    }
    *out = static_cast<int32_t>(it->get<int64_t>());
    return Status::OK();
  }

  // Least fixed point, so that a record which (absurdly) requires itself is not "empty".
  void ComputeCanBeEmpty() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto& node : graph_->nodes) {
        if (node->can_be_empty) continue;
        bool empty = false;
        switch (node->type) {
          case AvroType::kNull:
            empty = true;
            break;
          case AvroType::kFixed:
            empty = node->fixed_size == 0;
            break;
          case AvroType::kRecord:
            empty = true;
            for (const AvroField& f : node->fields) empty = empty && f.type->can_be_empty;
            break;
          default:
            break;
        }
        if (empty) node->can_be_empty = changed = true;
      }
    }
  }

  static std::string Abbreviate(const Json& json) {
    std::string text = json.dump();
    return text.size() > 200 ? text.substr(0, 200) + "..." : text;
  }

  std::shared_ptr<AvroSchema::Graph> graph_ = std::make_shared<AvroSchema::Graph>();
  std::unordered_map<std::string, const AvroNode*> named_;
};

Result<AvroSchema> AvroSchema::ParseCached(std::string_view json_text) {
  static LruCache<AvroSchema> parsed;
  std::string key(json_text);
  if (std::optional<AvroSchema> known = parsed.Get(key)) return *known;
  FRESHET_ASSIGN_OR_RETURN(AvroSchema schema, Parse(json_text));
  parsed.Put(key, schema, 1, 64);
  return schema;
}

Result<AvroSchema> AvroSchema::Parse(std::string_view json_text) {
  return SchemaParser().Run(json_text);
}

namespace {

// Serializes nodes; `defined` holds the named types already written (later uses are references).
class SchemaWriter {
 public:
  OrderedJson Write(const AvroNode& node, const std::string& ns) {
    switch (node.type) {
      case AvroType::kRecord:
      case AvroType::kEnum:
      case AvroType::kFixed:
        return WriteNamed(node, ns);
      case AvroType::kArray:
      case AvroType::kMap: {
        OrderedJson json = OrderedJson::object();
        bool array = node.type == AvroType::kArray;
        json["type"] = array ? "array" : "map";
        json[array ? "items" : "values"] = Write(*node.items, ns);
        return json;
      }
      case AvroType::kUnion: {
        OrderedJson json = OrderedJson::array();
        for (const AvroNode* branch : node.branches) json.push_back(Write(*branch, ns));
        return json;
      }
      default:
        break;
    }
    if (node.logical_type.empty()) return AvroTypeName(node.type);
    OrderedJson json = OrderedJson::object();
    json["type"] = AvroTypeName(node.type);
    AddLogicalType(node, &json);
    return json;
  }

 private:
  OrderedJson WriteNamed(const AvroNode& node, const std::string& ns) {
    if (!defined_.insert(&node).second) {
      return node.name_space == ns ? node.name : node.FullName();
    }
    OrderedJson json = OrderedJson::object();
    json["type"] = AvroTypeName(node.type);
    json["name"] = node.name;
    if (node.name_space != ns) json["namespace"] = node.name_space;
    if (node.type == AvroType::kRecord) {
      OrderedJson fields = OrderedJson::array();
      for (const AvroField& field : node.fields) fields.push_back(WriteField(field, node));
      json["fields"] = std::move(fields);
    } else if (node.type == AvroType::kEnum) {
      json["symbols"] = node.symbols;
    } else {
      json["size"] = node.fixed_size;
    }
    AddLogicalType(node, &json);
    return json;
  }

  OrderedJson WriteField(const AvroField& field, const AvroNode& record) {
    OrderedJson json = OrderedJson::object();
    json["name"] = field.name;
    json["type"] = Write(*field.type, record.name_space);
    if (field.default_json) json["default"] = OrderedJson::parse(*field.default_json);
    return json;
  }

  static void AddLogicalType(const AvroNode& node, OrderedJson* json) {
    if (node.logical_type.empty()) return;
    (*json)["logicalType"] = node.logical_type;
    if (node.precision) (*json)["precision"] = *node.precision;
    if (node.scale) (*json)["scale"] = *node.scale;
  }

  std::unordered_set<const AvroNode*> defined_;
};

}  // namespace

std::string AvroSchema::ToJson() const { return SchemaWriter().Write(*root_, "").dump(); }

}  // namespace freshet::container::avro
