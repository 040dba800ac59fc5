"""Tasks from a file: a task described as data (docs/task-files.md) becomes a task kind object."""

from .kind import QUALITY_DEFAULTS, TASK_FILE_KIND, task_file_kind
from .loading import TaskFileError, TaskFileProblem
from .words import words_change as task_file_words_change

__all__ = [
    "QUALITY_DEFAULTS",
    "TASK_FILE_KIND",
    "TaskFileError",
    "TaskFileProblem",
    "task_file_kind",
    "task_file_words_change",
]
