package dev.freshet.interop;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;

/** Conversion between Paimon internal values and the JSON-lines conventions (see README). */
final class Values {
  private Values() {}

  /** Thrown for malformed input values; the message names the column. */
  static final class ValueException extends RuntimeException {
    ValueException(String msg) {
      super(msg);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Internal value -> JSON

  static void writeRow(JsonGenerator g, RowType type, InternalRow row) throws IOException {
    List<DataField> fields = type.getFields();
    g.writeStartObject();
    for (int i = 0; i < fields.size(); i++) {
      DataField f = fields.get(i);
      g.writeFieldName(f.name());
      Object v = InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(row);
      writeValue(g, f.type(), v);
    }
    g.writeEndObject();
  }

  static void writeValue(JsonGenerator g, DataType type, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
      return;
    }
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        g.writeBoolean((Boolean) v);
        break;
      case TINYINT:
        g.writeNumber((Byte) v);
        break;
      case SMALLINT:
        g.writeNumber((Short) v);
        break;
      case INTEGER:
        g.writeNumber((Integer) v);
        break;
      case BIGINT:
        g.writeNumber((Long) v);
        break;
      case FLOAT:
        {
          float f = (Float) v;
          if (Float.isNaN(f) || Float.isInfinite(f)) g.writeString(nonFinite(f));
          else g.writeNumber(FloatText.ofFloat(f));
          break;
        }
      case DOUBLE:
        {
          double d = (Double) v;
          if (Double.isNaN(d) || Double.isInfinite(d)) g.writeString(nonFinite(d));
          else g.writeNumber(FloatText.ofDouble(d));
          break;
        }
      case DECIMAL:
        {
          DecimalType dt = (DecimalType) type;
          BigDecimal bd = ((Decimal) v).toBigDecimal().setScale(dt.getScale(), RoundingMode.UNNECESSARY);
          g.writeString(bd.toPlainString());
          break;
        }
      case CHAR:
      case VARCHAR:
        g.writeString(v.toString());
        break;
      case BINARY:
      case VARBINARY:
        g.writeString(Base64.getEncoder().encodeToString((byte[]) v));
        break;
      case DATE:
        g.writeString(formatDate(LocalDate.ofEpochDay((Integer) v)));
        break;
      case TIME_WITHOUT_TIME_ZONE:
        {
          int ms = (Integer) v;
          LocalTime t = LocalTime.ofNanoOfDay(ms * 1_000_000L);
          g.writeString(formatTime(t, ((TimeType) type).getPrecision()));
          break;
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        g.writeString(
            formatTimestamp(((Timestamp) v).toLocalDateTime(), ((TimestampType) type).getPrecision()));
        break;
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        // Paimon stores the UTC instant; toLocalDateTime() yields its UTC wall-clock time.
        g.writeString(
            formatTimestamp(
                    ((Timestamp) v).toLocalDateTime(),
                    ((LocalZonedTimestampType) type).getPrecision())
                + "Z");
        break;
      case ARRAY:
        {
          DataType et = ((ArrayType) type).getElementType();
          InternalArray a = (InternalArray) v;
          InternalArray.ElementGetter eg = InternalArray.createElementGetter(et);
          g.writeStartArray();
          for (int i = 0; i < a.size(); i++) writeValue(g, et, eg.getElementOrNull(a, i));
          g.writeEndArray();
          break;
        }
      case MAP:
        {
          MapType mt = (MapType) type;
          writeMap(g, mt.getKeyType(), mt.getValueType(), (InternalMap) v);
          break;
        }
      case MULTISET:
        writeMap(g, ((MultisetType) type).getElementType(), DataTypes.INT(), (InternalMap) v);
        break;
      case ROW:
        writeRow(g, (RowType) type, (InternalRow) v);
        break;
      default:
        throw new ValueException("unsupported type for JSON output: " + type);
    }
  }

  private static void writeMap(JsonGenerator g, DataType kt, DataType vt, InternalMap m)
      throws IOException {
    InternalArray keys = m.keyArray();
    InternalArray vals = m.valueArray();
    InternalArray.ElementGetter kg = InternalArray.createElementGetter(kt);
    InternalArray.ElementGetter vg = InternalArray.createElementGetter(vt);
    g.writeStartArray();
    for (int i = 0; i < m.size(); i++) {
      g.writeStartArray();
      writeValue(g, kt, kg.getElementOrNull(keys, i));
      writeValue(g, vt, vg.getElementOrNull(vals, i));
      g.writeEndArray();
    }
    g.writeEndArray();
  }

  private static String nonFinite(double d) {
    return Double.isNaN(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
  }

  private static String pad(long v, int width) {
    String s = Long.toString(Math.abs(v));
    StringBuilder b = new StringBuilder(v < 0 ? "-" : "");
    for (int i = s.length(); i < width; i++) b.append('0');
    return b.append(s).toString();
  }

  static String formatDate(LocalDate d) {
    return pad(d.getYear(), 4) + "-" + pad(d.getMonthValue(), 2) + "-" + pad(d.getDayOfMonth(), 2);
  }

  private static String fraction(int nanos, int precision) {
    if (precision <= 0) return "";
    String nine = pad(nanos, 9);
    return "." + nine.substring(0, Math.min(9, precision));
  }

  static String formatTime(LocalTime t, int precision) {
    return pad(t.getHour(), 2)
        + ":"
        + pad(t.getMinute(), 2)
        + ":"
        + pad(t.getSecond(), 2)
        + fraction(t.getNano(), precision);
  }

  static String formatTimestamp(LocalDateTime ts, int precision) {
    return formatDate(ts.toLocalDate()) + " " + formatTime(ts.toLocalTime(), precision);
  }

  // ---------------------------------------------------------------------------------------------
  // JSON -> internal value

  static GenericRow readRow(RowType type, JsonNode obj, String where) {
    if (obj.isArray()) { // positional form, accepted for nested rows
      List<DataField> fields = type.getFields();
      if (obj.size() != fields.size()) {
        throw new ValueException(where + ": expected " + fields.size() + " values, got " + obj.size());
      }
      GenericRow row = new GenericRow(fields.size());
      for (int i = 0; i < fields.size(); i++) {
        DataField f = fields.get(i);
        row.setField(i, readValue(f.type(), obj.get(i), where + "." + f.name()));
      }
      return row;
    }
    if (!obj.isObject()) {
      throw new ValueException(where + ": expected a JSON object for a ROW, got " + obj.getNodeType());
    }
    List<DataField> fields = type.getFields();
    GenericRow row = new GenericRow(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      DataField f = fields.get(i);
      row.setField(i, readValue(f.type(), obj.get(f.name()), where + "." + f.name()));
    }
    Iterator<String> names = obj.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!n.equals("_kind") && type.getFieldIndex(n) < 0) {
        throw new ValueException(where + ": unknown column '" + n + "'");
      }
    }
    return row;
  }

  static Object readValue(DataType type, JsonNode n, String where) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      if (!type.isNullable()) {
        throw new ValueException(where + ": null for NOT NULL column of type " + type);
      }
      return null;
    }
    try {
      return readNonNull(type, n, where);
    } catch (ValueException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ValueException(where + ": cannot convert " + n + " to " + type + ": " + e.getMessage());
    }
  }

  private static Object readNonNull(DataType type, JsonNode n, String where) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        if (!n.isBoolean()) throw bad(where, type, n);
        return n.booleanValue();
      case TINYINT:
        return (byte) integral(n, where, type, Byte.MIN_VALUE, Byte.MAX_VALUE);
      case SMALLINT:
        return (short) integral(n, where, type, Short.MIN_VALUE, Short.MAX_VALUE);
      case INTEGER:
        return (int) integral(n, where, type, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case BIGINT:
        return integral(n, where, type, Long.MIN_VALUE, Long.MAX_VALUE);
      case FLOAT:
        return Float.parseFloat(floatText(n, where, type));
      case DOUBLE:
        return Double.parseDouble(floatText(n, where, type));
      case DECIMAL:
        {
          DecimalType dt = (DecimalType) type;
          if (!n.isTextual() && !n.isNumber()) throw bad(where, type, n);
          BigDecimal bd = new BigDecimal(n.isTextual() ? n.textValue().trim() : n.asText());
          bd = bd.setScale(dt.getScale(), RoundingMode.HALF_UP);
          Decimal d = Decimal.fromBigDecimal(bd, dt.getPrecision(), dt.getScale());
          if (d == null) throw new ValueException(where + ": " + n + " overflows " + type);
          return d;
        }
      case CHAR:
      case VARCHAR:
        if (!n.isTextual()) throw bad(where, type, n);
        return BinaryString.fromString(n.textValue());
      case BINARY:
      case VARBINARY:
        if (!n.isTextual()) throw bad(where, type, n);
        return Base64.getDecoder().decode(n.textValue());
      case DATE:
        if (!n.isTextual()) throw bad(where, type, n);
        return (int) LocalDate.parse(n.textValue().trim()).toEpochDay();
      case TIME_WITHOUT_TIME_ZONE:
        if (!n.isTextual()) throw bad(where, type, n);
        return (int) (LocalTime.parse(n.textValue().trim()).toNanoOfDay() / 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        if (!n.isTextual()) throw bad(where, type, n);
        return Timestamp.fromLocalDateTime(parseTimestamp(n.textValue(), false, where));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        if (!n.isTextual()) throw bad(where, type, n);
        return Timestamp.fromLocalDateTime(parseTimestamp(n.textValue(), true, where));
      case ARRAY:
        {
          if (!n.isArray()) throw bad(where, type, n);
          DataType et = ((ArrayType) type).getElementType();
          Object[] out = new Object[n.size()];
          for (int i = 0; i < n.size(); i++) out[i] = readValue(et, n.get(i), where + "[" + i + "]");
          return new GenericArray(out);
        }
      case MAP:
        {
          MapType mt = (MapType) type;
          return readMap(mt.getKeyType(), mt.getValueType(), n, where, type);
        }
      case MULTISET:
        return readMap(((MultisetType) type).getElementType(), DataTypes.INT().notNull(), n, where, type);
      case ROW:
        return readRow((RowType) type, n, where);
      default:
        throw new ValueException(where + ": unsupported type for JSON input: " + type);
    }
  }

  private static GenericMap readMap(DataType kt, DataType vt, JsonNode n, String where, DataType type) {
    Map<Object, Object> m = new LinkedHashMap<>();
    if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        JsonNode pair = n.get(i);
        if (!pair.isArray() || pair.size() != 2) {
          throw new ValueException(where + "[" + i + "]: expected a [key, value] pair, got " + pair);
        }
        Object k = readValue(kt, pair.get(0), where + "[" + i + "].key");
        m.put(k, readValue(vt, pair.get(1), where + "[" + i + "].value"));
      }
    } else if (n.isObject()) { // convenience: {"k": v} for string-like keys
      Iterator<Map.Entry<String, JsonNode>> it = n.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        Object k = readValue(kt, com.fasterxml.jackson.databind.node.TextNode.valueOf(e.getKey()), where + ".key");
        m.put(k, readValue(vt, e.getValue(), where + "." + e.getKey()));
      }
    } else {
      throw bad(where, type, n);
    }
    return new GenericMap(m);
  }

  private static long integral(JsonNode n, String where, DataType type, long min, long max) {
    BigInteger v;
    if (n.isIntegralNumber()) {
      v = n.bigIntegerValue();
    } else if (n.isTextual()) {
      v = new BigInteger(n.textValue().trim());
    } else {
      throw bad(where, type, n);
    }
    if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
      throw new ValueException(where + ": " + v + " out of range for " + type);
    }
    return v.longValue();
  }

  private static String floatText(JsonNode n, String where, DataType type) {
    if (n.isNumber()) {
      return n.numberValue().toString(); // BigDecimal/BigInteger/Long text: exact, parsed once
    }
    if (n.isTextual()) {
      String s = n.textValue().trim();
      if (s.equals("NaN") || s.equals("Infinity") || s.equals("-Infinity")) return s;
      return s; // numbers in strings are tolerated
    }
    throw bad(where, type, n);
  }

  static LocalDateTime parseTimestamp(String text, boolean ltz, String where) {
    String s = text.trim();
    if (s.endsWith("Z")) {
      s = s.substring(0, s.length() - 1);
    } else if (ltz && s.matches(".*[+-]\\d\\d:\\d\\d$")) {
      java.time.OffsetDateTime odt = java.time.OffsetDateTime.parse(s.replace(' ', 'T'));
      return odt.withOffsetSameInstant(java.time.ZoneOffset.UTC).toLocalDateTime();
    }
    try {
      return LocalDateTime.parse(s.replace(' ', 'T'));
    } catch (DateTimeParseException e) {
      throw new ValueException(where + ": bad timestamp '" + text + "' (want YYYY-MM-DD HH:MM:SS[.fff...])");
    }
  }

  private static ValueException bad(String where, DataType type, JsonNode n) {
    String shown = n.toString();
    if (shown.length() > 80) shown = shown.substring(0, 77) + "...";
    return new ValueException(where + ": cannot convert " + shown + " to " + type);
  }
}
