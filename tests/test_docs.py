"""The README is the front door (issue 39): short, with the two commands, and a table of the
docs/ pages that hold the references; every relative link of the README and of docs/ leads to a
file, and every #anchor to a heading of it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 250
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def headings(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings (lower case, punctuation but `-` and `_`
    dropped, spaces as `-`; a repeated heading gets `-1`, `-2`...), code blocks left out."""
    seen: dict[str, int] = {}
    anchors = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    text = path.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        name = f"{path.relative_to(root)}: {target}"
        if not linked.exists():
            if file_part.startswith("../shared/"):  # the design plan beside the clone, "where present"
                continue
            found.append(f"{name} (no such file)")
        elif anchor and linked.is_file() and linked.suffix == ".md" and anchor not in headings(linked):
            found.append(f"{name} (no such heading)")
    return found


def test_the_readme_is_short():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move references to docs/ and link them"


def test_the_readme_links_every_docs_page():
    readme = README.read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert {"configuration.md", "recruiting.md", "running-a-study.md", "testing.md"} <= set(pages)
    missing = [name for name in pages if f"](docs/{name})" not in readme]
    assert not missing, f"docs/ pages the README's table does not link: {missing}"


def test_links_of_the_readme_and_docs_lead_somewhere():
    files = [README, *sorted((ROOT / "docs").glob("*.md"))]
    found = [problem for path in files for problem in broken_links(path)]
    assert not found, "broken links:\n" + "\n".join(found)


def test_the_link_check_sees_missing_files_and_headings(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Recruiting on Prolific\n\n```sh\n# not a heading\n```\n", encoding="utf-8")
    page.write_text(
        "[a](other.md#recruiting-on-prolific) [b](other.md#not-a-heading) [c](gone.md) [d](https://x.org/y)\n",
        encoding="utf-8",
    )
    found = broken_links(page, tmp_path)
    assert found == ["page.md: other.md#not-a-heading (no such heading)", "page.md: gone.md (no such file)"]


def test_ci_runs_the_readme_test_command():
    readme = README.read_text(encoding="utf-8")
    assert "./scripts/test    # run the whole test suite" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^\s*(\w+=\S*\s+)*\./scripts/test\b", ci, re.MULTILINE), ".ci/run no longer runs ./scripts/test"
