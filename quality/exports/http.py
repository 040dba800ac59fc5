"""The HTTP shapes of an export, shared by the admin report page and the REST API: a small
export streamed at once, and a job's finished file."""

from __future__ import annotations

from django.http import FileResponse, Http404, StreamingHttpResponse

from quality.models import ExportJob
from quality.services.exports import export_job_path

from . import FORMATS, Export
from .hub.archive import HUB_ARCHIVE


def export_response(export: Export) -> StreamingHttpResponse:
    """Stream the chunks as a download; nothing is buffered (no Content-Length, no ETag).
    `X-Export-Cells` says whether CSV/TSV cells are exact or spreadsheet-safe."""
    response = StreamingHttpResponse(export.chunks, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["X-Accel-Buffering"] = "no"  # nginx: pass chunks on as they come
    response["Cache-Control"] = "no-store"
    response["X-Export-Cells"] = export.cells
    return response


def export_job_response(job: ExportJob) -> FileResponse:
    """The job's file as a download (Django's FileResponse: streamed from disk, with its size).
    404 while it is not ready, or once it has expired."""
    if job.status != ExportJob.Status.DONE or not job.file_path:
        raise Http404("This export is not ready, or its file has expired.")
    try:
        handle = export_job_path(job).open("rb")
    except FileNotFoundError:
        raise Http404("This export's file is gone.") from None
    file_format = HUB_ARCHIVE if job.format == HUB_ARCHIVE.name else FORMATS[job.format]
    response = FileResponse(handle, as_attachment=True, filename=job.file_name, content_type=file_format.content_type)
    response["Cache-Control"] = "no-store"
    response["X-Export-Cells"] = job.cells
    return response
