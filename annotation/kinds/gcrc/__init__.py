"""GCRC's data layer: reading the released files (`records`), splitting passages into sentences
(`sentences`) and the label vocabularies with a question's polarity (`labels`).

Importing this package registers no task kind; the kind module builds on these parts.
"""
