"""CoSimLex's figures as the quality report names and prints them (ratings 0-6; agreement as
Spearman's ρ, as SemEval-2020 Task 3 reports it)."""

from __future__ import annotations

from ..base import FigureStyle

FIGURES: dict[str, FigureStyle] = {
    "annotations_per_entry_before": FigureStyle("Ratings per pair, before the rules", "number"),
    "annotations_per_entry_after": FigureStyle("Ratings per pair, kept", "number"),
    "agreement_spearman": FigureStyle("Agreement: mean pairwise Spearman's ρ", "coefficient"),
    "n_pairs": FigureStyle("Pairs", "count"),
    "mean_similarity": FigureStyle("Mean similarity (0-6)", "number"),
    "mean_stdev": FigureStyle("Mean standard deviation of a pair's ratings", "number"),
    "mean_abs_change": FigureStyle("Mean absolute change between the two contexts", "number"),
    "share_p_below_0_1": FigureStyle("Pairs whose change has p < 0.1", "share"),
    "share_p_below_0_05": FigureStyle("Pairs whose change has p < 0.05", "share"),
    "consistency_mean": FigureStyle("Consistency items: mean rating", "number"),
    "calibration_shift": FigureStyle("Calibration shift", "number"),
    "mean_pairwise_spearman": FigureStyle("Mean pairwise Spearman's ρ", "coefficient"),
    "loo_gain": FigureStyle("Leave-one-out gain in ρ", "coefficient"),
    "engagement_flagged_share": FigureStyle("Responses failing the engagement check", "share"),
    "spearman_vs_rest": FigureStyle("Spearman's ρ against the others' mean", "coefficient"),
    "mean": FigureStyle("Mean rating", "number"),
    "stdev": FigureStyle("Standard deviation", "number"),
    "sim_context1": FigureStyle("Similarity in context 1", "number"),
    "sim_context2": FigureStyle("Similarity in context 2", "number"),
    "stdev_context1": FigureStyle("Standard deviation in context 1", "number"),
    "stdev_context2": FigureStyle("Standard deviation in context 2", "number"),
    "change": FigureStyle("Change (context 2 − context 1)", "number"),
    "pvalue": FigureStyle("P-value of the change", "p_value"),
    "pvalue_release": FigureStyle("P-value of the change (release)", "p_value"),
}
