"""SCDE (Kong, Gangal and Hovy, ACL 2020): the parts the sentence-cloze task kind calls.

`records` reads the released files, `answers` checks an annotator's submission, `export`
writes answers back in the released format's terms. Nothing here registers a kind: the
TaskKind subclass is added separately, so importing this package has no side effects.
"""
