"""Pure statistics on pandas DataFrames: no Django, no project imports (import-linter keeps it so)."""
