"""Every export writes exactly the bytes it wrote before the exports were made plain (one ORM
reader, one writer): `PINNED` holds the SHA-256 of every dataset x format of the two projects
of `export_projects`, taken from the exports as they were (on SQLite and PostgreSQL alike).
A failure shows which files changed; `assert_same_bytes` shows the first differing line."""
from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest

from annotation.models import Project
from quality.exports import ExportUnavailable, datasets, export_open, project_datasets
from quality.selectors import latest_run, response_value_columns
from quality.services.runs import quality_run_create
from tests.quality.export_projects import build_cosimlex, build_recam

pytestmark = pytest.mark.django_db

FORMATS = ("csv", "tsv", "jsonl")


def export_bytes(project: Project, dataset: str, fmt: str) -> bytes:
    return b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)


PINNED: dict[str, str] = {
    "recam/no-run/raw.csv": "5be8f46944e31fc385f6f8e4bdbf6aa2100c6b113b85b6df81f9e9a5d4a5eeb4",
    "recam/no-run/raw.tsv": "16adb8766545cbc8fccf730d2c1b3dc286c02b845bd9346af38f03f34151f990",
    "recam/no-run/raw.jsonl": "3d24fbe64c5cdb904f7d7709f8ce1cae5fa79ca071149138c26db3528b56dafb",
    "recam/no-run/items.csv": "7f075579054e946aa75efda430e0c3d9f6ad923c634a17fbbedcc1774fac575e",
    "recam/no-run/items.tsv": "1896e8091110b512647beb0f1a7fb4fe0a434d3352035874bc0e07c250d3a49e",
    "recam/no-run/items.jsonl": "a81a35279768094e6bc84bfef573e6ffb876134e352316eedbdad391c552a0f8",
    "recam/run/raw.csv": "5be8f46944e31fc385f6f8e4bdbf6aa2100c6b113b85b6df81f9e9a5d4a5eeb4",
    "recam/run/raw.tsv": "16adb8766545cbc8fccf730d2c1b3dc286c02b845bd9346af38f03f34151f990",
    "recam/run/raw.jsonl": "3d24fbe64c5cdb904f7d7709f8ce1cae5fa79ca071149138c26db3528b56dafb",
    "recam/run/clean.csv": "8e109c064e8704158dd69bcd32b6e1c565b688d1bb8d7c9f8ca3ab83eda933d2",
    "recam/run/clean.tsv": "44380e672dd0f783cd816b5f82d7bd54bf5c7260be5d79b8ed86a31bc8e70490",
    "recam/run/clean.jsonl": "29fae99fd1f0cf04d3c6133e8e2518a1c4de9467f3df7443dc5df38795504df8",
    "recam/run/items.csv": "7309aa867b42ef63bed9f4b95f8fbd181e1a2152a71d5e9aebaa49b6b1362197",
    "recam/run/items.tsv": "f4dee84ad6364895e5efcbe43e982fc168db664cd4b461a628d9c0740f8ef1e7",
    "recam/run/items.jsonl": "931b1b350713385444110bd3388fe19b4a5210555e62b8e7204a10284f462114",
    "recam/run/annotators.csv": "7249dbf8362ba34866dcd5b740c0233085b40a4a6a90877f72fdb965a0908982",
    "recam/run/annotators.tsv": "cb95ab9f28360d1040164cae7d9fe2e19453d3534f2ecef8bb0d565d37ef2959",
    "recam/run/annotators.jsonl": "586a444963a9a52edb38febbc8aa042dab33413518ee4355896fbf63adc0bd15",
    "recam/run/decisions.csv": "138fdfa6081e86754158c007a542c502bf284af94ba14355e022d3e26e0614a2",
    "recam/run/decisions.tsv": "b956c39258f237ace166e24eab4c0e0d26b4e1b0916b86ccd285c656d89c84dc",
    "recam/run/decisions.jsonl": "629840858c660709307cc1ccb14e87fd864a9e81298cee51d35c28ccd9aa3ee2",
    "cosimlex/no-run/raw.csv": "7f4066c223d21146d880c109694c5c1f09c917d0e5e6e98b71903436a88e5021",
    "cosimlex/no-run/raw.tsv": "366a9c1bcededf6f5f00027cfd8f5f96c36389f329151c31f0e67365b18c029a",
    "cosimlex/no-run/raw.jsonl": "34eed956184888ebfa2dad923816ed4454c2e8aab2c639b9266e5cfc02a71309",
    "cosimlex/no-run/items.csv": "5125859275697852f57dca638f480bd81470b2c2fa9da8514240fba83fd36d80",
    "cosimlex/no-run/items.tsv": "ccc3cb35b98e753fb7caf11409e4c9d3afb5b865dca319fb48a34ce6cd3060b2",
    "cosimlex/no-run/items.jsonl": "54593287c8e1a7e8cd2ec92f65301ca2abff6a2faf2674804ce66d8db066de8f",
    "cosimlex/no-run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/no-run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/no-run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/no-run/kit_gold.csv": "7fbb88347592e00f6360d43a69e3cffafcfd7cd8a78490d4404cec45669cfb2f",
    "cosimlex/no-run/kit_gold.tsv": "157474dae5b78b7170236e1c1c788a5debfd719cd18b53bb7f7c49dc19dd9f3b",
    "cosimlex/no-run/kit_gold.jsonl": "d53297cdb0c3918924060ef90d33b720d4cdb8f53e7eb30b794b75574425d54b",
    "cosimlex/run/raw.csv": "7f4066c223d21146d880c109694c5c1f09c917d0e5e6e98b71903436a88e5021",
    "cosimlex/run/raw.tsv": "366a9c1bcededf6f5f00027cfd8f5f96c36389f329151c31f0e67365b18c029a",
    "cosimlex/run/raw.jsonl": "34eed956184888ebfa2dad923816ed4454c2e8aab2c639b9266e5cfc02a71309",
    "cosimlex/run/clean.csv": "89b65b98b01fe5e54ce667fc3e835e7d414e7e5213d34b0a80e2b0d00a803a40",
    "cosimlex/run/clean.tsv": "47deb1c954ae9ae3b0ba4f07ba441e9dfc95888cecbc9fcb5d3fca5d0aa06304",
    "cosimlex/run/clean.jsonl": "5bb4bc0dafcbcea7705f8e355baab6fa0718da2c3d558eac1341405a7f28e2c0",
    "cosimlex/run/items.csv": "3c0345f1a88ae95ab1bc3bd2e7294bb30cd003df6e29bbc68ca2ed03f5cd195b",
    "cosimlex/run/items.tsv": "69e2e955c21f2ed6548bbf8ac825be6fa111c7578a70341f8c9bc0fb3c6b7138",
    "cosimlex/run/items.jsonl": "d8210e878bf758c01372de31c8d8bd4c7885dca0bc20ebfe9dd42f7445984bcd",
    "cosimlex/run/annotators.csv": "47038b8d32e5b5bf531b75c1184684919bf11a2caea97f7496f43ec9221fce4f",
    "cosimlex/run/annotators.tsv": "a67e30a6b07d9995ae5861c43d57c3d1ca7db3fac56349ef6a2ec54cb95b55f9",
    "cosimlex/run/annotators.jsonl": "c6356cbaeaae2540ab8b698bd47367a6f1c536edd01f44443e128a1e33a036da",
    "cosimlex/run/decisions.csv": "13382df976c64f008b963d37c03a820768113ff49abb5fea537eccd41a93e8d0",
    "cosimlex/run/decisions.tsv": "7e6281ebe7d997d6eda29f0e3ee20e18b7b16c739a5db7f752e09a6e59ec1290",
    "cosimlex/run/decisions.jsonl": "8454e5d25d51fbcc31e79f19b5b35c6171c2cd8fc98e8fd1be5942d29a2af19c",
    "cosimlex/run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/run/kit_gold.csv": "748332a1990ca35cf779f00be0427b33c6911e6abcea3ff5a59dddf7ad9e5296",
    "cosimlex/run/kit_gold.tsv": "79e08caacdbf6bcca5be78ae8f638ece2a58e8f9164254236b80917ccbe37218",
    "cosimlex/run/kit_gold.jsonl": "3a20608bd63f41ec8f182a205f000729c619f22f7ca527b8e94cfa55ce4ca3a1",
}


def digests(project: Project, stage: str) -> dict[str, str]:
    found = {}
    for dataset in project_datasets(project):
        for fmt in FORMATS:
            try:
                body = export_bytes(project, dataset, fmt)
            except ExportUnavailable:  # needs a quality run
                continue
            found[f"{project.kind}/{stage}/{dataset}.{fmt}"] = hashlib.sha256(body).hexdigest()
    return found


@pytest.mark.parametrize("build", [build_recam, build_cosimlex], ids=["recam", "cosimlex"])
def test_every_export_is_byte_identical_to_before(build):
    project = build()
    found = digests(project, "no-run")
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    found.update(digests(project, "run"))
    expected = {key: value for key, value in PINNED.items() if key.startswith(project.kind + "/")}
    assert found == expected, json.dumps(found, indent=1)



def assert_same_bytes(got: bytes, want: bytes) -> None:
    if got == want:
        return
    got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
    for number, (g, w) in enumerate(zip(got_lines, want_lines), start=1):
        assert g == w, f"line {number} differs"
    assert len(got_lines) == len(want_lines), "line counts differ"



def test_the_projects_are_as_varied_as_claimed():
    """Guards the fixtures themselves: what the pinned digests are supposed to cover."""
    recam, cosimlex = build_recam(), build_cosimlex()
    for project in (recam, cosimlex):
        run = quality_run_create(project=project)
        raw = export_bytes(project, "raw", "jsonl").decode("utf-8")
        rows = [json.loads(line) for line in raw.splitlines()]
        assert any(not r["completed"] for r in rows) and any(r["seconds"] is None for r in rows)
        assert "\\r\\n" in raw and any(ord(c) > 127 for c in raw)
        assert run.annotator_decisions.filter(keep=False).exists()
        clean = export_bytes(project, "clean", "csv")
        assert 0 < clean.count(b"\n") < export_bytes(project, "raw", "csv").count(b"\n")
    raw = export_bytes(recam, "raw", "csv").decode("utf-8")
    assert '"He said, ""Hello, world!""\r\nThen:' in raw  # quotes doubled, CR/LF kept inside the cell
    assert response_value_columns(latest_run(cosimlex))  # the clean dataset appends derived values
    assert b"rating_calibrated" in export_bytes(cosimlex, "clean", "tsv").split(b"\n")[0]



def test_a_derived_value_named_like_an_annotation_column_replaces_it(monkeypatch):
    """A value a quality run derives under the name of an annotation column takes that column's
    place in the row: CSV writes it under both headers, as it always did."""
    project = build_cosimlex()
    quality_run_create(project=project)
    columns = ["rating", *response_value_columns(latest_run(project))]
    monkeypatch.setattr(datasets, "response_value_columns", lambda run: list(columns))
    names, *rows = csv.reader(io.StringIO(export_bytes(project, "clean", "csv").decode("utf-8"), newline=""))
    assert names.count("rating") == 2
    first, second = (index for index, name in enumerate(names) if name == "rating")
    assert rows and all(row[first] == row[second] for row in rows)
