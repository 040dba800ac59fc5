"""Tasks from a file: a task described as data (docs/task-files.md) becomes a task kind object."""

from .kind import QUALITY_DEFAULTS, TASK_FILE_KIND, task_file_kind
from .loading import Located, TaskFileError, TaskFileProblem, task_file_schema
from .loading import read as read_checked_data
from .question_sets import QuestionSet, item_key_problems, question_set
from .words import words_change as task_file_words_change

__all__ = [
    "Located",
    "QuestionSet",
    "item_key_problems",
    "question_set",
    "read_checked_data",
    "task_file_schema",
    "QUALITY_DEFAULTS",
    "TASK_FILE_KIND",
    "TaskFileError",
    "TaskFileProblem",
    "task_file_kind",
    "task_file_words_change",
]
