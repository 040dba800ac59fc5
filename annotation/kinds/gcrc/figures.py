"""GCRC's figures as the quality report names and prints them (Tan et al. 2021: answer accuracy,
supporting-fact F1, error-reason accuracy; the paper's inter-annotator agreement 83.8 %)."""

from __future__ import annotations

from ..base import FigureStyle

FIGURES: dict[str, FigureStyle] = {
    "reference_annotations": FigureStyle("Annotations scored against the released labels", "count"),
    "reference_Task1_Acc": FigureStyle("Task 1: answer accuracy against the released labels", "share"),
    "reference_Task2_F1": FigureStyle("Task 2: supporting-sentence F1 against the released labels", "share"),
    "reference_Task3_Acc": FigureStyle("Task 3: error-reason accuracy against the released labels", "share"),
    "reference_Score": FigureStyle("Score (mean of the three tasks) against the released labels", "share"),
    "final_vs_reference_items": FigureStyle("Items whose final labels were scored against the released ones", "count"),
    "final_vs_reference_Task1_Acc": FigureStyle(
        "Final labels, Task 1: answer accuracy against the released labels", "share"
    ),
    "final_vs_reference_Task2_F1": FigureStyle(
        "Final labels, Task 2: supporting-sentence F1 against the released labels", "share"
    ),
    "final_vs_reference_Task3_Acc": FigureStyle(
        "Final labels, Task 3: error-reason accuracy against the released labels", "share"
    ),
    "final_vs_reference_Score": FigureStyle(
        "Final labels, score (mean of the three tasks) against the released labels", "share"
    ),
    "agreement_items": FigureStyle("Items with two annotators", "count"),
    "agreement_options": FigureStyle("Options with two annotators", "count"),
    "agreement_error_options": FigureStyle("Options with an error reason from either annotator", "count"),
    "paper_agreement_overall": FigureStyle("Agreement of the paper's annotators", "share"),
    "agreement_overall": FigureStyle("Agreement: overall", "share"),
    "agreement_evidence": FigureStyle("Agreement: supporting sentences (same set)", "share"),
    "agreement_skill": FigureStyle("Agreement: reasoning skill", "share"),
    "agreement_error": FigureStyle("Agreement: error reason", "share"),
    "agreement_evidence_f1": FigureStyle("Supporting sentences: mean F1 between annotators", "share"),
    "agreement_skill_kappa": FigureStyle("Reasoning skill: Cohen's κ", "coefficient"),
    "agreement_error_kappa": FigureStyle("Error reason: Cohen's κ", "coefficient"),
    "agreement_evidence_alpha": FigureStyle("Supporting sentences: Krippendorff's α (MASI)", "coefficient"),
    "annotation_count": FigureStyle("Annotations", "count"),
    "annotations": FigureStyle("Annotations", "count"),
}
