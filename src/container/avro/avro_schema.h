// Avro schemas: parsed from the JSON text stored in a container file's `avro.schema` metadata (or
// written by hand), and serialized back to JSON so a writer can embed them.
//
// A schema is a graph of AvroNode objects owned by one AvroSchema. Nodes refer to each other by raw
// pointer, which lets a named type be referenced again later in the schema (even recursively)
// without ownership cycles. AvroSchema is cheap to copy: copies share the same immutable graph.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::container::avro {

enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// The Avro spelling of a type: "null", "boolean", ..., "record", "union".
const char* AvroTypeName(AvroType type);

struct AvroNode;

struct AvroField {
  std::string name;
  const AvroNode* type = nullptr;
  // The field's "default" attribute as compact JSON text (e.g. "null"), kept so that a schema
  // serialized back to JSON still carries it.
  std::optional<std::string> default_json;
};

// One node of a schema graph. Only the members that belong to `type` are meaningful.
struct AvroNode {
  AvroType type = AvroType::kNull;

  // Named types (record, enum, fixed): short name and namespace ("" when there is none).
  std::string name;
  std::string name_space;

  std::vector<AvroField> fields;          // record
  std::vector<std::string> symbols;       // enum
  const AvroNode* items = nullptr;        // array items, map values
  std::vector<const AvroNode*> branches;  // union
  int32_t fixed_size = 0;                 // fixed

  // Logical type annotation (e.g. "timestamp-millis", "decimal"), "" when absent.
  std::string logical_type;
  std::optional<int32_t> precision;
  std::optional<int32_t> scale;

  // True when a value of this type can encode to zero bytes (null, fixed(0), a record of such);
  // the decoder uses it to refuse absurd element counts that would consume no input.
  bool can_be_empty = false;

  // "namespace.name", or just the name when there is no namespace.
  std::string FullName() const;
  // Index of the record field called `name`, or -1 when the record has no such field.
  int FieldIndex(std::string_view field_name) const;
  // Index of the "null" branch of a union, or -1 when there is none (or this is not a union).
  int NullBranch() const;

  // Filled by the parser; maps field name to index for FieldIndex().
  std::unordered_map<std::string, int> field_index;
};

class AvroSchema {
 public:
  // Parses the JSON form of an Avro schema. Returns Invalid, naming the offending part, when the
  // text is not JSON or not a valid schema.
  static Result<AvroSchema> Parse(std::string_view json_text);
  // The same, shared process-wide by text (schemas are immutable): every manifest file of a
  // table embeds the same schema, and parsing it was a large part of reading a small manifest.
  static Result<AvroSchema> ParseCached(std::string_view json_text);

  const AvroNode& root() const { return *root_; }

  // A pointer to `node` (which must belong to this schema) that keeps the whole schema alive;
  // record values hold one so that they can look fields up by name.
  std::shared_ptr<const AvroNode> Share(const AvroNode& node) const {
    return std::shared_ptr<const AvroNode>(graph_, &node);
  }
  std::shared_ptr<const AvroNode> root_ptr() const { return Share(*root_); }

  // Canonical-enough JSON for embedding in a file: field order is preserved, every named type is
  // defined once and referenced by name afterwards, and namespaces are only written where they
  // change.
  std::string ToJson() const;

 private:
  struct Graph {
    std::vector<std::unique_ptr<AvroNode>> nodes;
  };
  AvroSchema(std::shared_ptr<const Graph> graph, const AvroNode* root)
      : graph_(std::move(graph)), root_(root) {}

  friend class SchemaParser;

  std::shared_ptr<const Graph> graph_;
  const AvroNode* root_;
};

}  // namespace freshet::container::avro
