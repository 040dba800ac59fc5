"""Admin pages for researchers, one module per area; importing them registers the pages."""
from . import batches, mturk, projects, work  # noqa: F401
