"""SCDE (Kong, Gangal and Hovy, ACL 2020): the parts the sentence-cloze task kind calls.

`records` reads the released files, `answers` checks an annotator's submission, `export`
writes answers back in the released format's terms; `page` is the annotator page, `results`
the columns, quality outcome and export rows, and `kind` registers the TaskKind (imported by
annotation/kinds/__init__.py). Importing the package itself registers nothing.
"""
