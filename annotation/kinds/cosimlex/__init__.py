"""CoSimLex (SemEval-2020 Task 3): `kind` registers the TaskKind (imported by
annotation/kinds/__init__.py), `scorers` holds the paper's Table 1 and the shared task's scorer.
Importing the package itself registers nothing."""
