"""Admin pages for researchers, one module per area; importing them registers the pages."""

from . import adjudication, batches, calls, language_models, projects, recruitment, study, teams, work  # noqa: F401
