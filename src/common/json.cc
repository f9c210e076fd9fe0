#include "common/json.h"

namespace freshet {

Status CheckJsonNesting(std::string_view text, std::string_view source) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNestingDepth) {
        return Status::Corruption("'", source, "' nests JSON deeper than ", kMaxJsonNestingDepth,
                                  " levels (at byte ", i, ")");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return Status::OK();
}

Result<Json> ParseJson(std::string_view text, std::string_view source) {
  FRESHET_RETURN_NOT_OK(CheckJsonNesting(text, source));
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    // Re-parse with exceptions only to recover the position of the syntax error.
    try {
      Json ignored = Json::parse(text);
      (void)ignored;
    } catch (const nlohmann::json::exception& e) {
      // parse_error, but also out_of_range for a number too large for a double ("1e400").
      return Status::Corruption("'", source, "' is not valid JSON: ", e.what());
    }
    return Status::Corruption("'", source, "' is not valid JSON");
  }
  return parsed;
}

namespace {

void Indent(int level, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(level) * 2, ' ');
}

void WriteValue(const Json& json, int level, std::string* out);

void WriteObject(const Json& json, int level, std::string* out) {
  out->push_back('{');
  if (json.empty()) {
    out->append(" }");
    return;
  }
  bool first = true;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!first) out->push_back(',');
    first = false;
    Indent(level + 1, out);
    out->append(JacksonQuote(it.key()));
    out->append(" : ");
    WriteValue(it.value(), level + 1, out);
  }
  Indent(level, out);
  out->push_back('}');
}

void WriteArray(const Json& json, int level, std::string* out) {
  out->append("[ ");
  bool first = true;
  for (const Json& element : json) {
    if (!first) out->append(", ");
    first = false;
    WriteValue(element, level, out);
  }
  if (!json.empty()) out->push_back(' ');
  out->push_back(']');
}

void WriteValue(const Json& json, int level, std::string* out) {
  if (json.is_object()) {
    WriteObject(json, level, out);
  } else if (json.is_array()) {
    WriteArray(json, level, out);
  } else if (json.is_string()) {
    out->append(JacksonQuote(json.get<std::string>()));
  } else {
    out->append(json.dump());
  }
}

}  // namespace

std::string JacksonQuote(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string ToJacksonPrettyJson(const Json& json) {
  std::string out;
  WriteValue(json, 0, &out);
  return out;
}

namespace {

void AppendSnippet(const Json& value, int depth, std::string* out) {
  constexpr size_t kMaxChars = 160;
  constexpr size_t kMaxElements = 4;
  if (out->size() > kMaxChars) return;
  if (!value.is_structured()) {
    *out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
    return;
  }
  const bool array = value.is_array();
  *out += array ? "[" : "{";
  if (depth == 0 && !value.empty()) *out += "...";
  size_t shown = 0;
  for (auto it = value.begin(); depth > 0 && it != value.end(); ++it, ++shown) {
    if (shown == kMaxElements || out->size() > kMaxChars) {
      *out += ", ...";
      break;
    }
    if (shown > 0) *out += ", ";
    if (!array) *out += Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ": ";
    AppendSnippet(it.value(), depth - 1, out);
  }
  *out += array ? "]" : "}";
}

}  // namespace

std::string JsonSnippet(const Json& value) {
  std::string out;
  AppendSnippet(value, 3, &out);
  return out;
}

}  // namespace freshet
