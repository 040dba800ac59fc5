"""Task kinds. Each kind module is imported here explicitly (no directory scan)."""

from . import recam  # noqa: F401  (registers)
from .base import (
    Column,
    FigureStyle,
    ImportProblem,
    ItemExport,
    Page,
    PageForm,
    ParsedItem,
    QualityOutcome,
    TaskKind,
    ValueFormat,
)
from .cosimlex import kind as cosimlex_kind  # noqa: F401  (registers)
from .gcrc import kind as gcrc_kind  # noqa: F401  (registers)
from .presets import ChannelPreset, PresetError, preset_fill, preset_for_channel, preset_named
from .registry import (
    UnknownKind,
    all_kinds,
    checked_kind_slug,
    get_kind,
    kind_choices,
    kind_of,
    known_settings,
    register,
    task_file_replacement_problem,
)
from .results import AGREEMENT_SETTINGS, GENERIC_SETTINGS, SPEED_SETTINGS, KindPlot, LabelField
from .scde import kind as scde_kind  # noqa: F401  (registers)
from .scoring import NothingToScore, ProjectResults, ResultItem, ScoreProblem, Scorer, ScorerOption, Upload
from .taskfile import TASK_FILE_KIND, TaskFileError, TaskFileProblem, task_file_kind, task_file_words_change

__all__ = [
    "ChannelPreset",
    "PresetError",
    "preset_fill",
    "preset_for_channel",
    "preset_named",
    "AGREEMENT_SETTINGS",
    "GENERIC_SETTINGS",
    "SPEED_SETTINGS",
    "Column",
    "FigureStyle",
    "KindPlot",
    "LabelField",
    "ImportProblem",
    "ItemExport",
    "Page",
    "PageForm",
    "ParsedItem",
    "QualityOutcome",
    "TaskKind",
    "ValueFormat",
    "UnknownKind",
    "all_kinds",
    "get_kind",
    "kind_of",
    "known_settings",
    "checked_kind_slug",
    "task_file_replacement_problem",
    "TASK_FILE_KIND",
    "TaskFileError",
    "TaskFileProblem",
    "task_file_kind",
    "task_file_words_change",
    "kind_choices",
    "register",
    "NothingToScore",
    "ProjectResults",
    "ResultItem",
    "ScoreProblem",
    "Scorer",
    "ScorerOption",
    "Upload",
]
