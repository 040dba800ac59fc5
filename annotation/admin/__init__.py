"""Admin pages for researchers, one module per area; importing them registers the pages."""
from . import batches, projects, recruitment, work  # noqa: F401
