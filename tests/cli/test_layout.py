"""The house's own rules for the layout of `pipeline/`, read from the source with `ast`: modules
small enough to read in one sitting, functions short enough to see whole, and imports that follow
the order data moves in, so that a stage never reaches into one that runs after it. And one for
the tests: none asserts only inside a loop or a branch, where empty input would pass it unchecked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pipeline"
TESTS = Path(__file__).resolve().parents[1]

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

STAGE_ORDER: list[set[str]] = [
    # What every stage may use: the records, the errors, the rules, the package's version,
    # running a user's own command within limits, what a heading's text means (`text`), and how
    # a message says a count (`wording`).
    {"records", "errors", "rules", "__init__", "user_command", "text", "wording"},
    {"extract"},
    {"normalize"},
    # A paper's metadata is read from the normalized document (it imports normalize, records and
    # rules) and only the run imports it; it sits right after normalize so that any later stage
    # may use what it defines (the surname key, say).
    {"metadata"},
    {"bibliography"},
    {"chunk"},
    {"link"},
    # A question's words in the papers' language (Korean through the glossary): the search's
    # preparation, which the index's search runs; it imports no stage. What a passage means (the
    # sentence encoder): the index stores its vectors, search and the audit read them; no stage.
    {"crosslingual", "meaning"},
    {"index"},
    # What a record is as exported: the run's change log (`ingest/changes.py`) fingerprints
    # records as an export shows them, for `export --since`.
    {"export"},
    {"ingest"},
    # The ways out of the data, which read the database and the records but feed no stage.
    {"report", "audit"},
    {"cli", "__main__"},
]
"""The stages in the order data moves, each set one rank: a module may import its own rank's
packages and earlier ones, never a later one."""

RANK = {name: rank for rank, names in enumerate(STAGE_ORDER) for name in names}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def _stage(path: Path) -> str:
    """The top-level package (or root module) of `pipeline/` that `path` belongs to."""
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


def _imported_stages(tree: ast.Module) -> set[tuple[str, int]]:
    """Every stage of `pipeline` the module imports, with the line, at the top or inside a function."""
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] == "pipeline":
                stages = [parts[1]] if len(parts) > 1 else [alias.name for alias in node.names]
                imported |= {(stage if stage in RANK else "__init__", node.lineno) for stage in stages}
        elif isinstance(node, ast.Import):
            imported |= {(alias.name.split(".")[1], node.lineno) for alias in node.names if alias.name.startswith("pipeline.")}
    return imported


def test_every_stage_of_the_package_has_a_place_in_the_order():
    stages = {_stage(path) for path in _modules()}
    assert stages and stages - RANK.keys() == set()


def test_no_module_is_longer_than_one_sitting():
    modules = _modules()
    assert modules
    lengths = {_name(path): len(path.read_text(encoding="utf-8").splitlines()) for path in modules}
    assert {name: lines for name, lines in lengths.items() if lines > MAX_MODULE_LINES} == {}


def test_no_function_is_longer_than_a_screen():
    functions = {
        f"{_name(path)}:{node.lineno} {node.name}": node.end_lineno - node.lineno + 1
        for path in _modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert functions
    assert {name: lines for name, lines in functions.items() if lines > MAX_FUNCTION_LINES} == {}


def test_no_stage_imports_one_that_runs_after_it():
    imports = [
        (_name(path), line, _stage(path), imported)
        for path in _modules()
        for imported, line in _imported_stages(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert imports
    backwards = sorted(
        f"{module}:{line} {stage} imports {imported}"
        for module, line, stage, imported in imports
        if RANK.get(imported, -1) > RANK[stage]
    )
    assert backwards == []


def _asserts_only_where_they_may_not_run(test: ast.FunctionDef) -> bool:
    """True where the test asserts, but only in the body of a loop, a branch or an except: a
    test that passes on empty input (no rows, no files, no commands) without checking a thing."""
    guarded, unguarded = [], []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                continue
            child_inside = inside or isinstance(node, ast.ExceptHandler) or (
                isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.If) and (child in node.body or child in node.orelse)
            )
            if isinstance(child, ast.Assert):
                (guarded if child_inside else unguarded).append(child)
            walk(child, child_inside)

    walk(test, False)
    return bool(guarded) and not unguarded


def test_no_test_asserts_only_inside_a_loop_or_a_branch():
    tests = [
        (path, node)
        for path in sorted(TESTS.rglob("test_*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
    ]
    assert tests
    found = [f"{path.relative_to(TESTS)}:{node.lineno} {node.name}" for path, node in tests if _asserts_only_where_they_may_not_run(node)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "only_inside"),
    [
        ("def test():\n    for row in rows:\n        assert row", True),
        ("def test():\n    if rows:\n        assert rows[0]", True),
        ("def test():\n    assert rows\n    for row in rows:\n        assert row", False),
        ("def test():\n    with opened() as rows:\n        assert rows", False),
        ("def test():\n    for row in rows:\n        check(row)", False),
    ],
)
def test_an_assert_inside_a_loop_or_a_branch_alone_is_found(source, only_inside):
    assert _asserts_only_where_they_may_not_run(ast.parse(source).body[0]) is only_inside


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from pipeline.chunk import chunk", {("chunk", 1)}),
        ("import pipeline.index.search", {("index", 1)}),
        ("from pipeline import __version__", {("__init__", 1)}),
        ("def late():\n    from pipeline.ingest.task import process_file", {("ingest", 2)}),
        ("from pydantic import BaseModel\nfrom . import sibling", set()),
    ],
)
def test_imports_are_read_at_the_top_and_inside_functions(source, found):
    assert _imported_stages(ast.parse(source)) == found
