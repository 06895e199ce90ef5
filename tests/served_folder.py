"""A folder served over real HTTP on 127.0.0.1 for the length of a ``with`` block, by a handler of the test's."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@contextlib.contextmanager
def served_folder(folder: Path, handler: type[SimpleHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``folder`` with ``handler`` in a thread; yield the base URL (ending in ``/``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
