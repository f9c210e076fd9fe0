#!/usr/bin/env python3
"""Python reference harness for freshet interop tests, built on pypaimon.

Usage (see --help and interop/README.md, section "Python (pypaimon)"):

  paimon_harness.py create --table <wh>/<db>.db/<table> --schema schema.json
  paimon_harness.py write  --table <wh>/<db>.db/<table> --input rows.jsonl [--overwrite]
  paimon_harness.py read   --table <wh>/<db>.db/<table> [--snapshot N | --all-snapshots]
                           [--output out.jsonl]

A table path must have the filesystem-catalog shape ``<warehouse>/<db>.db/<table>``;
the harness derives warehouse, database and table name from it and goes through
pypaimon's filesystem catalog.

Errors are reported as one line on stderr with a non-zero exit code
(2 = usage / bad input, 1 = failure inside pypaimon).
"""

import argparse
import base64
import datetime as _dt
import decimal
import json
import math
import os
import re
import sys
import warnings

EPOCH_DATE = _dt.date(1970, 1, 1)
EPOCH_DT = _dt.datetime(1970, 1, 1)


class HarnessError(Exception):
    """A user-facing error (bad arguments, bad schema, bad row)."""


# ---------------------------------------------------------------------------
# Table path
# ---------------------------------------------------------------------------

def split_table_path(table_path):
    """<warehouse>/<db>.db/<table> -> (warehouse, db, table)."""
    if "://" in table_path:
        scheme, rest = table_path.split("://", 1)
        prefix = scheme + "://"
    else:
        prefix, rest = "", os.path.abspath(table_path)
    rest = rest.rstrip("/")
    parent, table = rest.rsplit("/", 1) if "/" in rest else ("", rest)
    warehouse, db_dir = parent.rsplit("/", 1) if "/" in parent else ("", parent)
    if not table or not db_dir.endswith(".db") or len(db_dir) <= 3:
        raise HarnessError(
            "table path must look like <warehouse>/<db>.db/<table>, got: %s" % table_path)
    if not warehouse and not prefix:
        warehouse = "/"
    return prefix + warehouse, db_dir[:-3], table


def open_catalog(warehouse):
    from pypaimon import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def load_table(table_path):
    warehouse, db, name = split_table_path(table_path)
    if not os.path.isdir(os.path.join(warehouse, db + ".db", name, "schema")) \
            and "://" not in table_path:
        raise HarnessError("no Paimon table at %s (missing schema/ folder)" % table_path)
    table = open_catalog(warehouse).get_table("%s.%s" % (db, name))
    check_manifest_format(table.table_schema.options, table_path)
    return table


def check_manifest_format(options, what):
    """pypaimon reads and writes only Avro manifests and ignores 'manifest.format'."""
    fmt = str(options.get("manifest.format", "avro")).lower()
    if fmt != "avro":
        raise HarnessError(
            "%s: manifest.format=%s is not supported by pypaimon (it reads and writes "
            "Avro manifests only)" % (what, fmt))


# ---------------------------------------------------------------------------
# Schema spec -> pypaimon Schema
# ---------------------------------------------------------------------------

_MAX_LEN = 2147483647


def _canonical_atomic(type_str):
    """Parse an atomic SQL type string -> (canonical Paimon type string, nullable).

    Canonical strings are the ones Java Paimon writes into schema files
    (e.g. TIMESTAMP -> TIMESTAMP(6), DECIMAL -> DECIMAL(10, 0),
    TIMESTAMP_LTZ(3) -> TIMESTAMP(3) WITH LOCAL TIME ZONE).
    """
    s = " ".join(type_str.strip().upper().split())
    nullable = True
    if s.endswith(" NOT NULL"):
        nullable, s = False, s[:-len(" NOT NULL")].strip()
    elif s.endswith(" NULL"):
        s = s[:-len(" NULL")].strip()
    m = re.fullmatch(r"([A-Z_]+)(?:\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?(.*)", s)
    if not m:
        raise HarnessError("cannot parse type: %r" % type_str)
    base, p1, p2, tail = m.group(1), m.group(2), m.group(3), m.group(4).strip()
    p1 = int(p1) if p1 is not None else None
    p2 = int(p2) if p2 is not None else None

    def no_args():
        if p1 is not None or tail:
            raise HarnessError("unexpected arguments in type: %r" % type_str)

    simple = {"BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT",
              "INT": "INT", "INTEGER": "INT", "BIGINT": "BIGINT", "FLOAT": "FLOAT",
              "DOUBLE": "DOUBLE", "DATE": "DATE", "STRING": "STRING", "BYTES": "BYTES"}
    if base in simple:
        no_args()
        return simple[base], nullable
    if base == "DOUBLE" and tail == "PRECISION":
        return "DOUBLE", nullable
    if base in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        if tail or p2 is not None:
            raise HarnessError("cannot parse type: %r" % type_str)
        n = 1 if p1 is None else p1
        if base == "VARCHAR" and n == _MAX_LEN:
            return "STRING", nullable
        if base == "VARBINARY" and n == _MAX_LEN:
            return "BYTES", nullable
        return "%s(%d)" % (base, n), nullable
    if base in ("DECIMAL", "NUMERIC", "DEC"):
        if tail:
            raise HarnessError("cannot parse type: %r" % type_str)
        p = 10 if p1 is None else p1
        sc = 0 if p2 is None else p2
        if not (1 <= p <= 38 and 0 <= sc <= p):
            raise HarnessError("invalid DECIMAL precision/scale in %r" % type_str)
        return "DECIMAL(%d, %d)" % (p, sc), nullable
    if base == "TIME":
        if p2 is not None or tail not in ("", "WITHOUT TIME ZONE"):
            raise HarnessError("cannot parse type: %r" % type_str)
        return "TIME(%d)" % (0 if p1 is None else p1), nullable
    if base in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if p2 is not None:
            raise HarnessError("cannot parse type: %r" % type_str)
        p = 6 if p1 is None else p1
        if not 0 <= p <= 9:
            raise HarnessError("invalid TIMESTAMP precision in %r" % type_str)
        if base == "TIMESTAMP_LTZ" and tail == "":
            ltz = True
        elif base == "TIMESTAMP" and tail == "WITH LOCAL TIME ZONE":
            ltz = True
        elif base == "TIMESTAMP" and tail in ("", "WITHOUT TIME ZONE"):
            ltz = False
        else:
            raise HarnessError("cannot parse type: %r" % type_str)
        return ("TIMESTAMP(%d) WITH LOCAL TIME ZONE" if ltz else "TIMESTAMP(%d)") % p, nullable
    raise HarnessError("unsupported type: %r" % type_str)


def _composite_nullable(obj):
    t = " ".join(str(obj["type"]).upper().split())
    nullable = not t.endswith(" NOT NULL")
    if "nullable" in obj and obj["nullable"] is not None:
        nullable = bool(obj["nullable"])
    return t.split(" ")[0], nullable


def spec_to_paimon_type(spec):
    """Paimon schema-JSON type encoding -> pypaimon DataType (nested ids = -1, fixed later)."""
    from pypaimon.schema.data_types import (AtomicType, ArrayType, DataField, MapType,
                                            MultisetType, RowType)
    if isinstance(spec, str):
        canonical, nullable = _canonical_atomic(spec)
        return AtomicType(canonical, nullable)
    if not isinstance(spec, dict) or "type" not in spec:
        raise HarnessError("bad type spec: %r" % (spec,))
    kind, nullable = _composite_nullable(spec)
    if kind == "ARRAY":
        return ArrayType(nullable, spec_to_paimon_type(spec["element"]))
    if kind == "MULTISET":
        return MultisetType(nullable, spec_to_paimon_type(spec["element"]))
    if kind == "MAP":
        return MapType(nullable, spec_to_paimon_type(spec["key"]), spec_to_paimon_type(spec["value"]))
    if kind == "ROW":
        fields = []
        for f in spec.get("fields", []):
            fields.append(DataField(-1, f["name"], spec_to_paimon_type(f["type"]),
                                    f.get("description")))
        return RowType(nullable, fields)
    if kind in ("VECTOR", "VARIANT", "BLOB"):
        raise HarnessError("type %s is not supported by this harness" % kind)
    # an atomic type written as {"type": "..."}
    return spec_to_paimon_type(spec["type"])


def build_schema(spec):
    from pypaimon import Schema
    from pypaimon.schema.data_types import AtomicInteger, DataField, reassign_field_id
    if not isinstance(spec, dict) or not isinstance(spec.get("fields"), list) or not spec["fields"]:
        raise HarnessError("schema spec needs a non-empty \"fields\" list")
    # Field ids follow Java Schema.Builder: each top-level column takes the next id,
    # then its nested ROW fields are renumbered from the same counter
    # (children before their parent field).
    counter = AtomicInteger(-1)
    fields = []
    names = set()
    for f in spec["fields"]:
        if "name" not in f or "type" not in f:
            raise HarnessError("each field needs \"name\" and \"type\": %r" % (f,))
        if f["name"] in names:
            raise HarnessError("duplicate field name: %s" % f["name"])
        names.add(f["name"])
        top_id = counter.increment_and_get()
        dtype = reassign_field_id(spec_to_paimon_type(f["type"]), counter)
        fields.append(DataField(top_id, f["name"], dtype, f.get("description")))
    partition_keys = list(spec.get("partitionKeys") or [])
    primary_keys = list(spec.get("primaryKeys") or [])
    for k in partition_keys + primary_keys:
        if k not in names:
            raise HarnessError("key column %r is not a field" % k)
    from pypaimon.schema.data_types import PyarrowFieldParser
    for f in fields:
        try:
            PyarrowFieldParser.from_paimon_type(f.type)
        except ValueError:
            raise HarnessError("column %s: type %s is not supported by pypaimon" % (f.name, f.type))
    options = {str(k): str(v) for k, v in (spec.get("options") or {}).items()}
    return Schema(fields, partition_keys, primary_keys, options, spec.get("comment"))


# ---------------------------------------------------------------------------
# Type helpers
# ---------------------------------------------------------------------------

def _atomic_info(dtype):
    """AtomicType -> (base, p1, p2, is_ltz)."""
    t = dtype.type.upper()
    ltz = "WITH LOCAL TIME ZONE" in t or t.startswith("TIMESTAMP_LTZ")
    m = re.match(r"([A-Z_]+)(?:\((\d+)(?:,\s*(\d+))?\))?", t)
    base = m.group(1)
    p1 = int(m.group(2)) if m.group(2) else None
    p2 = int(m.group(3)) if m.group(3) else None
    if base == "TIMESTAMP_LTZ":
        base = "TIMESTAMP"
    if base in ("NUMERIC", "DEC"):
        base = "DECIMAL"
    if base == "INTEGER":
        base = "INT"
    return base, p1, p2, ltz


def _ts_precision(p1):
    return 6 if p1 is None else p1


# ---------------------------------------------------------------------------
# Output: python values (from Arrow) -> JSON values
# ---------------------------------------------------------------------------

def _float_json(x, is_float32):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if is_float32:
        import numpy as np
        # shortest decimal string that round-trips through float32
        return float(str(np.float32(x)))
    return x


def _frac(nanos, p):
    if p <= 0:
        return ""
    return "." + ("%09d" % nanos)[:p]


def _int_unit(atype):
    """Arrow temporal type -> nanoseconds per stored integer (None if not int-ized)."""
    import pyarrow as pa
    if pa.types.is_timestamp(atype) or pa.types.is_time(atype):
        return _UNIT_NANOS[atype.unit]
    return None


def intify_arrow_type(atype):
    """Same Arrow type with every TIMESTAMP/TIME replaced by its integer storage, so
    values reach Python as exact integers (no datetime/pandas range or precision loss)."""
    import pyarrow as pa
    if pa.types.is_timestamp(atype) or pa.types.is_time64(atype):
        return pa.int64()
    if pa.types.is_time32(atype):
        return pa.int32()
    if pa.types.is_map(atype):
        return pa.map_(atype.key_field.with_type(intify_arrow_type(atype.key_type)),
                       atype.item_field.with_type(intify_arrow_type(atype.item_type)))
    if pa.types.is_list(atype):
        return pa.list_(atype.value_field.with_type(intify_arrow_type(atype.value_type)))
    if pa.types.is_large_list(atype):
        return pa.large_list(atype.value_field.with_type(intify_arrow_type(atype.value_type)))
    if pa.types.is_fixed_size_list(atype):
        return pa.list_(atype.value_field.with_type(intify_arrow_type(atype.value_type)),
                        atype.list_size)
    if pa.types.is_struct(atype):
        return pa.struct([atype.field(i).with_type(intify_arrow_type(atype.field(i).type))
                          for i in range(atype.num_fields)])
    return atype


def _split_nanos(total_nanos):
    secs, nanos = divmod(total_nanos, 10**9)
    return EPOCH_DT + _dt.timedelta(seconds=secs), nanos


def _struct_child_type(atype, name, index):
    import pyarrow as pa
    if atype is not None and pa.types.is_struct(atype):
        idx = atype.get_field_index(name)
        return atype.field(idx if idx >= 0 else index).type
    return None


def to_json_value(v, dtype, atype=None):
    """Python value read from Arrow (of Arrow type ``atype``, temporal types int-ized)
    -> JSON value following the shared conventions for Paimon type ``dtype``."""
    import pyarrow as pa
    from pypaimon.schema.data_types import ArrayType, MapType, MultisetType, RowType
    if v is None:
        return None
    if isinstance(dtype, (ArrayType, MultisetType)):
        et = atype.value_type if atype is not None and hasattr(atype, "value_type") else None
        return [to_json_value(e, dtype.element, et) for e in v]
    if isinstance(dtype, MapType):
        kt = atype.key_type if atype is not None and pa.types.is_map(atype) else None
        it = atype.item_type if atype is not None and pa.types.is_map(atype) else None
        items = v.items() if isinstance(v, dict) else v
        return [[to_json_value(k, dtype.key, kt), to_json_value(x, dtype.value, it)]
                for k, x in items]
    if isinstance(dtype, RowType):
        out = {}
        for i, f in enumerate(dtype.fields):
            x = v.get(f.name) if isinstance(v, dict) else v[i]
            out[f.name] = to_json_value(x, f.type, _struct_child_type(atype, f.name, i))
        return out
    base, p1, p2, ltz = _atomic_info(dtype)
    if base == "BOOLEAN":
        return bool(v)
    if base in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return int(v)
    if base in ("FLOAT", "DOUBLE"):
        return _float_json(v, base == "FLOAT")
    if base == "DECIMAL":
        scale = 0 if p2 is None else p2
        d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(str(v))
        with decimal.localcontext() as ctx:
            ctx.prec = 80
            d = d.quantize(decimal.Decimal(1).scaleb(-scale))
        return format(d, "f")
    if base in ("CHAR", "VARCHAR", "STRING"):
        return v if isinstance(v, str) else bytes(v).decode("utf-8")
    if base in ("BINARY", "VARBINARY", "BYTES"):
        if isinstance(v, str):
            v = v.encode("utf-8")
        return base64.b64encode(bytes(v)).decode("ascii")
    if base == "DATE":
        if isinstance(v, int):
            v = EPOCH_DATE + _dt.timedelta(days=v)
        return v.isoformat()
    if base == "TIME":
        p = 0 if p1 is None else p1
        if isinstance(v, int) and atype is not None and _int_unit(atype):
            total = v * _int_unit(atype)
            secs, nanos = divmod(total, 10**9)
            hms = "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
        elif isinstance(v, _dt.time):
            nanos = v.microsecond * 1000
            hms = "%02d:%02d:%02d" % (v.hour, v.minute, v.second)
        else:
            raise HarnessError("unexpected TIME value %r" % (v,))
        return hms + _frac(nanos, p)
    if base == "TIMESTAMP":
        p = _ts_precision(p1)
        if isinstance(v, int) and atype is not None and _int_unit(atype):
            sec, nanos = _split_nanos(v * _int_unit(atype))
        elif isinstance(v, _dt.datetime):
            if v.tzinfo is not None:
                v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            sec, nanos = v.replace(microsecond=0), v.microsecond * 1000
        else:
            raise HarnessError("unexpected TIMESTAMP value %r" % (v,))
        return "%04d-%02d-%02d %02d:%02d:%02d" % (sec.year, sec.month, sec.day, sec.hour,
                                                  sec.minute, sec.second) \
            + _frac(nanos, p) + ("Z" if ltz else "")
    raise HarnessError("unsupported column type for output: %s" % dtype)


def _json_dumps(obj):
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


# ---------------------------------------------------------------------------
# Input: JSON values -> Arrow-friendly python values
# ---------------------------------------------------------------------------

_TS_RE = re.compile(r"(-?\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z)?$")
_TIME_RE = re.compile(r"(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$")

_UNIT_NANOS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
# set for ORC tables: pyarrow's ORC writer goes through int64 nanoseconds
_NANOS_RANGE_ONLY = [False]


def _to_unit(nanos_total, unit, what):
    per = _UNIT_NANOS[unit]
    if nanos_total % per:
        raise HarnessError("%s has more sub-second digits than pypaimon's Arrow unit '%s' can hold"
                           % (what, unit))
    return nanos_total // per


def from_json_value(v, dtype, arrow_type, where):
    """JSON value -> python value pyarrow accepts for ``arrow_type``."""
    import pyarrow as pa
    from pypaimon.schema.data_types import ArrayType, MapType, MultisetType, RowType
    if v is None:
        if not dtype.nullable:
            raise HarnessError("%s: null for NOT NULL column" % where)
        return None
    if isinstance(dtype, (ArrayType, MultisetType)):
        if not isinstance(v, list):
            raise HarnessError("%s: expected a JSON array" % where)
        et = arrow_type.value_type
        return [from_json_value(e, dtype.element, et, where + "[]") for e in v]
    if isinstance(dtype, MapType):
        if isinstance(v, dict):
            v = list(v.items())
        if not isinstance(v, list) or any(not isinstance(p, list) or len(p) != 2 for p in v):
            raise HarnessError("%s: expected a JSON array of [key, value] pairs" % where)
        return [(from_json_value(k, dtype.key, arrow_type.key_type, where + ".key"),
                 from_json_value(x, dtype.value, arrow_type.item_type, where + ".value"))
                for k, x in v]
    if isinstance(dtype, RowType):
        if not isinstance(v, dict):
            raise HarnessError("%s: expected a JSON object" % where)
        unknown = set(v) - {f.name for f in dtype.fields}
        if unknown:
            raise HarnessError("%s: unknown ROW field(s) %s" % (where, sorted(unknown)))
        return {f.name: from_json_value(v.get(f.name), f.type,
                                        arrow_type.field(f.name).type, where + "." + f.name)
                for f in dtype.fields}
    base, p1, p2, ltz = _atomic_info(dtype)
    try:
        if base == "BOOLEAN":
            if not isinstance(v, bool):
                raise ValueError("expected true/false")
            return v
        if base in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError("expected a JSON integer")
            return v
        if base in ("FLOAT", "DOUBLE"):
            if isinstance(v, str):
                special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
                if v not in special:
                    raise ValueError("expected a number or NaN/Infinity/-Infinity")
                return special[v]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError("expected a JSON number")
            return float(v)
        if base == "DECIMAL":
            d = decimal.Decimal(str(v))
            scale = 0 if p2 is None else p2
            if d != d.quantize(decimal.Decimal(1).scaleb(-scale), context=decimal.Context(prec=80)):
                raise ValueError("more than %d fractional digits" % scale)
            return d
        if base in ("CHAR", "VARCHAR", "STRING"):
            if not isinstance(v, str):
                raise ValueError("expected a JSON string")
            return v
        if base in ("BINARY", "VARBINARY", "BYTES"):
            return base64.b64decode(v, validate=True)
        if base == "DATE":
            return (_dt.date.fromisoformat(v) - EPOCH_DATE).days
        if base == "TIME":
            m = _TIME_RE.match(v)
            if not m:
                raise ValueError("expected HH:MM:SS[.fraction]")
            h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3))
            nanos = int((m.group(4) or "").ljust(9, "0") or 0)
            total = ((h * 60 + mi) * 60 + s) * 10**9 + nanos
            return _to_unit(total, arrow_type.unit, "%s: TIME value %r" % (where, v))
        if base == "TIMESTAMP":
            m = _TS_RE.match(v)
            if not m:
                raise ValueError("expected YYYY-MM-DD HH:MM:SS[.fraction]%s" % ("Z" if ltz else ""))
            if m.group(8) and not ltz:
                raise ValueError("trailing Z is only for TIMESTAMP WITH LOCAL TIME ZONE")
            base_dt = _dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)),
                                   int(m.group(4)), int(m.group(5)), int(m.group(6)))
            delta = base_dt - EPOCH_DT
            nanos = int((m.group(7) or "").ljust(9, "0") or 0)
            total = (delta.days * 86400 + delta.seconds) * 10**9 + nanos
            if _NANOS_RANGE_ONLY[0] and not (-2**63 <= total < 2**63):
                raise HarnessError(
                    "%s: TIMESTAMP value %r is outside 1677-09-21..2262-04-11; pypaimon's ORC "
                    "writer (pyarrow) stores timestamps as int64 nanoseconds and would silently "
                    "corrupt it" % (where, v))
            return _to_unit(total, arrow_type.unit, "%s: TIMESTAMP value %r" % (where, v))
    except HarnessError:
        raise
    except (ValueError, TypeError, decimal.InvalidOperation, base64.binascii.Error) as e:
        raise HarnessError("%s: bad %s value %r (%s)" % (where, dtype, v, e))
    raise HarnessError("%s: unsupported column type %s" % (where, dtype))


# ---------------------------------------------------------------------------
# Row kinds
# ---------------------------------------------------------------------------

_KINDS = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}
_CURRENT_KIND = [None]


def _install_row_kind_hook():
    """pypaimon has no public per-row RowKind for writes (only the 'rowkind.field'
    table option). Its key-value writer asks pypaimon.write.row_kind.row_kinds()
    for the _VALUE_KIND column of every batch it buffers; we override that
    function so batches written while _CURRENT_KIND is set carry that kind."""
    import pypaimon.write.row_kind as rk
    original = rk.row_kinds
    if getattr(original, "_freshet_hook", False):
        return

    def row_kinds(options, data):
        if _CURRENT_KIND[0] is not None and 'rowkind.field' not in options.options.to_map():
            return [_CURRENT_KIND[0]] * data.num_rows
        return original(options, data)

    row_kinds._freshet_hook = True
    rk.row_kinds = row_kinds


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def cmd_create(args):
    try:
        with open(args.schema, "r", encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise HarnessError("cannot read schema spec %s: %s" % (args.schema, e))
    schema = build_schema(spec)
    check_manifest_format(schema.options, "schema spec")
    warehouse, db, name = split_table_path(args.table)
    if "://" not in warehouse:
        os.makedirs(warehouse, exist_ok=True)
    catalog = open_catalog(warehouse)
    catalog.create_database(db, True)
    try:
        catalog.create_table("%s.%s" % (db, name), schema, False)
    except Exception as e:
        if type(e).__name__ == "TableAlreadyExistException":
            raise HarnessError("table already exists: %s" % args.table)
        raise


def _read_jsonl(path):
    rows = []
    try:
        with open(path, "r", encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise HarnessError("%s:%d: invalid JSON (%s)" % (path, lineno, e))
                if not isinstance(obj, dict):
                    raise HarnessError("%s:%d: each line must be a JSON object" % (path, lineno))
                rows.append((lineno, obj))
    except OSError as e:
        raise HarnessError("cannot read %s: %s" % (path, e))
    return rows


def _count_retracts(path, file_io):
    """Number of -U/-D records (_VALUE_KIND 1 or 3) in a key-value data file."""
    import pyarrow as pa
    import pyarrow.compute as pc
    low = path.lower()
    with file_io.new_input_stream(path) as stream:
        raw = stream.read()
    if low.endswith(".parquet"):
        import pyarrow.parquet as pq
        kinds = pq.read_table(pa.BufferReader(raw), columns=["_VALUE_KIND"],
                              use_threads=False).column(0)
    elif low.endswith(".orc"):
        import pyarrow.orc as po
        kinds = po.ORCFile(pa.BufferReader(raw)).read(columns=["_VALUE_KIND"]).column(0)
    elif low.endswith(".avro"):
        import io
        import fastavro
        kinds = pa.chunked_array([pa.array([r["_VALUE_KIND"] for r in fastavro.reader(io.BytesIO(raw))],
                                           type=pa.int8())])
    else:
        raise HarnessError("cannot count retract rows in %s" % path)
    return pc.sum(pc.is_in(kinds, value_set=pa.array([1, 3], type=kinds.type))).as_py() or 0


def _fix_delete_row_counts(messages, file_io):
    """pypaimon 2.1.0 records deleteRowCount=0 for every new file, even when the file
    holds -U/-D records. Readers (Java, pypaimon) then treat a lone such file as
    raw-convertible and return its retractions as live rows. Put the real count in the
    file metadata before committing."""
    for message in messages:
        for f in message.new_files:
            path = f.external_path or f.file_path
            if path:
                f.delete_row_count = _count_retracts(path, file_io)


def cmd_write(args):
    import pyarrow as pa
    from pypaimon.schema.data_types import PyarrowFieldParser
    table = load_table(args.table)
    fields = table.table_schema.fields
    arrow_schema = PyarrowFieldParser.from_paimon_schema(fields)
    names = [f.name for f in fields]
    is_pk = bool(table.table_schema.primary_keys)
    rowkind_field = table.table_schema.options.get("rowkind.field")
    _NANOS_RANGE_ONLY[0] = str(table.options.file_format()).lower() == "orc"

    # Build runs of consecutive rows with the same row kind (order is preserved).
    runs = []  # list of (kind, [row values dicts])
    for lineno, obj in _read_jsonl(args.input):
        where = "%s:%d" % (args.input, lineno)
        kind = obj.pop("_kind", None)
        if kind is not None and kind not in _KINDS:
            raise HarnessError("%s: bad _kind %r (use +I, -U, +U, -D)" % (where, kind))
        unknown = [k for k in obj if k not in names]
        if unknown:
            raise HarnessError("%s: unknown column(s) %s" % (where, unknown))
        values = {}
        for f, af in zip(fields, arrow_schema):
            if rowkind_field and f.name == rowkind_field and obj.get(f.name) is None:
                values[f.name] = kind or "+I"
                continue
            values[f.name] = from_json_value(obj.get(f.name), f.type, af.type,
                                             "%s: column %s" % (where, f.name))
        if rowkind_field:
            kind = None  # carried by the row-kind column itself
        elif kind not in (None, "+I") and not is_pk:
            raise HarnessError("%s: _kind %s is only valid for primary-key tables" % (where, kind))
        kind_code = None if kind is None else _KINDS[kind]
        if runs and runs[-1][0] == kind_code:
            runs[-1][1].append(values)
        else:
            runs.append((kind_code, [values]))

    if any(k not in (None, 0) for k, _ in runs):
        _install_row_kind_hook()

    builder = table.new_batch_write_builder()
    if args.overwrite:
        builder = builder.overwrite()
    writer = builder.new_write()
    commit = builder.new_commit()
    try:
        for kind_code, rows in runs:
            columns = {n: [r[n] for r in rows] for n in names}
            try:
                data = pa.Table.from_pydict(columns, schema=arrow_schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as e:
                raise HarnessError("cannot convert rows to Arrow: %s" % e)
            _CURRENT_KIND[0] = kind_code
            try:
                writer.write_arrow(data)
            finally:
                _CURRENT_KIND[0] = None
        messages = writer.prepare_commit()
        if is_pk and (rowkind_field or any(k in (1, 3) for k, _ in runs)):
            _fix_delete_row_counts(messages, table.file_io)
        commit.commit(messages)
    finally:
        writer.close()
        commit.close()


def _read_rows(table):
    """JSON lines of one batch read of `table` (all splits of its scan)."""
    fields = table.table_schema.fields
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    result = rb.new_read().to_arrow(splits)
    lines = []
    if result is not None and result.num_rows:
        cols, types = {}, {}
        for n in result.column_names:
            col = result.column(n)
            types[n] = intify_arrow_type(col.type)
            cols[n] = col.cast(types[n]).to_pylist() if types[n] != col.type else col.to_pylist()
            types[n] = col.type
        for i in range(result.num_rows):
            row = {}
            for f in fields:
                col = cols.get(f.name)
                row[f.name] = None if col is None else to_json_value(col[i], f.type, types[f.name])
            lines.append(_json_dumps(row))
    return lines


def cmd_read(args):
    table = load_table(args.table)
    if args.all_snapshots and args.snapshot is not None:
        raise HarnessError("--all-snapshots and --snapshot are mutually exclusive")
    if args.all_snapshots:
        # One marker line per snapshot, ascending, each followed by that snapshot's rows.
        lines = []
        for snap in table.snapshot_manager().list_snapshots():
            lines.append(_json_dumps({"__snapshot": snap.id}))
            lines.extend(_read_rows(table.copy({"scan.snapshot-id": str(snap.id)})))
    else:
        if args.snapshot is not None:
            if args.snapshot < 1:
                raise HarnessError("--snapshot must be >= 1")
            snap_file = os.path.join(os.path.abspath(args.table), "snapshot",
                                     "snapshot-%d" % args.snapshot)
            if "://" not in args.table and not os.path.exists(snap_file):
                raise HarnessError("snapshot %d does not exist in %s" % (args.snapshot, args.table))
            table = table.copy({"scan.snapshot-id": str(args.snapshot)})
        lines = _read_rows(table)
    text = "".join(l + "\n" for l in lines)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("paimon_harness: error: %s\n" % message)
        sys.exit(2)


def main(argv=None):
    p = _Parser(
        prog="paimon_harness.py",
        description="pypaimon reference harness: create / write / read Paimon tables with "
                    "the JSON-lines conventions shared with the Java harness and freshet's CLI. "
                    "TABLE must be <warehouse>/<db>.db/<table> (pypaimon filesystem-catalog layout).")
    sub = p.add_subparsers(dest="cmd", metavar="{create,write,read}", parser_class=_Parser)
    c = sub.add_parser("create", help="create a table from a schema spec JSON file")
    c.add_argument("--table", required=True, help="<warehouse>/<db>.db/<table>")
    c.add_argument("--schema", required=True, help="schema spec JSON file")
    w = sub.add_parser("write", help="write JSON-lines rows as one batch commit")
    w.add_argument("--table", required=True, help="<warehouse>/<db>.db/<table>")
    w.add_argument("--input", required=True, help="rows, one JSON object per line")
    w.add_argument("--overwrite", action="store_true", help="INSERT OVERWRITE the whole table")
    r = sub.add_parser("read", help="batch-read a snapshot to JSON lines")
    r.add_argument("--table", required=True, help="<warehouse>/<db>.db/<table>")
    r.add_argument("--snapshot", type=int, help="time travel to snapshot N (scan.snapshot-id)")
    r.add_argument("--all-snapshots", action="store_true",
                   help="read every snapshot, ascending: a line {\"__snapshot\": N} then its rows")
    r.add_argument("--output", help="output file (default stdout)")
    args = p.parse_args(argv)
    if not args.cmd:
        sys.stderr.write("paimon_harness: error: missing command (create, write or read; see --help)\n")
        return 2
    warnings.simplefilter("ignore")
    import logging
    logging.disable(logging.WARNING)
    try:
        {"create": cmd_create, "write": cmd_write, "read": cmd_read}[args.cmd](args)
    except HarnessError as e:
        sys.stderr.write("paimon_harness: error: %s\n" % e)
        return 2
    except Exception as e:  # pypaimon failure: keep it to one line
        msg = " ".join(str(e).split()) or type(e).__name__
        if len(msg) > 600:
            msg = msg[:600] + "..."
        sys.stderr.write("paimon_harness: error: %s: %s\n" % (type(e).__name__, msg))
        return 1
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: native thread pools (pyarrow / pypaimon executors) can
    # abort the process at exit ("terminate called without an active exception") after
    # the work is done and committed.
    os._exit(rc)
