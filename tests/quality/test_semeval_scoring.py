"""The SemEval-2020 Task 3 scorer against the practice-kit gold files, hand computations with numpy,
and the kit-format errors. No database."""

from __future__ import annotations

import io
import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from quality.stats import semeval_scoring as scoring
from quality.stats.semeval_scoring import KitFormatError
from tests.conftest import data_file

LANGS = ["en", "hr", "sl"]


def gold(lang: str) -> pd.DataFrame:
    path = data_file("cosimlex", f"practice_kit_gold_{lang}.tsv")
    return scoring.read_kit_table(path.read_bytes(), scoring.GOLD_COLUMNS)


def test_reading_the_gold_file():
    table = gold("en")
    assert len(table) == 10 and list(table.columns) == ["sim_context1", "sim_context2", "change"]
    assert table.iloc[0].tolist() == [2.57, 8.13, 5.56]
    assert table.iloc[4].tolist() == [0.417, 1.97, 1.55]
    assert len(gold("hr")) == 5 and len(gold("sl")) == 5


@pytest.mark.parametrize("lang", LANGS)
def test_gold_against_gold_scores_one(lang):
    table = gold(lang)
    assert scoring.score_subtask1(table, table) == pytest.approx(1.0)
    assert scoring.score_subtask2(table, table) == pytest.approx(1.0)


def test_subtask1_tiny_hand_case():
    # x·y = 2, |x|² = 3, |y|² = 6: 2 / sqrt(18)
    prediction = pd.DataFrame({"change": [1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"change": [1.0, -1.0, 2.0]})
    assert scoring.score_subtask1(prediction, truth) == pytest.approx(2 / math.sqrt(18))
    # uncentered: adding a constant to the prediction changes the score (centered Pearson would not)
    shifted = pd.DataFrame({"change": [2.0, 0.0, 3.0]})
    assert scoring.score_subtask1(shifted, truth) == pytest.approx((2 + 0 + 6) / math.sqrt(13 * 6))


@pytest.mark.parametrize("lang", LANGS)
def test_perturbed_prediction_against_numpy(lang):
    truth = gold(lang)
    rng = np.random.default_rng(2020)
    noisy = truth.assign(
        sim_context1=truth["sim_context1"] + rng.normal(0, 1.5, len(truth)),
        sim_context2=truth["sim_context2"] + rng.normal(0, 1.5, len(truth)),
    )
    noisy["change"] = noisy["sim_context2"] - noisy["sim_context1"]
    x, y = noisy["change"].to_numpy(), truth["change"].to_numpy()
    assert scoring.score_subtask1(noisy, truth) == pytest.approx(x @ y / np.sqrt((x @ x) * (y @ y)))
    # interleaved [c1_1, c2_1, c1_2, c2_2, ...]
    px = np.array([v for pair in zip(noisy["sim_context1"], noisy["sim_context2"]) for v in pair])
    gy = np.array([v for pair in zip(truth["sim_context1"], truth["sim_context2"]) for v in pair])
    assert scoring.interleave(noisy).tolist() == px.tolist()
    pearson = np.corrcoef(px, gy)[0, 1]
    spearman = np.corrcoef(rankdata(px), rankdata(gy))[0, 1]
    assert scoring.subtask2_correlations(noisy, truth) == pytest.approx((pearson, spearman))
    assert scoring.score_subtask2(noisy, truth) == pytest.approx(2 / (1 / pearson + 1 / spearman))


def test_negative_correlation_raises_as_the_organisers_script_did():
    truth = gold("en")
    reversed_ = truth.assign(sim_context1=10 - truth["sim_context1"], sim_context2=10 - truth["sim_context2"])
    pearson, spearman = scoring.subtask2_correlations(reversed_, truth)
    assert pearson == pytest.approx(-1.0) and spearman == pytest.approx(-1.0)
    with pytest.raises(statistics.StatisticsError, match="negative"):
        scoring.score_subtask2(reversed_, truth)
    assert issubclass(statistics.StatisticsError, ValueError)
    # subtask 1 has no such limit: a reversed change scores -1
    assert scoring.score_subtask1(truth.assign(change=-truth["change"]), truth) == pytest.approx(-1.0)


def test_overall_score_is_the_plain_mean_over_languages():
    assert scoring.overall_score({"en": 0.5, "hr": 0.7, "sl": 0.9}) == pytest.approx(0.7)


def test_crlf_lf_bom_and_file_objects_read_alike():
    lf = "sim_context1\tsim_context2\tchange\n1\t2\t1\n3.5\t1\t-2.5\n"
    crlf = lf.replace("\n", "\r\n")
    tables = [
        scoring.read_kit_table(lf, scoring.GOLD_COLUMNS),
        scoring.read_kit_table(crlf.encode(), scoring.GOLD_COLUMNS),
        scoring.read_kit_table(("\ufeff" + crlf).encode("utf-8"), scoring.GOLD_COLUMNS),
        scoring.read_kit_table(io.StringIO(lf.rstrip("\n")), scoring.GOLD_COLUMNS),
        scoring.read_kit_table(io.BytesIO(crlf.encode()), scoring.GOLD_COLUMNS),
    ]
    for table in tables:
        assert table.to_dict("list") == {"sim_context1": [1.0, 3.5], "sim_context2": [2.0, 1.0], "change": [1.0, -2.5]}


def test_the_kit_data_file_reads_with_its_text_columns():
    table = scoring.read_kit_table(data_file("cosimlex", "practice_kit_data_en.tsv").read_bytes(), ())
    assert len(table) == 10 and table.loc[0, "word1"] == "water" and table.loc[0, "word2"] == "ice"
    assert not table["word2_context2"].str.endswith("\r").any()  # CRLF fully stripped


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sim_context1\tchange\n1\t2\n", "line 1: missing column 'sim_context2'"),
        ("", "line 1: the header is missing"),
        ("change\n0.5\nabc\n", "line 3, column 'change': 'abc' is not a number"),
        ("change\n0.5\n\n", "line 3, column 'change': '' is not a number"),
        ("change\nnan\n", "line 2, column 'change': 'nan' is not a finite number"),
        ("sim_context1\tsim_context2\n1\t2\n3\n", "line 3: expected 2 tab-separated fields, found 1"),
        ("sim_context1\tsim_context2\n1,5\t2\n", "line 2, column 'sim_context1': '1,5' is not a number"),
    ],
)
def test_format_errors_name_the_line_and_column(text, message):
    columns = ["sim_context1", "sim_context2"] if text.startswith("sim") else ["change"]
    with pytest.raises(KitFormatError) as caught:
        scoring.read_kit_table(text, columns)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)


def test_bytes_that_are_not_utf8_are_a_format_error():
    with pytest.raises(KitFormatError, match="not UTF-8"):
        scoring.read_kit_table(b"change\n\xff\n", ["change"])


def test_wrong_number_of_rows_against_the_gold():
    truth = gold("hr")
    short = scoring.read_kit_table("change\n0.1\n0.2\n", ["change"])
    with pytest.raises(KitFormatError, match="subtask 1: the prediction has 2 rows but the gold has 5"):
        scoring.score_subtask1(short, truth)
    long = pd.concat([truth, truth])
    with pytest.raises(KitFormatError, match="subtask 2: the prediction has 10 rows but the gold has 5"):
        scoring.score_subtask2(long, truth)
    with pytest.raises(KitFormatError, match="prediction: missing column 'sim_context2'"):
        scoring.score_subtask2(truth[["sim_context1"]], truth)
