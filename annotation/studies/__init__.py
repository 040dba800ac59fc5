"""Study files: the steps a batch asks around its work (consent, a comprehension check, an exit
survey), written as data with the task file's question types (docs/study-checks.md)."""

from .spec import NO_STUDY, Attention, Comprehension, StudyFileError, StudySpec, Training, build, study_of_text

__all__ = [
    "NO_STUDY",
    "Attention",
    "Comprehension",
    "StudyFileError",
    "StudySpec",
    "Training",
    "build",
    "study_of_text",
]
