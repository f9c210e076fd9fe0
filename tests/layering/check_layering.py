#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer above its own (docs/architecture.md).

freshet's code is layered like the data path; each layer may include its own headers and those
of the layers below it, never those above. The order is written once, here, and docs/
architecture.md explains it. Usage: check_layering.py SOURCE_ROOT
"""
import os
import re
import sys

# Lowest first. Each entry: layer name, then the path prefixes (relative to the source root) that
# belong to it. The longest matching prefix decides a file's layer.
LAYERS = [
    ("common", ["src/common/", "include/freshet/status.h", "include/freshet/result.h",
                "include/freshet/arrow_c.h", "include/freshet/version.h", "include/freshet/export.h",
                "include/freshet/options.h", "include/freshet/row_kind.h"]),
    ("io", ["src/io/"]),
    ("container", ["src/container/"]),
    ("meta", ["src/meta/"]),
    ("bridge", ["src/bridge/"]),
    ("format", ["src/format/"]),
    ("mergetree", ["src/mergetree/"]),
    ("catalog", ["src/catalog/"]),
    ("scan", ["src/scan/"]),
    ("write", ["src/write/"]),
    ("commit", ["src/commit/"]),
    ("read", ["src/read/"]),
    ("compact", ["src/compact/"]),
    ("realtime", ["src/realtime/", "include/freshet/realtime/"]),
    ("table", ["src/table/", "src/freshet_version.cc", "include/freshet/"]),
    ("textrows", ["tools/textrows/"]),
    ("tools", ["tools/"]),
]
# Layers that sit side by side: neither may include the other.
SIDE_BY_SIDE = [{"catalog", "scan", "write", "commit"}]
# Code on the public boundary: these files may include only the public headers (include/freshet/),
# the text rows library and their own directory's headers, never src/ (docs/architecture.md,
# "Public boundary"). The CLI is built on the API a downstream user has.
PUBLIC_API_ONLY = {"tools/cli/": ("include/freshet/", "tools/textrows/", "tools/cli/",
                                  # header-only Arrow glue: Arrow errors as freshet Status
                                  "src/common/arrow_status.h"),
                   "tools/freshet_main.cc": ("include/freshet/", "tools/cli/")}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def layer_of(relative):
    best = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if relative.startswith(prefix) and (best is None or len(prefix) > best[2]):
                best = (rank, name, len(prefix))
    return best


def header_path(root, include):
    """The repository path of an included header ("meta/row/value.h" -> src/meta/row/value.h)."""
    for base in ("src", "include", "tools"):
        candidate = os.path.join(base, include)
        if os.path.exists(os.path.join(root, candidate)):
            return candidate
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../..")
    problems = []
    files = 0
    for top in ("src", "include", "tools"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(directory, name), root)
                own = layer_of(path)
                if own is None:
                    problems.append(f"{path}: belongs to no layer (add it to LAYERS)")
                    continue
                files += 1
                with open(os.path.join(root, path), encoding="utf-8") as handle:
                    text = handle.read()
                for include in INCLUDE.findall(text):
                    target = header_path(root, include)
                    if target is None:
                        continue  # a header of a dependency
                    theirs = layer_of(target)
                    if theirs is None:
                        problems.append(f"{path}: includes {include}, which belongs to no layer")
                    elif theirs[0] > own[0]:
                        problems.append(f"{path} ({own[1]}) includes {include} ({theirs[1]}), "
                                        "a layer above it")
                    elif theirs[1] != own[1] and any(
                            {own[1], theirs[1]} <= group for group in SIDE_BY_SIDE):
                        problems.append(f"{path} ({own[1]}) includes {include} ({theirs[1]}), "
                                        "a layer beside it")
                    for prefix, allowed in PUBLIC_API_ONLY.items():
                        if path.startswith(prefix) and not target.startswith(allowed):
                            problems.append(f"{path} includes {include}, which is not public API "
                                            f"(allowed: {', '.join(allowed)})")
    for problem in problems:
        print(problem)
    print(f"{files} files checked, {len(problems)} layering problems "
          f"(order: {' < '.join(name for name, _ in LAYERS)})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
