"""``evidence-kit serve``: serve a built site's HTML on 127.0.0.1 (search needs http)."""

from __future__ import annotations

import functools
import http.server
import os
from pathlib import Path

import click

from ..errors import BadInput


def site_root(path: Path) -> Path:
    """The HTML root of ``path``: ``path/public`` for a built site folder, else ``path`` itself."""
    root = path / "public" if (path / "public" / "index.html").is_file() else path
    if not (root / "index.html").is_file():
        raise BadInput("not a built site (no index.html here or in public/)", path)
    return root


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Python's static handler, quiet, and serving regular files and folders only: a path
    through a symbolic link (which could point anywhere on the machine) is not found."""

    def send_head(self):  # type: ignore[no-untyped-def]
        path = self.translate_path(self.path)
        if os.path.realpath(path) != os.path.normpath(path):
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


@click.command()
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port on 127.0.0.1 (0 picks a free one).")
def serve(site: Path, port: int) -> None:
    """Serve the built site SITE (its public/ folder, or SITE itself) on http://127.0.0.1:PORT/ until Ctrl-C."""
    root = site_root(site)
    handler = functools.partial(_QuietHandler, directory=os.path.realpath(root))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise BadInput(f"cannot listen on 127.0.0.1:{port} ({err.strerror})") from None
    with server:
        click.echo(f"serving {root} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", err=False)
        server.serve_forever()
