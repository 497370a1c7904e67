#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Doxygen input filter for our headers: a struct field line that declares several names,
`float x, y; /**< position */`, becomes one declaration per name on the same line, each with the
field's comment, because Doxygen attaches a trailing comment to the last name only. A comment
that continues on the next lines is joined onto the first line and those lines are left empty,
so line numbers in Doxygen's messages stay those of the header. Usage: split_fields.py HEADER
"""
import re
import sys

# Indented `type a, b[N], *c;` with no parentheses (those are parameter lists), then an optional
# trailing comment.
FIELDS = re.compile(r"^(\s+)((?:[A-Za-z_]\w*\s+)+\**)\s*([^;(){}]*,[^;(){}]*);\s*(/\*\*<.*)?$")
NAME = re.compile(r"^\**\s*[A-Za-z_]\w*(\s*\[[^\]]*\])*$")


def split(lines):
    out = list(lines)
    i = 0
    while i < len(lines):
        m = FIELDS.match(lines[i])
        names = [n.strip() for n in m.group(3).split(",")] if m else []
        if not m or not all(NAME.match(n) for n in names):
            i += 1
            continue
        indent, type_, comment = m.group(1), m.group(2).strip(), m.group(4) or ""
        end = i
        if comment and "*/" not in comment:
            while end + 1 < len(lines) and "*/" not in lines[end]:
                end += 1
                comment += " " + lines[end].strip()
        text = comment[len("/**<"):].rsplit("*/", 1)[0].strip() if comment else ""
        doc = f" /**< {text} */" if text else ""
        out[i] = indent + " ".join(f"{type_} {n};{doc}" for n in names)
        for k in range(i + 1, end + 1):
            out[k] = ""
        i = end + 1
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(split(lines)))


if __name__ == "__main__":
    main()
