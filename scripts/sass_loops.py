#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Finds a kernel's inner loop in `cuobjdump -sass` output and counts its instructions.

Usage: scripts/sass_loops.py SASS LINES KERNEL ANCHOR [--not FILE:REGEX] [--off FILE:REGEX]...
                             [--units N | --units [@]OPCODE[,OPCODE]/K]
       scripts/sass_loops.py --probe SASS

SASS: the output of `cuobjdump -sass` for one cubin; LINES: `nvdisasm -gi -c` of the same cubin
(only its source-line comments are read, to know which loop is which); KERNEL: a regex on the
mangled function name; ANCHOR: FILE:REGEX, a source line (found by the regex in that file) that
the loop must hold; --not: a line it must not hold (another instantiation of the same loop).

Loops are read from the code, not guessed: a branch to an earlier address closes a loop whose
body is [target, branch]. Of the loops that hold an instruction of the anchor line (at any
inlining depth), the innermost ones are printed, one line each:

  FUNCTION START END BODY PATH UNITS | CLASS=N ... | OPCODE=N ...

BODY: every instruction between the loop's head and its backward branch. PATH: BODY less the
instructions of the --off lines (and what is inlined from them): the branches a trip normally
skips (a reload, a rare refactorization, another level's code), so PATH is what a usual trip
issues. UNITS: --units N, or the count of OPCODE on the path divided by K (the compiler's unroll
factor read from the code, e.g. one POPC per SGM cell). The mix is of the path.

ANCHOR "barrier" counts straight-line code instead: from the instruction after the function's
first BAR to its end (the tail's self-branch and NOP padding left out), for kernels whose
per-pixel work is one pass after a shared-memory stage.

--probe reads scripts/sass_probe.cu's kernels: the instructions each adds to its `copy` kernel
(what the operation costs), counted and listed. Exit status 1 when nothing matched.
"""
import argparse
import re
import sys

# SASS opcodes by what they spend: the classes the table's mix is given in.
CLASSES = [
    ("simd", r"^(VIMNMX3?|VIADDMNMX|VIADD|VMNMX|VADD|VSUB|VABSDIFF4?|VSET|VSHL|VSHR|VMAD|IDP|"
             r"HMNMX2|HADD2|HFMA2|HMUL2|HSETP2|PRMT)$"),
    ("shfl", r"^(SHFL|REDUX|VOTE|VOTEU|MATCH|WARPSYNC|BAR|CREDUX)$"),
    ("mem", r"^(LDG|LDS|LDL|LD|LDC|ULDC|LDSM|STG|STS|STL|ST|ATOM|ATOMS|ATOMG|RED|TEX|TLD)$"),
    ("fp", r"^(FADD|FMUL|FFMA|FSETP|FSET|FMNMX|FSEL|MUFU|F2I|I2F|I2FP|F2F|FCHK|FRND|DADD|DMUL|"
           r"DFMA|DSETP|F2FP|FMUL32I|FADD32I|FFMA32I)$"),
    ("ctrl", r"^(BRA|BRX|JMP|CALL|RET|EXIT|BSSY|BSYNC|SSY|SYNC|PBK|BRK|BREAK|CONT|PCNT|BMOV|NOP|"
             r"YIELD|KILL|PLOP3|PSETP|DEPBAR)$"),
    ("move", r"^(MOV|MOV32I|UMOV|S2R|S2UR|CS2R|R2UR|P2R|R2P|SEL|USEL)$"),
    ("int", r".*"),  # ALU: IADD3, IMAD, LOP3, SHF, ISETP, IMNMX, POPC, XMAD, BFE, ...
]

INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s*(.*)$")
FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
LINE = re.compile(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
BRANCHES = ("BRA", "BRX", "JMP", "SSY", "PBK", "PCNT", "BSSY", "CALL")


def opcode(text):
    """Mnemonic with its modifiers (no predicate, no dual-issue braces), or None."""
    t = text.replace("{", " ").replace("}", " ").strip()
    t = re.sub(r"^@!?U?P[T0-9]+\s+", "", t)
    if not t or t.startswith(";"):
        return None
    return t.split()[0].rstrip(";")


def read_sass(path):
    """{function: [(address, mnemonic, branch target or None)]} from cuobjdump -sass."""
    funcs, cur = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.match(line)
        if not m or cur is None:
            continue
        op = opcode(m.group(2))
        if op is None:  # the encoding's second line
            continue
        target = None
        if op.split(".")[0] in BRANCHES:
            hexes = re.findall(r"0x([0-9a-f]+)", m.group(2).split(";")[0])
            if hexes:
                target = int(hexes[-1], 16)
        cur.append((int(m.group(1), 16), op, target))
    return funcs


def read_lines(path):
    """{function: {address: set of (file, line)}} from nvdisasm -gi: every location of the
    comment block before an instruction, inlined-at sites included."""
    funcs, cur, where, fresh = {}, None, set(), False
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^\.text\.(\S+):", line)
        if m:
            cur, where = funcs.setdefault(m.group(1), {}), set()
            continue
        m = LINE.search(line)
        if m:
            if not fresh:
                where, fresh = set(), True
            where.add((m.group(1), int(m.group(2))))
            if m.group(3):
                where.add((m.group(3), int(m.group(4))))
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = set(where)
            fresh = False
    return funcs


def source_lines(spec):
    """(file, {line numbers}) of FILE:REGEX, the regex searched in the source file."""
    path, _, rx = spec.partition(":")
    found = {i + 1 for i, t in enumerate(open(path, encoding="utf-8")) if re.search(rx, t)}
    if not found:
        sys.exit(f"sass_loops: {spec}: no such line")
    return path, found


def at_line(locs, addr, spec):
    path, lines = spec
    return any(f.endswith("/" + path) and n in lines for f, n in locs.get(addr, ()))


def classify(op):
    base = op.split(".")[0]
    for name, rx in CLASSES:
        if re.match(rx, base):
            return name
    return "int"


def report(fn, code, locs, start, end, off, units, anchor):
    """One line for the instructions in [start, end] (see the module's text)."""
    body = [(a, op) for a, op, _ in code if start <= a <= end]
    on = [(a, op) for a, op in body if not any(at_line(locs, a, s) for s in off)]
    path = [op for _, op in on]
    mix, by_op = {}, {}
    for op in path:
        c = classify(op)
        mix[c] = mix.get(c, 0) + 1
        key = op if c == "simd" else op.split(".")[0]
        by_op[key] = by_op.get(key, 0) + 1
    if "/" in units:
        name, k = units.lstrip("@").split("/")
        n = sum(1 for a, op in on if op.split(".")[0] in name.split(",") and
                (not units.startswith("@") or (anchor and at_line(locs, a, anchor)))) / float(k)
    else:
        n = float(units)
    cls = " ".join(f"{k}={mix[k]}" for k, _ in CLASSES if k in mix)
    top = " ".join(f"{k}={v}" for k, v in sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0])))
    print(f"{fn} {start:#06x} {end:#06x} {len(body)} {len(path)} {n:g} | {cls} | {top}")


def probe(path):
    funcs = read_sass(path)
    base = next((c for f, c in funcs.items() if "probe_copy" in f), None)
    if base is None:
        sys.exit("sass_loops: no probe_copy kernel")
    common = {}
    for _, op, _ in base:
        if op != "NOP" and not op.startswith("DEPBAR"):
            common[op] = common.get(op, 0) + 1
    for fn, code in sorted(funcs.items()):
        m = re.search(r"probe_(\w+?)P", fn)
        if not m or m.group(1) == "copy":
            continue
        extra, left = [], dict(common)
        for _, op, _ in code:
            if op == "NOP" or op.startswith("DEPBAR"):  # padding; Pascal's wait on the loads
                continue
            if left.get(op, 0) > 0:
                left[op] -= 1
            else:
                extra.append(op)
        # Instructions of copy's that this kernel lacks were merged into the operation's own.
        net = len(extra) - sum(left.values())
        print(f"{m.group(1)} {net} {' '.join(extra)}")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--probe":
        return probe(sys.argv[2])
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("sass")
    ap.add_argument("lines")
    ap.add_argument("kernel")
    ap.add_argument("anchor")
    ap.add_argument("--not", dest="exclude")
    ap.add_argument("--off", action="append", default=[])
    ap.add_argument("--units", default="1")
    a = ap.parse_args()
    sass, lines = read_sass(a.sass), read_lines(a.lines)
    kernel = re.compile(a.kernel)
    anchor = None if a.anchor == "barrier" else source_lines(a.anchor)
    exclude = source_lines(a.exclude) if a.exclude else None
    off = [source_lines(s) for s in a.off]
    printed = 0
    for fn, code in sass.items():
        if not kernel.search(fn):
            continue
        locs = lines.get(fn, {})
        if anchor is None:
            bars = [i for i, (_, op, _) in enumerate(code) if op.startswith("BAR")]
            tail = [addr for addr, op, t in code if op != "NOP" and t != addr]
            if bars and bars[0] + 1 < len(code) and tail:
                report(fn, code, locs, code[bars[0] + 1][0], tail[-1], off, a.units, None)
                printed += 1
            continue
        loops = []
        for addr, _, target in code:
            if target is None or target >= addr:
                continue
            body = [x for x, _, _ in code if target <= x <= addr]
            if not any(at_line(locs, x, anchor) for x in body):
                continue
            if exclude and any(at_line(locs, x, exclude) for x in body):
                continue
            loops.append((target, addr))
        # Innermost: no other anchor loop lies inside it.
        inner = {l for l in loops
                 if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)}
        for start, end in sorted(inner):
            report(fn, code, locs, start, end, off, a.units, anchor)
            printed += 1
    return 0 if printed else 1


if __name__ == "__main__":
    sys.exit(main())
