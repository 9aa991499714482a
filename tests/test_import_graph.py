"""The package's import graph (grimp, which import-linter ships): no import circles.

``lint-imports`` checks the layers between packages (pyproject.toml); this checks every module
against every other, inside a layer too (``cli/commands/rate.py`` and ``rate_games.py`` imported
each other before issue 27). Imports under ``if TYPE_CHECKING:`` do not run and do not count;
imports inside functions do.
"""

from __future__ import annotations

import grimp


def _strongly_connected(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """Groups of modules that import each other, directly or not (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(frozenset(group))
    return groups


def test_import_graph__no_circles() -> None:
    graph = grimp.build_graph("rllib_curling", exclude_type_checking_imports=True)
    cycles = _strongly_connected(graph)
    assert not cycles, f"import circles: {sorted(map(sorted, cycles))}"


def test_strongly_connected__finds_a_circle_through_three_modules() -> None:
    graph = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")]:
        graph.add_import(importer=a, imported=b)
    assert _strongly_connected(graph) == [frozenset({"p.a", "p.b", "p.c"})]
