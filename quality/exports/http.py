"""The one HTTP shape of an export, shared by the admin report page and the REST API."""
from __future__ import annotations

from django.http import StreamingHttpResponse

from . import Export


def export_response(export: Export) -> StreamingHttpResponse:
    """Stream the chunks as a download; nothing is buffered (no Content-Length, no ETag)."""
    response = StreamingHttpResponse(export.chunks, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["X-Accel-Buffering"] = "no"  # nginx: pass chunks on as they come
    response["Cache-Control"] = "no-store"
    return response
