"""The dataset card (`README.md`) of a Hub folder: the YAML header the Hub reads, then how the
data was made, from the project's batches and its latest quality run's stored report."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.text import slugify
from ruamel.yaml import YAML

from annotation.channels.registry import UnknownChannel, get_channel
from annotation.kinds import LabelField, kind_of
from annotation.models import Project
from quality.agreement import AGGREGATE_SUFFIXES, AGGREGATED_LEVELS
from quality.headline import WITH_ANNOTATOR
from quality.level_results import INTERVAL_SUFFIXES, is_span_field
from quality.models import QualityRun
from quality.report.context import agreement_rows
from quality.report.study_steps import project_study_steps, study_headline
from quality.selectors import run_aggregation, run_agreement, run_headline, run_uncertainty

from .markdown import md_code, md_text
from .splits import SplitPlan
from .tables import WrittenConfig, type_name

#: the Hub's size buckets (huggingface_hub's `size_categories`), by upper bound
SIZE_BUCKETS = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
    (1_000_000_000, "100M<n<1B"),
)


@dataclass(frozen=True)
class CardFacts:
    """What the card says beside the run: the researcher's choices and the files written."""

    configs: Sequence[WrittenConfig]
    plan: SplitPlan
    license: str
    task_categories: Sequence[str]


def size_category(rows: int) -> str:
    return next((name for bound, name in SIZE_BUCKETS if rows < bound), "n>1B")


def hub_language(code: str) -> str:
    """The Hub takes ISO 639 codes: the primary subtag of `pt-BR` is `pt`."""
    return code.replace("_", "-").split("-")[0].lower() or "en"


def card_header(project: Project, facts: CardFacts) -> dict[str, Any]:
    items = facts.configs[0]
    return {
        "pretty_name": project.name,
        "license": facts.license,
        "language": [hub_language(project.language)],
        "task_categories": list(facts.task_categories),
        "size_categories": [size_category(items.rows)],
        "annotations_creators": ["crowdsourced"],
        "configs": [
            {
                "config_name": config.name,
                **({"default": True} if n == 0 else {}),
                "data_files": [{"split": split, "path": path} for split, (path, _) in config.splits.items()],
            }
            for n, config in enumerate(facts.configs)
        ],
    }


def _yaml(data: Mapping[str, Any]) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(dict(data), out)
    return out.getvalue()


def dataset_card(project: Project, run: QualityRun, facts: CardFacts) -> str:
    """The whole README.md: `---` YAML `---`, then the sections."""
    sections = [
        f"# {md_text(project.name)}\n",
        _structure(facts),
        _process(project, run),
        _agreement(run),
        _aggregation(project, run),
        _upload(project),
    ]
    return f"---\n{_yaml(card_header(project, facts))}---\n\n" + "\n".join(s for s in sections if s)


def _structure(facts: CardFacts) -> str:
    lines = ["## Dataset structure\n", facts.plan.describe(), ""]
    for config in facts.configs:
        counts = ", ".join(f"{md_text(split)}: {n:,}" for split, (_, n) in config.splits.items())
        lines += [f"### {md_code(config.name)} ({counts})\n", CONFIG_WORDS.get(config.name, ""), ""]
        lines += ["| column | type |", "|---|---|"]
        for field in config.schema:
            text = " (mixed values, as JSON text)" if field.name in config.text_columns else ""
            lines.append(f"| {md_code(field.name)} | {md_text(type_name(field.type))}{text} |")
        lines.append("")
    return "\n".join(lines)


CONFIG_WORDS = {
    "items": "One row per item: `item_id` (the item's number, which every config's `item_id` refers to), then "
    "the item as it was imported (the task's released format), with the latest "
    "quality run's diagnostics and, per label field, the aggregated label (majority, Dawid-Skene, and the "
    "project's method with its posterior and interval, "
    "below).",
    "annotations": "One row per annotation the latest quality run kept (dropped annotations are not here), "
    "with the item's ids, a pseudonymous annotator number, the batch and the answers. The annotators' ids on "
    "the recruiting site are left out.",
    "final": "One row per item with final labels from the adjudication stage; a field left unresolved is empty.",
}


def _process(project: Project, run: QualityRun) -> str:
    kind = kind_of(project)
    lines = ["## Annotation process\n", f"- Task: {md_text(kind.title)}"]
    batches = list(project.batches.order_by("id").values("channel", "assignments_per_unit", "channel_settings"))
    channels = sorted({b["channel"] for b in batches})
    if channels:
        lines.append(f"- Recruited through: {', '.join(md_text(_channel_title(c)) for c in channels)}")
        per_item = sorted({b["assignments_per_unit"] for b in batches})
        lines.append(f"- Annotators per item: {', '.join(map(str, per_item))}")
    rewards = sorted({str(b["channel_settings"].get("reward")) for b in batches if b["channel_settings"].get("reward")})
    if rewards:
        lines.append(
            f"- Payment per assignment: {', '.join(map(md_text, rewards))} (in the recruiting site's currency)"
        )
    lines += _study_lines(project, len(batches))
    headline = run_headline(run)
    if headline:
        lines += [
            f"- Annotators: {headline['annotators']} ({headline['annotators_dropped']} dropped by the quality rules)",
            f"- Annotations: {headline['annotations']} ({headline['annotations_dropped']} dropped by the quality rules)",
            "",
            "### Quality rules applied\n",
            f"Quality run {run.number} of {run.finished_at:%Y-%m-%d}. Each rule with how many it dropped:\n",
            "| rule | annotators dropped | annotations dropped |",
            "|---|---|---|",
        ]
        who = headline.get("annotators_dropped_by_reason") or {}
        what = headline.get("annotations_dropped_by_reason") or {}
        for rule in list(dict.fromkeys([*who, *what])):
            shown = "their annotator was dropped (above)" if rule == WITH_ANNOTATOR else rule
            lines.append(f"| {md_text(shown)} | {who.get(rule, 0)} | {what.get(rule, 0)} |")
        if not who and not what:
            lines.append("| (nothing was dropped) | 0 | 0 |")
    return "\n".join(lines) + "\n"


def _study_lines(project: Project, n_batches: int) -> list[str]:
    """The study steps around the work (consent, comprehension check), with how many took part."""
    batches = project_study_steps(project)
    if not batches:
        return []
    asked = [
        name
        for name, any_asks in (
            ("consent", any(b.consent_asked for b in batches)),
            ("a comprehension check", any(b.check_asked for b in batches)),
            ("an exit survey", any(b.exit_asked for b in batches)),
        )
        if any_asks
    ]
    n = study_headline(batches)
    return [
        f"- Study steps around the work: {', '.join(asked)} (in {len(batches)} of the {n_batches} batches)",
        f"- Took part: {n['took_part']} of the {n['reached']} people who entered those batches; "
        f"{n['declined']} declined the consent and {n['failed']} failed the comprehension check. They did no "
        "work, so nothing of theirs is in the data and nothing was dropped for them.",
    ]


def _channel_title(slug: str) -> str:
    try:
        return str(get_channel(slug).title)
    except UnknownChannel:
        return slug


def _agreement(run: QualityRun) -> str:
    rows = agreement_rows(run_agreement(run))
    if not rows:
        return ""
    lines = [
        "## Agreement\n",
        "Per label field, on the annotations the quality run kept; the interval is a bootstrap 95 % interval "
        "of Krippendorff's α.\n",
        "| field | level | items | % agreement | mean Cohen's κ | Fleiss' κ | Krippendorff's α | α 95 % interval |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {md_text(r['title'])} ({md_code(r['name'])}) | {r['level']} | {r['n_items']} | {r['observed']} | "
            f"{r['cohen']} | {r['fleiss']} | {r['alpha']} | {r['interval']} |"
        )
    iccs = [(name, f["icc"]) for name, f in run_agreement(run).items() if f.get("icc")]
    if iccs:  # interval fields: kappa treats every value as its own category, so ICC(1) instead
        lines.append(
            "\nκ is not given for interval fields (it treats every value as its own category); their "
            "intraclass correlation, one-way (Shrout & Fleiss' ICC(1), as items get different annotators):\n"
        )
        for name, icc in iccs:
            single, average = icc.get("single"), icc.get("average")
            shown = "—" if single is None else f"{single:.3f}"
            lines.append(f"- `{name}`: ICC(1) {shown}, ICC(1,k) {'—' if average is None else f'{average:.3f}'}")
    return "\n".join(lines) + "\n"


def _aggregation(project: Project, run: QualityRun) -> str:
    kind = kind_of(project)
    fields = [f for f in kind.label_fields() if f.level in AGGREGATED_LEVELS]
    summary, uncertainty = run_aggregation(run), run_uncertainty(run)
    levels = _levels(kind.label_fields()) if kind.item_results else ""
    if not fields:
        return "## Aggregation\n\nThe task declares no nominal or ordinal label field: nothing is voted on.\n" + levels
    columns = ", ".join(f"`<field>_{s}`" for s in AGGREGATE_SUFFIXES)
    lines = [
        "## Aggregation\n",
        "Each nominal or ordinal label field is aggregated per item by majority vote (no label on a tie), by "
        "Dawid-Skene, and by the project's aggregation method with the posterior of its label and a bootstrap "
        "95 % interval over annotators (resampled with replacement, seeded), on the annotations the quality run "
        f"kept. The `items` config carries {columns}.\n",
        "| field | items | majority ties | majority = Dawid-Skene | mean Dawid-Skene posterior | method | mean posterior |",
        "|---|---|---|---|---|---|---|",
    ]
    for field in fields:
        s, u = summary.get(field.name) or {}, uncertainty.get(field.name) or {}
        posterior, mean = s.get("ds_mean_posterior"), u.get("mean_posterior")
        lines.append(
            f"| {md_code(field.name)} | {s.get('n_items', 0)} | {s.get('majority_ties', 0)} | "
            f"{s.get('majority_agrees_with_ds', 0)} | {'—' if posterior is None else f'{posterior:.3f}'} | "
            f"{md_text(u.get('method') or '—')} | {'—' if mean is None else f'{mean:.3f}'} |"
        )
    return "\n".join(lines) + "\n" + levels


def _levels(fields: Sequence[LabelField]) -> str:
    """What the `items` config carries of the interval and span fields (`level_columns`)."""
    scores = [f"`{f.name}`" for f in fields if f.level == "interval" and not is_span_field(f)]
    spans = [f"`{f.name}`" for f in fields if is_span_field(f)]
    lines = []
    if scores:
        suffixes = ", ".join(f"`<field>_{s}`" for s in INTERVAL_SUFFIXES)
        lines.append(
            f"\nScores ({', '.join(scores)}: interval fields) are not voted on: the `items` config carries {suffixes}: "
            "the mean, median and standard deviation of the item's scores, a bootstrap 95 % interval of the mean "
            "(the item's scores resampled with replacement, seeded), and the mean of the scores' z-scores (each "
            "score standardised by its annotator's mean and standard deviation over all their items, as WMT "
            "reports direct assessment).\n"
        )
    if spans:
        lines.append(
            f"\nMarked spans ({', '.join(spans)}): `<field>_spans` is the list of spans a majority marked "
            "({start, end, text, label}, offsets in code points of the item's text, `end` exclusive): a character "
            "is kept when more than half of the annotators who answered marked it, with the label most of them "
            "gave (none on a tie), and runs of kept characters with one label are one span; "
            "`<field>_span_counts` is how many spans each label got from all annotators.\n"
        )
    return "".join(lines)


def _upload(project: Project) -> str:
    name = slugify(project.name) or f"project-{project.pk}"
    return (
        "## Upload\n\nNothing has been uploaded. To publish this folder as a dataset on the Hugging Face Hub "
        "(after `hf auth login`; `hf` is `huggingface_hub`'s command line, formerly `huggingface-cli`), run "
        "in this folder:\n\n"
        f"```\nhf upload YOUR-NAME/{name} . . --repo-type dataset\n```\n"
    )
