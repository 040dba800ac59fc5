"""One way in for structured text: every YAML or JSON document a user sends (task and study
files, item imports in every format, Label Studio tasks and annotations, predictions, preview
records, API bodies) is read here, so one set of limits holds everywhere:

- a byte limit, checked before parsing;
- YAML aliases refused, naming the line (expanding them is how 519 bytes become gigabytes);
- nesting at most MAX_DEPTH levels (checked before anything recursive runs);
- finite numbers only (NaN, Infinity and 1e309 refused by name);
- integers of at most MAX_INT_DIGITS digits;
- no NUL and no lone surrogate in text (no database stores them alike).

Every refusal is a `Refused` naming the line (where known) and the key path. Pure: no Django.
JSON goes through orjson wherever orjson reads exactly what the json module reads (see
`float_free`); the json module does the rest, so a result never depends on which library ran.
"""

from annotation.structured_input.json_text import json_array, load_json
from annotation.structured_input.rules import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    Refused,
    check_size,
    float_free,
    key_path,
    number_problem,
    text_problem,
    value_problem,
)
from annotation.structured_input.yaml_text import load_yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "Refused",
    "check_size",
    "float_free",
    "json_array",
    "key_path",
    "load_json",
    "load_yaml",
    "number_problem",
    "text_problem",
    "value_problem",
]
