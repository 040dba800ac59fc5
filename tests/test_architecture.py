"""The dependency directions of DESIGN.md, as import-linter contracts (.importlinter), and kinds
kept in their own modules."""

import ast
import configparser
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lint_imports_command() -> list[str]:
    beside_python = Path(sys.executable).with_name("lint-imports")
    if beside_python.exists():
        return [str(beside_python)]
    found = shutil.which("lint-imports")
    assert found, "lint-imports is not installed (pip install -r requirements-dev.txt)"
    return [found]


def test_import_contracts_are_kept():
    result = subprocess.run(
        [*lint_imports_command(), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"import-linter found broken contracts:\n{report}"
    assert "0 broken" in report


# --- kinds stay in their modules -------------------------------------------------------------
#: where code lives (Python modules and templates); tests, migrations, fixtures, locale and docs
#: may name a kind
CHECKED = ("annotation", "quality", "surveys", "config", "templates")
#: the demo set-up picks concrete kinds, sample files and channels on purpose: it is content (like
#: the fixtures it loads), not a layer other code goes through
DEMO = {"annotation/services/demo.py", "annotation/management/commands/load_demo.py"}
#: the registry's explicit import list (DESIGN.md, Registries)
KIND_IMPORTS = "annotation/kinds/__init__.py"


def kind_slugs() -> list[str]:
    from annotation.kinds import all_kinds

    return [kind.slug for kind in all_kinds()]


def kind_owns(path: str, slug: str) -> bool:
    """The kind's own module or package, its quality/stats module, its templates."""
    parts = Path(path).parts
    return path.startswith(
        (f"annotation/kinds/{slug}/", f"annotation/kinds/{slug}.py", f"quality/stats/{slug}.py")
    ) or (parts[0] == "templates" and slug in parts[:-1])


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the module's, classes' and functions' docstring nodes."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
    return found


def python_words(source: str, *, citations_allowed: bool) -> Iterator[tuple[int, str]]:
    """(line, word) of every identifier and string literal; docstrings left out where a module may
    cite the paper it implements (quality/stats: pure, it imports nothing that could dispatch)."""
    tree = ast.parse(source)
    skipped = docstrings(tree) if citations_allowed else set()
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.arg) or isinstance(node, ast.keyword) and node.arg:
            yield line, node.arg
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module
        elif isinstance(node, ast.alias):
            yield line, f"{node.name} {node.asname or ''}"


def test_no_module_outside_a_kind_names_the_kind():
    """Issue 15 item 5: nothing outside annotation/kinds/<kind>/, the kind's templates and its
    quality/stats module names a kind, in code or strings (comments are free); what varies by kind
    goes through the TaskKind interface."""
    slugs = kind_slugs()
    assert {"recam", "cosimlex", "gcrc", "scde"} <= set(slugs)
    found = []
    for top in CHECKED:
        for file in sorted((ROOT / top).rglob("*")):
            path = file.relative_to(ROOT).as_posix()
            if not file.is_file() or "/migrations/" in path or path in DEMO or path == KIND_IMPORTS:
                continue
            if file.suffix == ".py":
                words = python_words(
                    file.read_text(encoding="utf-8"), citations_allowed=path.startswith("quality/stats/")
                )
            elif top == "templates":
                words = enumerate(file.read_text(encoding="utf-8").splitlines(), start=1)
            else:
                continue
            for line, word in words:
                named = [slug for slug in slugs if slug in word.lower() and not kind_owns(path, slug)]
                if named:
                    found.append(f"{path}:{line}: {', '.join(named)} in {word[:80]!r}")
    assert not found, "modules outside a kind name it:\n" + "\n".join(dict.fromkeys(found))


def test_the_kind_name_check_sees_code_and_strings_but_not_comments_or_cited_docstrings():
    source = '"""Module docstring on CoSimLex."""\nfrom x import scde_stats  # gcrc\nif kind == "recam": pass\n'
    seen = " ".join(word for _, word in python_words(source, citations_allowed=False)).lower()
    assert all(slug in seen for slug in ("cosimlex", "scde", "recam")) and "gcrc" not in seen
    cited = " ".join(word for _, word in python_words(source, citations_allowed=True)).lower()
    assert "cosimlex" not in cited and "recam" in cited
    assert kind_owns("templates/jinja2/surveys/gcrc/option.html", "gcrc")
    assert not kind_owns("templates/jinja2/surveys/base.html", "gcrc")


# --- kinds from a task file are kinds like the others ------------------------------------------
#: the surfaces that take a task file in (create a project from one, replace it, show it): their
#: subject is the file itself. Everything a project's kind is used by (pages, the save path,
#: channels, quality, agreement, adjudication, reports, exports, the API's other endpoints) is checked
TASK_FILE_INPUT = {
    "annotation/admin/projects.py",
    "annotation/admin/task_files.py",
    "annotation/api/projects.py",
    "annotation/management/commands/create_project.py",
}
#: the names that tell a kind made from a file from a built-in one; only annotation/kinds/ has them
FILE_KIND_NAMES = {"TASK_FILE_KIND", "TaskFileKind", "task_file_kind", "make_kind", "TaskFromFile", "taskfile"}


def file_kind_branches(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) where code names the file kind, or decides (if, while, a conditional
    expression, an assert, a comprehension's condition) on a project's task file or the file
    kind's slug."""
    tree = ast.parse(source)
    tests: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in FILE_KIND_NAMES:
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute) and node.attr in FILE_KIND_NAMES:
            yield node.lineno, node.attr
        elif isinstance(node, ast.ImportFrom) and any(
            part in FILE_KIND_NAMES for part in (node.module or "").split(".")
        ):
            yield node.lineno, node.module or ""
        elif isinstance(node, ast.alias) and node.name in FILE_KIND_NAMES:
            yield getattr(node, "lineno", 0), node.name
        elif isinstance(node, ast.If | ast.IfExp | ast.While | ast.Assert):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
        elif isinstance(node, ast.Compare):
            tests.append(node)
    decisions = set()
    for test in tests:
        for sub in ast.walk(test):
            if isinstance(sub, ast.Attribute) and sub.attr == "task_file":
                decisions.add((sub.lineno, "a decision on .task_file"))
            elif isinstance(sub, ast.Constant) and sub.value == "task_file" and isinstance(test, ast.Compare):
                decisions.add((sub.lineno, "a comparison with the file kind's slug"))
    yield from sorted(decisions)


def test_nothing_outside_the_kinds_branches_on_a_kind_from_a_file():
    """Issue 26: a kind described by a file is used wherever a kind is used; only annotation/kinds/
    knows it came from a file (DESIGN.md, Tasks from a file)."""
    found = []
    for top in CHECKED:
        for file in sorted((ROOT / top).rglob("*.py")):
            path = file.relative_to(ROOT).as_posix()
            if path.startswith("annotation/kinds/") or "/migrations/" in path or path in TASK_FILE_INPUT:
                continue
            for line, what in file_kind_branches(file.read_text(encoding="utf-8")):
                found.append(f"{path}:{line}: {what}")
        for file in sorted((ROOT / top).rglob("*.html")):
            for number, text in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
                if "task_file" in text and ("{% if" in text or "{% elif" in text):
                    found.append(f"{file.relative_to(ROOT).as_posix()}:{number}: a template decision on task_file")
    assert not found, "code outside annotation/kinds/ branches on a kind from a file:\n" + "\n".join(found)


def test_the_file_kind_check_sees_names_and_decisions():
    source = (
        "from annotation.kinds import TASK_FILE_KIND\n"
        "if project.task_file:\n    pass\n"
        "x = 1 if project.kind == 'task_file' else 2\n"
        "y = project.task_file\n"
    )
    found = [what for _, what in file_kind_branches(source)]
    assert found.count("TASK_FILE_KIND") == 1
    assert "a decision on .task_file" in found and "a comparison with the file kind's slug" in found
    assert len(found) == 3  # reading the field (the last line) decides nothing


# --- module sizes and where reads live -----------------------------------------------------------
#: the house style's limit for any application module (DESIGN.md: under ~300 lines, never over 400)
MAX_LINES = 400
#: folders whose modules are not application code: tests, migrations (generated), hidden folders
#: (the virtualenv, .git), caches
NOT_APPLICATION = {"tests", "migrations", "__pycache__", "node_modules", "site-packages"}


def application_modules() -> list[Path]:
    return [
        file
        for file in sorted(ROOT.rglob("*.py"))
        if not any(part in NOT_APPLICATION or part.startswith(".") for part in file.relative_to(ROOT).parts[:-1])
    ]


def test_no_application_module_is_over_400_lines():
    """Issue 39: a module that grows past the limit is split into well-named smaller ones."""
    modules = application_modules()
    paths = {file.relative_to(ROOT).as_posix() for file in modules}
    assert {"manage.py", "annotation/channels/mturk.py", "bench/bench_annotate.py"} <= paths
    assert not any(path.startswith(("tests/", ".")) or "/migrations/" in path for path in paths)
    over = [
        f"{file.relative_to(ROOT).as_posix()}: {lines} lines"
        for file in modules
        if (lines := len(file.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert not over, f"modules over {MAX_LINES} lines (split them):\n" + "\n".join(over)


def test_reads_live_in_the_selectors_package():
    """Issue 39: annotation's read queries are modules of `annotation/selectors/`, beside the
    `services/` package they mirror, not `*_selectors.py` files at annotation's root."""
    assert (ROOT / "annotation" / "selectors" / "__init__.py").is_file()
    stray = sorted(p.name for p in (ROOT / "annotation").glob("*.py") if p.stem.endswith("selectors"))
    assert not stray, f"read modules at annotation's root (move them into annotation/selectors/): {stray}"


def test_the_layers_contract_names_every_selectors_module():
    """The layers contract places each module of annotation/selectors/ (some read through a
    channel, the others sit below the channels); a new module must be placed there too."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    layers = config["importlinter:contract:annotation-layers"]["layers"]
    named = {name.strip() for line in layers.splitlines() for name in line.replace(":", "|").split("|")}
    modules = {f"selectors.{p.stem}" for p in (ROOT / "annotation" / "selectors").glob("*.py") if p.stem != "__init__"}
    assert modules and modules <= named, f"not placed in .importlinter's layers: {sorted(modules - named)}"
