"""How many true labels each aggregator recovers on simulated crowds, and how often it agrees
with Toloka's crowd-kit 1.4.2 (issue 28). Prints JSON; asserts nothing.

    python bench/bench_aggregators.py                       # seeds 41-46, the default crowd
    python bench/bench_aggregators.py --seeds 1 2 3 --items 2000 --labels-per-item 5

crowd-kit's labels come from running it (when `crowdkit` imports, e.g. in the throwaway venv of
bench/crowdkit_reference.py) or else from a reference file it wrote (`--reference`), for the
seeds whose crowd there has the same fingerprint; without either, agreement is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quality.stats.aggregation import majority_vote  # noqa: E402
from quality.stats.dawid_skene import dawid_skene  # noqa: E402
from quality.stats.glad import glad  # noqa: E402
from quality.stats.mace import mace  # noqa: E402
from quality.stats.one_coin import one_coin_dawid_skene  # noqa: E402
from quality.stats.simulated_crowd import CrowdMix, SimulatedCrowd, simulate_crowd  # noqa: E402

REFERENCE = ROOT / "tests" / "quality" / "stats" / "crowdkit_reference.json"

AGGREGATORS: dict[str, Callable[[pd.DataFrame], pd.Series]] = {
    "majority": lambda frame: majority_vote(frame)["label"],  # None on a tie: counted wrong
    "dawid_skene": lambda frame: dawid_skene(frame).labels["label"],
    "dawid_skene_plain_10_rounds": lambda frame: dawid_skene(frame, alpha=0, max_iter=10).labels["label"],
    "dawid_skene_plain": lambda frame: dawid_skene(frame, alpha=0).labels["label"],
    "one_coin_dawid_skene": lambda frame: one_coin_dawid_skene(frame).labels["label"],
    "mace": lambda frame: mace(frame).labels["label"],
    "glad": lambda frame: glad(frame).labels["label"],
}
CROWDKIT_NAMES = {"dawid_skene": "dawid_skene", "dawid_skene_plain": "dawid_skene"}


def crowdkit_labels(crowd: SimulatedCrowd, seed: int, reference: dict, live: bool) -> dict[str, str]:
    """crowd-kit's label per item for each model, as one string (classes are single letters)."""
    if live:
        from crowdkit.aggregation import GLAD, MACE, DawidSkene, OneCoinDawidSkene

        frame = crowd.labels.rename(columns={"item": "task", "annotator": "worker", "value": "label"})
        models = {"dawid_skene": DawidSkene, "one_coin_dawid_skene": OneCoinDawidSkene, "mace": MACE, "glad": GLAD}
        return {name: "".join(model().fit_predict(frame).sort_index().astype(str)) for name, model in models.items()}
    entry = reference.get("seeds", {}).get(str(seed))
    if not entry or entry["fingerprint"] != crowd.fingerprint():
        return {}
    return {name: value["labels"] for name, value in entry.items() if isinstance(value, dict)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[41, 42, 43, 44, 45, 46])
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument("--labels-per-item", type=int, default=3)
    parser.add_argument(
        "--mix", type=float, nargs=4, default=[0.40, 0.33, 0.20, 0.07], metavar=("GOOD", "MEDIOCRE", "SPAM", "BIASED")
    )
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    args = parser.parse_args(argv)
    try:
        import crowdkit  # noqa: F401

        live = True
    except ImportError:
        live = False
    reference = json.loads(args.reference.read_text()) if args.reference.exists() else {}
    good, mediocre, spam, biased = args.mix
    mix = CrowdMix(good=good, mediocre=mediocre, spammer=spam, biased=biased)
    rows: dict[str, dict[str, list[float]]] = {
        name: {"accuracy": [], "agreement": [], "crowdkit": [], "seconds": []} for name in AGGREGATORS
    }
    for seed in args.seeds:
        crowd = simulate_crowd(
            seed=seed,
            n_items=args.items,
            n_classes=args.classes,
            n_annotators=args.annotators,
            labels_per_item=args.labels_per_item,
            mix=mix,
        )
        truth = crowd.truth.to_numpy()
        theirs = crowdkit_labels(crowd, seed, reference, live)
        for name, aggregate in AGGREGATORS.items():
            started = time.perf_counter()
            ours = aggregate(crowd.labels).reindex(crowd.truth.index).to_numpy()
            rows[name]["seconds"].append(time.perf_counter() - started)
            rows[name]["accuracy"].append(float(np.mean(ours == truth)))
            other = theirs.get(CROWDKIT_NAMES.get(name, name))
            if other is not None:
                other_labels = np.array(list(other), dtype=object)
                rows[name]["agreement"].append(float(np.mean(ours == other_labels)))
                rows[name]["crowdkit"].append(float(np.mean(other_labels == truth)))
    out = {
        "crowd": {
            "items": args.items,
            "classes": args.classes,
            "annotators": args.annotators,
            "labels_per_item": args.labels_per_item,
            "mix": args.mix,
        },
        "seeds": args.seeds,
        "crowdkit": "live" if live else f"reference file {args.reference.name}" if reference else "none",
        "aggregators": {name: summary(values) for name, values in rows.items()},
    }
    print(json.dumps(out, indent=1))
    return 0


def summary(values: dict[str, list[float]]) -> dict:
    """Mean over seeds (percent, 2 decimals) and each seed's figure."""
    out: dict = {}
    for key, series in values.items():
        if not series:
            continue
        scale = 1 if key == "seconds" else 100
        out[f"{key}_mean"] = round(float(np.mean(series)) * scale, 3 if key == "seconds" else 2)
        out[f"{key}_per_seed"] = [round(value * scale, 3 if key == "seconds" else 2) for value in series]
    return out


if __name__ == "__main__":
    raise SystemExit(main())
