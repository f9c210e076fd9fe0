#include "common/json.h"

namespace freshet {

Result<Json> ParseJson(std::string_view text, std::string_view source) {
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    // Re-parse with exceptions only to recover the position of the syntax error.
    try {
      (void)Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      return Status::Corruption("'", source, "' is not valid JSON: ", e.what());
    }
    return Status::Corruption("'", source, "' is not valid JSON");
  }
  return parsed;
}

namespace {

void AppendIndent(std::string* out, int depth) { out->append(static_cast<size_t>(depth) * 2, ' '); }

void WriteValue(const Json& value, int depth, std::string* out) {
  if (value.is_object()) {
    if (value.empty()) {
      out->append("{ }");
      return;
    }
    out->append("{\n");
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out->append(",\n");
      first = false;
      AppendIndent(out, depth + 1);
      out->append(Json(it.key()).dump());
      out->append(" : ");
      WriteValue(it.value(), depth + 1, out);
    }
    out->push_back('\n');
    AppendIndent(out, depth);
    out->push_back('}');
  } else if (value.is_array()) {
    if (value.empty()) {
      out->append("[ ]");
      return;
    }
    out->append("[ ");
    bool first = true;
    for (const auto& element : value) {
      if (!first) out->append(", ");
      first = false;
      WriteValue(element, depth, out);
    }
    out->append(" ]");
  } else {
    out->append(value.dump(-1, ' ', /*ensure_ascii=*/false));
  }
}

}  // namespace

std::string ToJacksonPrettyJson(const Json& value) {
  std::string out;
  WriteValue(value, 0, &out);
  return out;
}

}  // namespace freshet
