"""Run Toloka's crowd-kit 1.4.2 on our simulated crowds and write what it printed, so tests can pin it.

crowd-kit is not installed in the project's environment: its install adds transformers,
huggingface-hub, tokenizers and pyarrow, and pyarrow alone changes how pandas 3 stores every
string column of the project. The figures in tests/quality/stats/crowdkit_reference.json were
made in a throwaway venv with the project's pins of numpy, pandas and scipy:

    python -m venv /tmp/ck-venv
    /tmp/ck-venv/bin/pip install crowd-kit==1.4.2 numpy==2.4.6 pandas==3.1.1 scipy==1.17.1
    PYTHONPATH=. /tmp/ck-venv/bin/python bench/crowdkit_reference.py \
        --seeds 101 102 103 104 105 106 --out tests/quality/stats/crowdkit_reference.json

(from the repository root; the crowds come from quality/stats/simulated_crowd.py, which needs only
numpy and pandas). Each crowd's fingerprint is written too: a test refuses the file when the
simulator no longer draws the same crowd. crowd-kit's models run with their default settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

from quality.stats.simulated_crowd import simulate_crowd


def models() -> dict:
    from crowdkit.aggregation import GLAD, MACE, DawidSkene, OneCoinDawidSkene

    return {
        "dawid_skene": DawidSkene,
        "one_coin_dawid_skene": OneCoinDawidSkene,
        "mace": MACE,
        "glad": GLAD,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[101, 102, 103, 104, 105, 106])
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: stdout)")
    args = parser.parse_args(argv)
    import crowdkit  # noqa: F401 - fail early outside the throwaway venv

    out: dict = {"crowd_kit": version("crowd-kit"), "crowd": "simulate_crowd(seed=...) defaults", "seeds": {}}
    for seed in args.seeds:
        crowd = simulate_crowd(seed=seed)
        frame = crowd.labels.rename(columns={"item": "task", "annotator": "worker", "value": "label"})
        entry: dict = {"fingerprint": crowd.fingerprint()}
        for name, model in models().items():
            labels = model().fit_predict(frame).sort_index()
            assert list(labels.index) == list(crowd.truth.index)
            entry[name] = {
                "accuracy": round(float(np.mean(labels.to_numpy() == crowd.truth.to_numpy())), 6),
                "labels": "".join(labels.astype(str)),
            }
            print(seed, name, entry[name]["accuracy"], file=sys.stderr)
        out["seeds"][str(seed)] = entry
    text = json.dumps(out, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
