#!/usr/bin/python3
"""Holds every #include of the tree to the floor plan in scripts/layers.toml.

Static libraries do not fail on an include that points up a floor when the header is enough to
compile, so this check does: each C++ file belongs to one room, and may include headers of its
own room and of the rooms below it (those its room `uses`, and theirs, down to the ground). It
fails (exit 1) on:
  - a file in no room, or an include of a project file that does not exist;
  - an include of a room above the includer, or of a room its room does not declare;
  - an include cycle between rooms (from the includes as written, whatever the table says), or
    between files;
  - a cycle in the table itself;
  - a room's CMake library whose target_link_libraries do not name exactly the libraries of the
    rooms it uses.
Standard library only (Debian's /usr/bin/python3). Usage:
  scripts/check_layers.py [--root DIR] [--table FILE] [--plan]
--plan prints the floor plan (rooms, what each uses, its library, how many files) and checks too.
"""
import argparse
import fnmatch
import os
import re
import sys
import tomllib

SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".h.in", ".cc.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
LINK = re.compile(r"target_link_libraries\s*\(\s*([A-Za-z0-9_.+-]+)([^)]*)\)", re.S)
ADD_LIBRARY = re.compile(r"add_library\s*\(\s*([A-Za-z0-9_.+-]+)")


class Room:
    def __init__(self, name, spec):
        self.name = name
        self.about = spec.get("about", "")
        self.paths = list(spec.get("paths", []))
        self.uses = list(spec.get("uses", []))
        self.target = spec.get("target")
        self.files = []


def load_rooms(table_path):
    with open(table_path, "rb") as f:
        table = tomllib.load(f)
    return {name: Room(name, spec) for name, spec in table.get("rooms", {}).items()}


def pattern_matches(pattern, path):
    if pattern.endswith("/"):
        return path.startswith(pattern)
    want = pattern.split("/")
    have = path.split("/")
    return len(want) == len(have) and all(fnmatch.fnmatchcase(h, w) for h, w in zip(have, want))


def source_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        # Build trees, git metadata and dependencies are not the project's sources.
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules"
                             and not (rel_dir == "." and d.startswith("build")))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                out.append(os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/"))
    return out


def room_of(path, rooms):
    """(room name, None) or (None, why)."""
    best = []
    for room in rooms.values():
        for p in room.paths:
            if pattern_matches(p, path):
                best.append((len(p), room.name, p))
    if not best:
        return None, "in no room"
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1] != best[1][1]:
        return None, "claimed by two rooms (%s: %s, %s: %s)" % (best[0][1], best[0][2],
                                                                 best[1][1], best[1][2])
    return best[0][1], None


def cycles(graph):
    """Strongly connected components with more than one node, or a node with a self-edge
    (Tarjan, iterative), each as a sorted list."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1 or node in graph.get(node, ()):
                    out.append(sorted(comp))
    return out


def shortest_path(graph, start, goal, within):
    """Nodes from start to goal (both included) along graph edges inside `within` (BFS)."""
    prev, frontier = {start: None}, [start]
    while frontier and goal not in prev:
        nxt = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child in within and child not in prev:
                    prev[child] = node
                    nxt.append(child)
        frontier = nxt
    path, node = [], goal
    while node is not None:
        path.append(node)
        node = prev.get(node)
    return path[::-1]


def closure(rooms, name, seen=None):
    seen = set() if seen is None else seen
    for used in rooms[name].uses:
        if used in rooms and used not in seen:
            seen.add(used)
            closure(rooms, used, seen)
    return seen


def cmake_links(root):
    """{target: set of linked names}, set of defined library targets, from every CMake file."""
    links, defined = {}, set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not d.startswith(".")
                       and not (rel_dir == "." and d.startswith("build"))]
        for name in filenames:
            if name != "CMakeLists.txt" and not name.endswith(".cmake"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = re.sub(r"#[^\n]*", "", f.read())
            defined.update(ADD_LIBRARY.findall(text))
            for target, args in LINK.findall(text):
                links.setdefault(target, set()).update(args.split())
    return links, defined


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--table", default=None, help="default: ROOT/scripts/layers.toml")
    ap.add_argument("--plan", action="store_true", help="print the floor plan")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    rooms = load_rooms(args.table or os.path.join(root, "scripts", "layers.toml"))
    problems = []

    # The table: known rooms only, no cycle.
    for room in rooms.values():
        for used in room.uses:
            if used not in rooms:
                problems.append("table: room %s uses %s, which is not a room" % (room.name, used))
    for comp in cycles({r.name: set(u for u in r.uses if u in rooms) for r in rooms.values()}):
        problems.append("table: the rooms %s use each other (a cycle)" % " <-> ".join(comp))
    allowed = {name: closure(rooms, name) for name in rooms}

    # Every source file in one room.
    files = source_files(root)
    where = {}
    for path in files:
        name, why = room_of(path, rooms)
        if name is None:
            problems.append("%s: %s (add it to scripts/layers.toml)" % (path, why))
        else:
            where[path] = name
            rooms[name].files.append(path)

    # Every project include within the floor plan.
    top_dirs = {p.split("/")[0] for p in files if "/" in p}
    file_graph, room_graph, witness = {}, {}, {}
    n_includes = 0
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            target = None
            for candidate in (inc, os.path.normpath(os.path.join(os.path.dirname(path), inc))):
                if os.path.isfile(os.path.join(root, candidate)):
                    target = candidate.replace(os.sep, "/")
                    break
            if target is None:
                if inc.split("/")[0] in top_dirs:
                    problems.append("%s:%d: includes %s, which does not exist" % (path, lineno, inc))
                continue  # a system or third-party header
            n_includes += 1
            file_graph.setdefault(path, set()).add(target)
            src, dst = where.get(path), where.get(target)
            if src is None or dst is None or src == dst:
                continue
            room_graph.setdefault(src, set()).add(dst)
            witness.setdefault((src, dst), "%s:%d includes %s" % (path, lineno, target))
            if dst in allowed[src]:
                continue
            if src in allowed[dst]:
                why = "%s is a room above %s" % (dst, src)
            else:
                why = "%s does not use %s (it uses: %s)" % (
                    src, dst, ", ".join(rooms[src].uses) or "nothing")
            problems.append("%s:%d: includes %s: %s" % (path, lineno, target, why))

    for comp in cycles(room_graph):
        members = set(comp)
        # Name each cycle by an include against the table and the way back to it, so the
        # message says which include to move.
        against = sorted((a, b) for (a, b) in witness
                         if a in members and b in members and b not in allowed[a])
        for a, b in against or [(comp[0], sorted(room_graph[comp[0]] & members)[0])]:
            back = shortest_path(room_graph, b, a, members)
            loop = [a] + back
            steps = "; ".join(witness[(x, y)] for x, y in zip(loop, loop[1:]))
            problems.append("include cycle between rooms: %s (%s)" % (" -> ".join(loop), steps))
    for comp in cycles(file_graph):
        problems.append("include cycle between the files %s" % " <-> ".join(comp))

    # The CMake libraries link what the table says.
    links, defined = cmake_links(root)
    room_of_target = {r.target: r.name for r in rooms.values() if r.target}
    for room in rooms.values():
        if not room.target:
            continue
        if room.target not in defined:
            problems.append("CMake: %s (room %s) is not an add_library() anywhere" %
                            (room.target, room.name))
            continue
        linked = {room_of_target[t] for t in links.get(room.target, ()) if t in room_of_target}
        want = {u for u in room.uses if rooms.get(u) and rooms[u].target}
        if linked != want:
            missing = sorted(rooms[u].target for u in want - linked)
            extra = sorted(rooms[u].target for u in linked - want)
            problems.append("CMake: %s (room %s) links %s; the table says %s%s%s" % (
                room.target, room.name, ", ".join(sorted(rooms[u].target for u in linked))
                or "no room library", ", ".join(sorted(rooms[u].target for u in want)) or "none",
                "; missing " + ", ".join(missing) if missing else "",
                "; not in the table " + ", ".join(extra) if extra else ""))

    if args.plan:
        print("%-11s %-21s %5s  %s" % ("room", "library", "files", "uses"))
        for room in rooms.values():
            print("%-11s %-21s %5d  %s" % (room.name, room.target or "-", len(room.files),
                                           ", ".join(room.uses) or "-"))
        print()
    if problems:
        print("layering: %d problem(s) in %d files (%d project includes checked):" %
              (len(problems), len(files), n_includes))
        for p in problems:
            print("  " + p)
        return 1
    print("layering: ok (%d rooms, %d files, %d project includes, no cycle)" %
          (len(rooms), len(files), n_includes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
