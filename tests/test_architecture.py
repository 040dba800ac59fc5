"""The dependency directions of DESIGN.md, as import-linter contracts (.importlinter)."""
import shutil
import subprocess
import sys
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
