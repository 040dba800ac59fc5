"""Plain first: the project's code uses libraries through their public names only. Nothing
imports a private name (`_x`) of another module, subclasses a private class, reaches into a
library module's private attribute, or assigns to a library's attributes (a monkeypatch).

Django's `Model._meta` is public API (documented as the Options API) and is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("annotation", "surveys", "quality", "config")
#: documented public names that begin with an underscore
PUBLIC_UNDERSCORE = {
    "_meta",
    "_default_manager",
    "_base_manager",
    "_state",
    "_asdict",
    "_replace",
    "_fields",
    "_make",
    "_exit",
}
#: the project's own top-level packages (their modules may use their own private names)
OWN = set(PACKAGES) | {"tests", "bench"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PUBLIC_UNDERSCORE


def source_files() -> list[Path]:
    files = []
    for package in PACKAGES:
        files += [p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts]
    return sorted(files + [ROOT / "deploy" / "gunicorn.conf.py", ROOT / "manage.py"])


class Findings(ast.NodeVisitor):
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.foreign_modules: set[str] = set()  # local names bound to other packages' modules

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if _private(alias.name) and node.level == 0:
                self.problems.append(f"line {node.lineno}: imports the private name {node.module}.{alias.name}")
            if node.level == 0 and (node.module or "").split(".")[0] not in OWN:
                self.foreign_modules.add(alias.asname or alias.name)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] not in OWN:
                self.foreign_modules.add((alias.asname or alias.name).split(".")[0])
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.foreign_modules and _private(node.attr):
            self.problems.append(f"line {node.lineno}: reads the private attribute {root.id}...{node.attr}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._check_target(target)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in self.foreign_modules:
                self.problems.append(f"line {node.lineno}: setattr on the library object {first.id}")
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""
            if _private(name):
                self.problems.append(f"line {node.lineno}: class {node.name} subclasses the private class {name}")
        self.generic_visit(node)

    def _check_target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Attribute):
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in self.foreign_modules:
                self.problems.append(f"line {target.lineno}: assigns to the library's {root.id}...{target.attr}")


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_and_no_monkeypatching(path: Path):
    findings = Findings()
    findings.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    assert findings.problems == [], f"{path.relative_to(ROOT)}: " + "; ".join(findings.problems)


def test_the_check_finds_what_it_looks_for():
    bad = (
        "import django.middleware.csrf\nfrom django.middleware.csrf import _mask_cipher_secret\n"
        "from gunicorn.workers import sync\nclass W(sync._Worker): pass\n"
        "django.middleware.csrf.rotate_token = None\nsetattr(sync, 'x', 1)\nsync._private_thing()\n"
    )
    findings = Findings()
    findings.visit(ast.parse(bad))
    found = " ".join(findings.problems)
    for kind in [
        "imports the private name",
        "subclasses the private class",
        "assigns to the library",
        "setattr on the library",
        "reads the private attribute sync..._private_thing",
    ]:
        assert kind in found, (kind, findings.problems)
