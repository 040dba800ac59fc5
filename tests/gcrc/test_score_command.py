import json

import pytest
from django.core.management import CommandError, call_command

from .conftest import FIXTURES
from .test_stats import GOLD, PRED


def _write(path, items, *, bom=False, crlf=False):
    text = json.dumps({"data": list(items)}, ensure_ascii=False, indent=1)
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode("utf-8"))
    return str(path)


def test_json_output_has_eval_py_keys_and_the_hand_computed_scores(tmp_path, capsys):
    pred = _write(tmp_path / "pred.json", PRED.values(), bom=True)
    gold = _write(tmp_path / "gold.json", GOLD.values(), crlf=True)
    call_command("score", "gcrc", "ccl2022", "--pred", pred, "--gold", gold, "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["Task1_Acc"] == pytest.approx(1 / 2)
    assert result["Task2_F1"] == pytest.approx((1 + 2 / 3 + 1) / 8)
    assert result["Task3_Acc"] == pytest.approx(1 / 2)
    assert result["Score"] == pytest.approx((1 / 2 + 1 / 3 + 1 / 2) / 3)
    assert result["missing"] == 1


def test_text_output(tmp_path, capsys):
    pred = _write(tmp_path / "pred.json", PRED.values())
    gold = _write(tmp_path / "gold.json", GOLD.values())
    call_command("score", "gcrc", "ccl2022", "--pred", pred, "--gold", gold)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Task1_Acc  0.5000 over 2")
    assert lines[1].startswith("Task2_F1   0.3333 over 8")
    assert lines[2].startswith("Task3_Acc  0.5000 over 4")
    assert lines[3].startswith("Score      0.4444")
    assert "1 gold question(s) have no prediction" in lines[4]


def test_the_adversarial_sample_scored_against_itself_has_answers_only(capsys):
    sample = str(FIXTURES / "dev_GCRCadvrobust.sample.json")
    call_command("score", "gcrc", "ccl2022", "--pred", sample, "--gold", sample, "--json")
    result = json.loads(capsys.readouterr().out)
    assert (result["Task1_Acc"], result["Task2_F1"], result["Task3_Acc"], result["questions"]) == (1.0, None, None, 10)


def test_bad_files_are_reported(tmp_path):
    gold = _write(tmp_path / "gold.json", GOLD.values())
    broken = tmp_path / "broken.json"
    broken.write_text('{"data": [', encoding="utf-8")
    with pytest.raises(CommandError, match="invalid JSON"):
        call_command("score", "gcrc", "ccl2022", "--pred", str(broken), "--gold", gold)
    with pytest.raises(CommandError, match="No such file"):
        call_command("score", "gcrc", "ccl2022", "--pred", str(tmp_path / "absent.json"), "--gold", gold)
    duplicate = _write(tmp_path / "dup.json", [{"id": "q1"}, {"id": "q1"}])
    with pytest.raises(CommandError, match="PRED: item 2"):
        call_command("score", "gcrc", "ccl2022", "--pred", duplicate, "--gold", gold)
