"""Read queries used by views, admin, API, channels, quality runs and exports: one module per
area, as `annotation.services` holds the writes."""
