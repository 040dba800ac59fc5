"""The quality report's plots: data gathered per run (`figures.py`), drawn as SVG (`plots.py`)."""
