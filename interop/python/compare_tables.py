#!/usr/bin/env python3
"""Compares two Paimon tables written from the same inputs, e.g. by two builds of freshet.

Usage: compare_tables.py TABLE_A TABLE_B   (run with .venv-pypaimon/bin/python: needs fastavro)

Every snapshot, its manifest lists and manifests are decoded and compared with the fields that
name files or read the clock left out (file names are random UUIDs, times differ run to run);
every data file they list must be byte-identical to its counterpart, in manifest order (Avro data
files, whose sync marker is random, must hold the same schema and records). Exit 0
when the tables are equal, 1 with the first difference otherwise.
"""
import json
import os
import sys

import fastavro

VOLATILE_SNAPSHOT_KEYS = {"uuid", "commitUser", "timeMillis", "baseManifestList", "deltaManifestList",
                          "changelogManifestList", "indexManifest", "baseManifestListSize",
                          "deltaManifestListSize", "changelogManifestListSize"}
VOLATILE_RECORD_KEYS = {"_FILE_NAME", "_FILE_SIZE", "_CREATION_TIME", "_EXTRA_FILES"}


def read_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def read_avro(path):
    with open(path, "rb") as handle:
        return list(fastavro.reader(handle))


def scrub(value):
    """The record without the fields that name files or read the clock."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE_RECORD_KEYS}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def data_file_path(table, partition_dir, bucket, name):
    return os.path.join(table, partition_dir, f"bucket-{bucket}", name)


def partition_dirs(table):
    """Every directory holding bucket-N directories, relative to the table."""
    found = {}
    for directory, subdirs, _ in os.walk(table):
        for sub in subdirs:
            if sub.startswith("bucket-"):
                found.setdefault(os.path.relpath(directory, table), True)
    return sorted(found)


def locate(table, bucket, name):
    for partition in partition_dirs(table):
        path = data_file_path(table, partition, bucket, name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{name} (bucket {bucket}) not found under {table}")


def snapshot_ids(table):
    names = os.listdir(os.path.join(table, "snapshot"))
    return sorted(int(n.split("-")[1]) for n in names if n.startswith("snapshot-"))


def content(table):
    """Yields (what, comparable value) pairs in a fixed order."""
    for schema in sorted(os.listdir(os.path.join(table, "schema"))):
        parsed = read_json(os.path.join(table, "schema", schema))
        parsed.pop("timeMillis", None)
        yield f"schema/{schema}", parsed
    for sid in snapshot_ids(table):
        snapshot = read_json(os.path.join(table, "snapshot", f"snapshot-{sid}"))
        yield f"snapshot-{sid}", {k: v for k, v in snapshot.items() if k not in VOLATILE_SNAPSHOT_KEYS}
        for list_key in ("baseManifestList", "deltaManifestList"):
            metas = read_avro(os.path.join(table, "manifest", snapshot[list_key]))
            yield f"snapshot-{sid} {list_key}", scrub(metas)
            for meta in metas:
                entries = read_avro(os.path.join(table, "manifest", meta["_FILE_NAME"]))
                yield f"snapshot-{sid} manifest of {list_key}", scrub(entries)
                for entry in entries:
                    name = entry["_FILE"]["_FILE_NAME"]
                    path = locate(table, entry["_BUCKET"], name)
                    if name.endswith(".avro"):  # the sync marker is random: compare the records
                        with open(path, "rb") as handle:
                            reader = fastavro.reader(handle)
                            data = (reader.writer_schema, list(reader))
                    else:
                        with open(path, "rb") as handle:
                            data = handle.read()
                    yield f"snapshot-{sid} data file ({name})", data


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    left, right = content(sys.argv[1]), content(sys.argv[2])
    compared = 0
    while True:
        a, b = next(left, None), next(right, None)
        if a is None and b is None:
            print(f"equal: {compared} items (schemas, snapshots, manifest lists, manifests, data files)")
            return 0
        if a is None or b is None or a[1] != b[1]:
            what = (a or b)[0]
            detail = ""
            if a is not None and b is not None and isinstance(a[1], dict):
                keys = sorted(k for k in set(a[1]) | set(b[1]) if a[1].get(k) != b[1].get(k))
                detail = f" (fields {', '.join(keys)})"
            print(f"differ at {what}{detail}: {sys.argv[1]} vs {sys.argv[2]}")
            return 1
        compared += 1


if __name__ == "__main__":
    sys.exit(main())
