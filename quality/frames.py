"""The one place that turns a project's responses into a DataFrame for quality.stats."""
from __future__ import annotations

import pandas as pd

from annotation.models import Project
from annotation.selectors import annotation_columns, annotation_rows


def annotation_frame(project: Project) -> pd.DataFrame:
    return pd.DataFrame.from_records(list(annotation_rows(project)), columns=annotation_columns(project))
