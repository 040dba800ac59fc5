"""Runs a forked export in a fresh process for tests/quality/test_export_forked.py.

The test process has threads by then (the browser tests' Playwright driver), and the export
forks only in a single-threaded process, as a gunicorn sync worker is; so the test runs it here,
against the test database (DATABASE_URL), in a few spans from the first id, and prints JSON.

    python -m tests.quality.forked_export_run bytes <project> <dataset> <fmt> <out file>
    python -m tests.quality.forked_export_run snapshot <project> <id> <id> <go file> <out file>
    python -m tests.quality.forked_export_run leave <project>
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys
import time


def main(mode: str, project_id: str, *args: str) -> dict:
    import django

    django.setup()
    from django.db import connection

    from annotation.models import Project
    from quality.exports import datasets, export_open, forked

    forked.MIN_IDS, forked.SPANS_PER_PROCESS = 1, 3
    pids: list[int] = []
    fork = os.fork

    def recording_fork() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    os.fork = recording_fork
    project = Project.objects.get(pk=int(project_id))
    report: dict = {"threads": __import__("threading").active_count()}
    if mode == "bytes":
        dataset, fmt, out = args
        with open(out, "wb") as f:
            for chunk in export_open(project=project, dataset=dataset, fmt=fmt).chunks:
                f.write(chunk)
    elif mode == "snapshot":
        first, last, go, out = args
        parent, spans_of = os.getpid(), datasets.annotation_value_spans

        def helper_waits(*a, **k):
            if os.getpid() != parent:  # the helper: its snapshot is open; it reads once told to
                while not os.path.exists(go):
                    time.sleep(0.01)
            return spans_of(*a, **k)

        datasets.annotation_value_spans = helper_waits
        chunks = iter(export_open(project=project, dataset="raw", fmt="csv").chunks)
        header, opening = next(chunks), next(chunks)  # both processes hold their snapshot by now
        writer = sqlite3.connect(connection.settings_dict["NAME"], timeout=20)
        writer.execute("UPDATE annotation_response SET answers = json_set(answers, '$.difficulty.difficulty', "
                       "'hard') WHERE id IN (?, ?)", (int(first), int(last)))
        writer.commit()
        writer.close()
        open(go, "w").close()
        with open(out, "wb") as f:
            f.write(header + opening + b"".join(chunks))
    elif mode == "leave":
        chunks = export_open(project=project, dataset="raw", fmt="csv").chunks
        next(chunks), next(chunks)
        chunks.close()  # the download was cancelled
        try:
            os.kill(pids[0], 0)
            report["helper_gone"] = False
        except ProcessLookupError:
            report["helper_gone"] = True  # killed and waited for: not even a zombie
        report["in_transaction"] = connection.connection.in_transaction
    report["forks"] = len(pids)
    for pid in pids:
        try:
            os.kill(pid, 0)
            report.setdefault("left_running", []).append(pid)
        except ProcessLookupError:
            pass
    return report


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
