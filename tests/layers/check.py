"""The import graph of a crate's modules, file by file, and its circles (issue 28).

    python3 tests/layers/check.py [CRATE_SRC ...] [--max N] [--show]

For each crate (default: carnet-runtime/src), reads every `.rs` file, takes the paths it
names inside the crate (`crate::a::b`, `super::x`, `self::x`, a child module's name, and
names the crate root re-exports, followed to where they are defined), and draws an arrow
from the file to the file of the module each path reaches. A circle is a set of files that
all reach each other (a strongly connected component). Fails when a circle holds more than N
files (default 2: a module and its child may know each other, nothing larger may).
Unit tests (`#[cfg(test)] mod tests`) are left out: they may use anything.
"""
import os
import re
import sys
from collections import defaultdict


def strip(text):
    """Code without comments, string literals, and the trailing test module."""
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            m = re.match(r"'(\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    # Visibility paths (`pub(in crate::a)`) name no dependency.
    return re.sub(r"pub\(in [^)]*\)", "pub", "".join(out))


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    results = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0 and part.endswith("}"):
                walk(prefix + part[:brace], part[brace + 1:-1])
            else:
                results.append(prefix + part)

    walk("", tree)
    return results


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path (tuple) -> file path
        for dirpath, _, names in os.walk(src):
            for name in names:
                if name.endswith(".rs"):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, src)[:-3].split(os.sep)
                    if rel[-1] in ("mod", "lib", "main"):
                        rel = rel[:-1]
                    self.files[tuple(rel)] = path
        self.code = {m: strip(open(p, encoding="utf-8").read()) for m, p in self.files.items()}
        self.reexports = self.read_reexports(())

    def read_reexports(self, module):
        """Names a module re-exports with `pub use`: name -> the path it names."""
        names = {}
        for stmt in re.findall(r"pub(?:\([^)]*\))?\s+use\s+([^;]+);", self.code.get(module, "")):
            for path in expand_use(stmt):
                leaf = path.split("::")[-1]
                if leaf and leaf != "*":
                    names[leaf] = path
        return names

    def resolve(self, module, path):
        """The module file a path named in `module` lands in, or None when outside the crate."""
        segments = [s for s in path.split("::") if s]
        if not segments:
            return None
        head = segments[0]
        if head == "crate":
            base, rest = (), segments[1:]
        elif head == "super":
            base, rest = module, segments
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif head == "self":
            base, rest = module, segments[1:]
        elif module + (head,) in self.files:
            base, rest = module, segments
        else:
            return None
        target = base
        for seg in rest:
            if target + (seg,) in self.files:
                target = target + (seg,)
            else:
                break
        if target == () and rest:
            # A name the crate root re-exports: followed to where it is defined, or left out
            # when it comes from another crate (the root defines nothing of its own).
            via = self.reexports.get(rest[0])
            if not via or via == path:
                return None
            if not via.startswith(("crate", "self", "super")):
                first = via.split("::")[0]
                if (first,) not in self.files:
                    return None
                via = "crate::" + via
            return self.resolve((), via)
        return target

    def arrows(self):
        graph = defaultdict(set)
        for module, code in self.code.items():
            paths = []
            for stmt in re.findall(r"\buse\s+([^;]+);", code):
                paths.extend(expand_use(stmt))
            paths.extend(re.findall(r"\b((?:crate|super|self)(?:::\w+)+)", code))
            for path in paths:
                target = self.resolve(module, path)
                if target is not None and target != module and target in self.files:
                    # A module's own children are below it, not beside it: `mod x;` and
                    # `pub use x::Y` in a parent are the parent's face, kept as arrows.
                    graph[module].add(target)
        return graph


def circles(graph, nodes):
    """Strongly connected components (Tarjan), largest first."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return sorted((c for c in out if len(c) > 1), key=len, reverse=True)


def main():
    args = sys.argv[1:]
    limit = 2
    show = "--show" in args
    if "--max" in args:
        limit = int(args[args.index("--max") + 1])
    srcs = [a for a in args if not a.startswith("--") and not a.isdigit()] or ["carnet-runtime/src"]
    failed = False
    for src in srcs:
        crate = Crate(src)
        graph = crate.arrows()
        name = lambda m: crate.files[m].replace(src + os.sep, "")
        found = circles(graph, list(crate.files))
        arrows = sum(len(v) for v in graph.values())
        print(f"{src}: {len(crate.files)} files, {arrows} arrows, largest circle {len(found[0]) if found else 0} files")
        for comp in found:
            members = set(comp)
            bad = len(comp) > limit
            failed |= bad
            print(f"  {'TOO LARGE ' if bad else ''}circle of {len(comp)}: {', '.join(sorted(name(m) for m in comp))}")
            if bad or show:
                for m in sorted(comp):
                    for t in sorted(graph[m] & members):
                        print(f"    {name(m)} -> {name(t)}")
    if failed:
        print(f"error: a circle of more than {limit} files: each floor may import only the floors below", file=sys.stderr)
        sys.exit(1)


main()
