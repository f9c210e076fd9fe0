package dev.freshet.interop;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Parses freshet's schema spec JSON:
 *
 * <pre>
 * {"fields":[{"name":"id","type":"INT NOT NULL"},
 *            {"name":"tags","type":{"type":"ARRAY","element":"STRING"}}],
 *  "partitionKeys":["dt"], "primaryKeys":["id"],
 *  "options":{"bucket":"4"}, "comment":"optional"}
 * </pre>
 *
 * Types use Paimon's schema JSON type encoding. Atomic SQL strings go through Paimon's own parser
 * ({@code DataTypeJsonParser.parseAtomicTypeSQLString}); composite objects (ARRAY, MAP, MULTISET,
 * ROW) are assembled here so that field ids may be omitted (Paimon's Schema builder assigns ids).
 */
final class SchemaSpec {
  private SchemaSpec() {}

  static Schema toSchema(JsonNode spec) {
    if (!spec.isObject()) throw new IllegalArgumentException("schema spec must be a JSON object");
    for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      switch (k) {
        case "fields":
        case "partitionKeys":
        case "primaryKeys":
        case "options":
        case "comment":
          break;
        default:
          throw new IllegalArgumentException("schema spec: unknown key '" + k + "'");
      }
    }
    JsonNode fields = spec.get("fields");
    if (fields == null || !fields.isArray() || fields.size() == 0) {
      throw new IllegalArgumentException("schema spec: 'fields' must be a non-empty array");
    }
    Schema.Builder b = Schema.newBuilder();
    for (int i = 0; i < fields.size(); i++) {
      JsonNode f = fields.get(i);
      String name = text(f, "name", "fields[" + i + "]");
      DataType type = parseType(f.get("type"), "fields[" + i + "] (" + name + ")");
      JsonNode desc = f.get("description");
      b.column(name, type, desc == null || desc.isNull() ? null : desc.asText());
    }
    b.partitionKeys(strings(spec.get("partitionKeys"), "partitionKeys"));
    b.primaryKey(strings(spec.get("primaryKeys"), "primaryKeys"));
    JsonNode opts = spec.get("options");
    if (opts != null && !opts.isNull()) {
      if (!opts.isObject()) throw new IllegalArgumentException("schema spec: 'options' must be an object");
      Map<String, String> m = new LinkedHashMap<>();
      opts.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
      b.options(m);
    }
    JsonNode comment = spec.get("comment");
    if (comment != null && !comment.isNull()) b.comment(comment.asText());
    return b.build();
  }

  static DataType parseType(JsonNode t, String where) {
    if (t == null || t.isNull()) throw new IllegalArgumentException(where + ": missing 'type'");
    try {
      if (t.isTextual()) return DataTypeJsonParser.parseAtomicTypeSQLString(t.textValue());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(where + ": bad type '" + t.textValue() + "': " + e.getMessage(), e);
    }
    if (!t.isObject()) throw new IllegalArgumentException(where + ": type must be a string or object");
    String kind = text(t, "type", where).trim();
    boolean notNull = false;
    String upper = kind.toUpperCase(java.util.Locale.ROOT);
    if (upper.endsWith(" NOT NULL")) {
      notNull = true;
      upper = upper.substring(0, upper.length() - " NOT NULL".length()).trim();
    }
    DataType out;
    switch (upper) {
      case "ARRAY":
        out = DataTypes.ARRAY(parseType(t.get("element"), where + ".element"));
        break;
      case "MULTISET":
        out = DataTypes.MULTISET(parseType(t.get("element"), where + ".element"));
        break;
      case "MAP":
        out = DataTypes.MAP(parseType(t.get("key"), where + ".key"), parseType(t.get("value"), where + ".value"));
        break;
      case "ROW":
        {
          JsonNode fs = t.get("fields");
          if (fs == null || !fs.isArray()) throw new IllegalArgumentException(where + ": ROW needs 'fields'");
          List<DataField> fields = new ArrayList<>();
          for (int i = 0; i < fs.size(); i++) {
            JsonNode f = fs.get(i);
            String name = text(f, "name", where + ".fields[" + i + "]");
            DataType ft = parseType(f.get("type"), where + "." + name);
            JsonNode desc = f.get("description");
            // ids are placeholders: Schema.Builder.column() reassigns nested field ids.
            fields.add(new DataField(i, name, ft, desc == null || desc.isNull() ? null : desc.asText()));
          }
          out = new RowType(fields);
          break;
        }
      default:
        throw new IllegalArgumentException(where + ": unknown composite type '" + kind + "'");
    }
    return notNull ? out.copy(false) : out;
  }

  private static String text(JsonNode obj, String key, String where) {
    JsonNode n = obj == null ? null : obj.get(key);
    if (n == null || !n.isTextual()) throw new IllegalArgumentException(where + ": missing string '" + key + "'");
    return n.textValue();
  }

  private static List<String> strings(JsonNode n, String what) {
    List<String> out = new ArrayList<>();
    if (n == null || n.isNull()) return out;
    if (!n.isArray()) throw new IllegalArgumentException("schema spec: '" + what + "' must be an array");
    for (JsonNode e : n) out.add(e.asText());
    return out;
  }
}
