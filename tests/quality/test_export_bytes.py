"""Every export writes exactly the bytes it wrote before the exports were made plain (one ORM
reader, one writer): `PINNED` holds the SHA-256 of every dataset x format of the two projects
of `export_projects`, taken from the exports as they were (on SQLite and PostgreSQL alike).
A failure shows which files changed; `assert_same_bytes` shows the first differing line.

Changed on purpose since: raw (issue 25) gained a `confirmed` column after `assignment_status`
(work a recruiting site has not confirmed is marked there and left out of everything else);
items (issue 28) gained, after each aggregated field's columns, the label of the field's
aggregation method with its posterior, bootstrap interval and the method's name: without them
the items export is still the bytes of `BEFORE_UNCERTAINTY`. The participants dataset (issue 27)
is new: these projects have no study file, so it is its header only; so is the checks dataset
(issue 27: the answers to check and training items), as they have no check items. Their final,
final_items and adjudications datasets are refused since issue 38 (neither project has the
adjudication stage), so they are no longer pinned."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest

from annotation.kinds import kind_of
from annotation.models import Project
from quality.agreement import aggregate_columns
from quality.exports import ExportUnavailable, dataset_formats, datasets, export_open, project_datasets
from quality.selectors import latest_run, response_value_columns
from quality.services.runs import quality_run_create
from quality.uncertainty import UNCERTAINTY_SUFFIXES
from tests.quality.export_projects import build_cosimlex, build_recam

pytestmark = pytest.mark.django_db

FORMATS = ("csv", "tsv", "jsonl")


def export_bytes(project: Project, dataset: str, fmt: str) -> bytes:
    return b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)


#: issue 36: an empty final_items CSV/TSV has its header line (`item_id` for a kind without a
#: released format of final labels), where it had an empty line alone; nothing else changed
PINNED: dict[str, str] = {
    "recam/no-run/raw.csv": "616cd8840e1871e5bd7ec909c19b78a46a423f0b1172414491d4fd53d60f23bd",
    "recam/no-run/raw.tsv": "3c1076e8b945ea1ec972fe4a71ac39fe721fe56e52441299fcc8ce03c516a29f",
    "recam/no-run/raw.jsonl": "72bd272c3f174bac99e86fa803593a70192d2d9b5ca80b7c669611abc9d9665f",
    "recam/no-run/items.csv": "8772c58a13de6091287d4585896c1c927d7904473353df38109b46bc404cb200",
    "recam/no-run/items.tsv": "b5b0093b13e2ebc3257d3f805a834276ec03d8239a5c706c474baf49727f85b2",
    "recam/no-run/items.jsonl": "e86427bcf83ec4c8c7e1388e0b62f00c5122233aa34e14e0cd26fb85875b270e",
    "recam/no-run/participants.csv": "7ad3261de81d45d62e589e53fc686f1cafd7f84d74ad75a47eb18b6027cf8ba9",
    "recam/no-run/participants.tsv": "472438ed919e736a62ec583adc276fa14c8d1e5bd43c7b6c45d0f52ec2752cba",
    "recam/no-run/participants.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "recam/no-run/checks.csv": "3a8eb08a1c1fd777c9b7cef00aba7c309eaec178bb2236db775c90cfa5f7d484",
    "recam/no-run/checks.tsv": "de3cfba90fd0e1ab9212a53545d24dfee2ed6a8ad8a6df24973a5e274e7088ca",
    "recam/no-run/checks.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "recam/run/raw.csv": "616cd8840e1871e5bd7ec909c19b78a46a423f0b1172414491d4fd53d60f23bd",
    "recam/run/raw.tsv": "3c1076e8b945ea1ec972fe4a71ac39fe721fe56e52441299fcc8ce03c516a29f",
    "recam/run/raw.jsonl": "72bd272c3f174bac99e86fa803593a70192d2d9b5ca80b7c669611abc9d9665f",
    "recam/run/clean.csv": "8e109c064e8704158dd69bcd32b6e1c565b688d1bb8d7c9f8ca3ab83eda933d2",
    "recam/run/clean.tsv": "44380e672dd0f783cd816b5f82d7bd54bf5c7260be5d79b8ed86a31bc8e70490",
    "recam/run/clean.jsonl": "29fae99fd1f0cf04d3c6133e8e2518a1c4de9467f3df7443dc5df38795504df8",
    "recam/run/items.csv": "6e2b0f270d47ab086dbe68866ab7831bee0c91557f6268daab0581f4ed2774f5",
    "recam/run/items.tsv": "faa0253d348ed0607a2648a1df98b3d4c21063d48a63c18720aee99ecc5a4e4c",
    "recam/run/items.jsonl": "17412a49d7fd7d86602ae3945033b8df4eacea1f6ad91c182d7b09bdbc62d710",
    "recam/run/annotators.csv": "16ed9fc1c8f5ac30697eaca1239b3895a5a01d6b54558089cf297095f68e41cc",
    "recam/run/annotators.tsv": "e4a617f4e8b8f6c1d8eee2affaee7e3e188c8e11409beb5bee9431910b596852",
    "recam/run/annotators.jsonl": "7a68d951bac747763115030d0e9dbdd62c6c79ae5d41ee47a7e40e0492f3ee05",
    "recam/run/decisions.csv": "138fdfa6081e86754158c007a542c502bf284af94ba14355e022d3e26e0614a2",
    "recam/run/decisions.tsv": "b956c39258f237ace166e24eab4c0e0d26b4e1b0916b86ccd285c656d89c84dc",
    "recam/run/decisions.jsonl": "629840858c660709307cc1ccb14e87fd864a9e81298cee51d35c28ccd9aa3ee2",
    "recam/run/participants.csv": "7ad3261de81d45d62e589e53fc686f1cafd7f84d74ad75a47eb18b6027cf8ba9",
    "recam/run/participants.tsv": "472438ed919e736a62ec583adc276fa14c8d1e5bd43c7b6c45d0f52ec2752cba",
    "recam/run/participants.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "recam/run/checks.csv": "3a8eb08a1c1fd777c9b7cef00aba7c309eaec178bb2236db775c90cfa5f7d484",
    "recam/run/checks.tsv": "de3cfba90fd0e1ab9212a53545d24dfee2ed6a8ad8a6df24973a5e274e7088ca",
    "recam/run/checks.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "cosimlex/no-run/raw.csv": "ce82e46ff273289cf18d59be4872a6c18def17bca10f13134a54b05820cca4bd",
    "cosimlex/no-run/raw.tsv": "c4fbbaf0a8a2d351beaa479bb17cba5263b407902674688f502f38e19316edae",
    "cosimlex/no-run/raw.jsonl": "936c78d1481e7626ea1d64873b25e16ec344f53a29e0332a78f18be508650c5b",
    "cosimlex/no-run/items.csv": "5125859275697852f57dca638f480bd81470b2c2fa9da8514240fba83fd36d80",
    "cosimlex/no-run/items.tsv": "ccc3cb35b98e753fb7caf11409e4c9d3afb5b865dca319fb48a34ce6cd3060b2",
    "cosimlex/no-run/items.jsonl": "54593287c8e1a7e8cd2ec92f65301ca2abff6a2faf2674804ce66d8db066de8f",
    "cosimlex/no-run/participants.csv": "7ad3261de81d45d62e589e53fc686f1cafd7f84d74ad75a47eb18b6027cf8ba9",
    "cosimlex/no-run/participants.tsv": "472438ed919e736a62ec583adc276fa14c8d1e5bd43c7b6c45d0f52ec2752cba",
    "cosimlex/no-run/participants.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "cosimlex/no-run/checks.csv": "3a8eb08a1c1fd777c9b7cef00aba7c309eaec178bb2236db775c90cfa5f7d484",
    "cosimlex/no-run/checks.tsv": "de3cfba90fd0e1ab9212a53545d24dfee2ed6a8ad8a6df24973a5e274e7088ca",
    "cosimlex/no-run/checks.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "cosimlex/no-run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/no-run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/no-run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/no-run/kit_gold.csv": "7fbb88347592e00f6360d43a69e3cffafcfd7cd8a78490d4404cec45669cfb2f",
    "cosimlex/no-run/kit_gold.tsv": "157474dae5b78b7170236e1c1c788a5debfd719cd18b53bb7f7c49dc19dd9f3b",
    "cosimlex/no-run/kit_gold.jsonl": "d53297cdb0c3918924060ef90d33b720d4cdb8f53e7eb30b794b75574425d54b",
    "cosimlex/run/raw.csv": "ce82e46ff273289cf18d59be4872a6c18def17bca10f13134a54b05820cca4bd",
    "cosimlex/run/raw.tsv": "c4fbbaf0a8a2d351beaa479bb17cba5263b407902674688f502f38e19316edae",
    "cosimlex/run/raw.jsonl": "936c78d1481e7626ea1d64873b25e16ec344f53a29e0332a78f18be508650c5b",
    "cosimlex/run/clean.csv": "89b65b98b01fe5e54ce667fc3e835e7d414e7e5213d34b0a80e2b0d00a803a40",
    "cosimlex/run/clean.tsv": "47deb1c954ae9ae3b0ba4f07ba441e9dfc95888cecbc9fcb5d3fca5d0aa06304",
    "cosimlex/run/clean.jsonl": "5bb4bc0dafcbcea7705f8e355baab6fa0718da2c3d558eac1341405a7f28e2c0",
    "cosimlex/run/items.csv": "3c0345f1a88ae95ab1bc3bd2e7294bb30cd003df6e29bbc68ca2ed03f5cd195b",
    "cosimlex/run/items.tsv": "69e2e955c21f2ed6548bbf8ac825be6fa111c7578a70341f8c9bc0fb3c6b7138",
    "cosimlex/run/items.jsonl": "d8210e878bf758c01372de31c8d8bd4c7885dca0bc20ebfe9dd42f7445984bcd",
    "cosimlex/run/annotators.csv": "8698efb9b419394788dbdb2607fe145af95f0a34b0c942ba1a03443eadb4cd47",
    "cosimlex/run/annotators.tsv": "8eed2e3c54f5980a4fc484366e84f44591ce8b3fd6c137a0cbaa20e2ea9285c8",
    "cosimlex/run/annotators.jsonl": "ec7b547458776ab14bd72b053e96bf1478d638d66da4af16e3e99e2521cd964e",
    "cosimlex/run/decisions.csv": "13382df976c64f008b963d37c03a820768113ff49abb5fea537eccd41a93e8d0",
    "cosimlex/run/decisions.tsv": "7e6281ebe7d997d6eda29f0e3ee20e18b7b16c739a5db7f752e09a6e59ec1290",
    "cosimlex/run/decisions.jsonl": "8454e5d25d51fbcc31e79f19b5b35c6171c2cd8fc98e8fd1be5942d29a2af19c",
    "cosimlex/run/participants.csv": "7ad3261de81d45d62e589e53fc686f1cafd7f84d74ad75a47eb18b6027cf8ba9",
    "cosimlex/run/participants.tsv": "472438ed919e736a62ec583adc276fa14c8d1e5bd43c7b6c45d0f52ec2752cba",
    "cosimlex/run/participants.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "cosimlex/run/checks.csv": "3a8eb08a1c1fd777c9b7cef00aba7c309eaec178bb2236db775c90cfa5f7d484",
    "cosimlex/run/checks.tsv": "de3cfba90fd0e1ab9212a53545d24dfee2ed6a8ad8a6df24973a5e274e7088ca",
    "cosimlex/run/checks.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "cosimlex/run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/run/kit_gold.csv": "748332a1990ca35cf779f00be0427b33c6911e6abcea3ff5a59dddf7ad9e5296",
    "cosimlex/run/kit_gold.tsv": "79e08caacdbf6bcca5be78ae8f638ece2a58e8f9164254236b80917ccbe37218",
    "cosimlex/run/kit_gold.jsonl": "3a20608bd63f41ec8f182a205f000729c619f22f7ca527b8e94cfa55ce4ca3a1",
}


#: the items exports before the uncertainty columns (issue 28): what they are with those left out
BEFORE_UNCERTAINTY: dict[str, str] = {
    "recam/no-run/items.csv": "a0bc6ebf98abc7534a041696a449e9b24bee8a40b12a83e516601b11ea22ca8f",
    "recam/no-run/items.tsv": "dc6aca4281c950abff46ce4a24a977c44c76fffc21af56f341824818f3f9f0d4",
    "recam/no-run/items.jsonl": "d35fa8fdde7acd0f7f7e7e74a469eabbc8b2117a88b86a72c3ab9bb9498d01ed",
    "recam/run/items.csv": "c94d8840e212247e4714ccdc9e3948d3e1ea3b25e94a865626620188ecc01c75",
    "recam/run/items.tsv": "913d5ad20f680e73182ac3901e67ed0de64f6c0b9655731ffc87d4a42f5e6b03",
    "recam/run/items.jsonl": "6c85045cb1211fd13501727a6ae682013787a7b22e63f2b54c411f629650edfe",
}


def digests(project: Project, stage: str) -> dict[str, str]:
    found = {}
    for dataset in project_datasets(project):
        for fmt in (fmt for fmt in FORMATS if fmt in dataset_formats(dataset)):  # the tables (not label_studio)
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


def test_items_without_the_uncertainty_columns_are_the_bytes_of_before(monkeypatch):
    """The uncertainty columns were added, nothing else changed: the default method ("auto")
    leaves every column the items export had, and its values, as they were."""
    project = build_recam()
    fields = kind_of(project).label_fields()
    added = {f"{field.name}_{suffix}" for field in fields for suffix in UNCERTAINTY_SUFFIXES}
    older = [column for column in aggregate_columns(fields) if column not in added]
    monkeypatch.setattr(datasets, "aggregate_columns", lambda fields: list(older))
    found = {
        f"recam/no-run/items.{fmt}": hashlib.sha256(export_bytes(project, "items", fmt)).hexdigest() for fmt in FORMATS
    }
    assert quality_run_create(project=project).status == "done"
    found.update(
        {f"recam/run/items.{fmt}": hashlib.sha256(export_bytes(project, "items", fmt)).hexdigest() for fmt in FORMATS}
    )
    assert found == BEFORE_UNCERTAINTY
    assert len(older) == 5 * 5  # five fields, five columns each as before


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
    place in the row, under the one header (before issue 27 CSV wrote it under both)."""
    project = build_cosimlex()
    quality_run_create(project=project)
    columns = ["rating", *response_value_columns(latest_run(project))]
    monkeypatch.setattr(datasets, "response_value_columns", lambda run: list(columns))
    names, *rows = csv.reader(io.StringIO(export_bytes(project, "clean", "csv").decode("utf-8"), newline=""))
    assert names.count("rating") == 1 and len(names) == len(set(names))
    where = names.index("rating")
    assert rows and {row[where] for row in rows} != {"99"}
    for decision in latest_run(project).response_decisions.all():  # the run derived its own rating
        decision.values = {**(decision.values or {}), "rating": 99}
        decision.save(update_fields=["values"])
    names, *rows = csv.reader(io.StringIO(export_bytes(project, "clean", "csv").decode("utf-8"), newline=""))
    assert names.count("rating") == 1 and rows and {row[where] for row in rows} == {"99"}
