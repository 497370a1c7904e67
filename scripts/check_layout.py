#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the layering of docs/ARCHITECTURE.md on the source tree and on a build of it.

Usage: scripts/check_layout.py [BUILD_DIR]

Includes (always): core includes only core; kernels (src/*/kernels, src/*/cpu, cuda/) include
only core, kernel headers and their own folder; stages include no frontend or io header;
the frontend no io header.
Calls (with BUILD_DIR: the library's object files, read with nm): every call points to the same
layer or below, and no files call each other round a loop. Exit status 1 on any violation.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGE_GROUPS = ("geometry", "features", "stereo")
LAYER_NAMES = ["core", "kernels", "stages", "frontend", "io"]


def layer_of(path):
    """Layer index of a source path relative to the repository root, None outside the library."""
    parts = path.split("/")
    if parts[0] == "cuda":
        return 0 if parts[1] == "core" else 1
    if parts[0] != "src" or len(parts) < 3:
        return None
    group = parts[1]
    if group == "core":
        return 0
    if group in STAGE_GROUPS:
        return 1 if parts[2] in ("kernels", "cpu") else 2
    if group == "frontend":
        return 3
    if group == "io":
        return 4
    return None


def sources():
    out = []
    for top in ("src", "cuda"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                if re.search(r"\.(c|h|cu|cuh)$", n):
                    out.append(os.path.relpath(os.path.join(dirpath, n), ROOT))
    return sorted(out)


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_target(src, name):
    """Repository path of a quoted include: src/-rooted, or the including file's own folder."""
    if name.startswith("viofront/"):
        return None
    local = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if "/" not in name and os.path.exists(os.path.join(ROOT, local)):
        return local
    return "src/" + name


def check_includes(errors):
    edges = 0
    for src in sources():
        layer = layer_of(src)
        text = open(os.path.join(ROOT, src), encoding="utf-8").read()
        for name in INCLUDE.findall(text):
            target = include_target(src, name)
            if target is None:
                continue
            edges += 1
            if not os.path.exists(os.path.join(ROOT, target)):
                errors.append(f"{src}: includes {name}, which is not src/{name}")
                continue
            tl = layer_of(target)
            same_folder = os.path.dirname(target) == os.path.dirname(src)
            if layer == 1 and tl == 1 and not (target.split("/")[2] == "kernels" or same_folder):
                errors.append(f"{src}: a kernel includes {target}, another kernel folder's file")
            elif tl is not None and layer is not None and tl > layer:
                errors.append(
                    f"{src} ({LAYER_NAMES[layer]}) includes {target} ({LAYER_NAMES[tl]}), a layer above"
                )
    return edges


def object_sources(build):
    objdir = os.path.join(build, "CMakeFiles", "viofront.dir")
    found = {}
    for dirpath, _, names in os.walk(objdir):
        for n in names:
            if n.endswith(".o"):
                obj = os.path.join(dirpath, n)
                rel = os.path.relpath(obj, objdir)[: -len(".o")]
                if layer_of(rel) is not None and os.path.exists(os.path.join(ROOT, rel)):
                    found[rel] = obj
    return found


def check_calls(build, errors):
    objs = object_sources(build)
    if not objs:
        errors.append(f"{build}: no object files of the library under CMakeFiles/viofront.dir")
        return 0, 0
    defined, used = {}, {}
    for src, obj in objs.items():
        out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True).stdout
        used[src] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            if f[1] in "TDBRC" and not f[0].startswith("."):
                defined.setdefault(f[0], src)
            elif f[1] == "U":
                used[src].add(f[0])
    graph = {s: set() for s in objs}
    for src, names in used.items():
        for name in names:
            owner = defined.get(name)
            if owner and owner != src:
                graph[src].add(owner)
                if layer_of(owner) > layer_of(src):
                    errors.append(
                        f"{src} ({LAYER_NAMES[layer_of(src)]}) calls {name} of {owner} "
                        f"({LAYER_NAMES[layer_of(owner)]}), a layer above"
                    )
    cycles = strongly_connected(graph)
    for comp in cycles:
        errors.append("files that call each other round a loop: " + ", ".join(sorted(comp)))
    return len(objs), sum(len(v) for v in graph.values())


def strongly_connected(graph):
    """Tarjan's algorithm; components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    errors = []
    edges = check_includes(errors)
    msg = f"layout: {len(sources())} files, {edges} includes"
    if len(sys.argv) > 1:
        files, calls = check_calls(sys.argv[1], errors)
        msg += f", {files} objects with {calls} call edges"
    for e in errors:
        print("layout:", e)
    print(msg + (f": {len(errors)} violations" if errors else ": dependencies point down, no loops"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
