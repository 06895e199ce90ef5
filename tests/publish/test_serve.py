"""`evidence-kit serve` as a real subprocess: files and folders are served, symbolic links are not."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import httpx

from ..printed import served_printed


def test_serve_answers_files_and_refuses_symbolic_links(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not part of the site\n")
    site = tmp_path / "site" / "public"
    (site / "decisions").mkdir(parents=True)
    (site / "index.html").write_text("<p>index</p>\n")
    (site / "decisions" / "page.html").write_text("<p>page</p>\n")
    (site / "leak.txt").symlink_to(secret)
    (site / "linked").symlink_to(secret.parent, target_is_directory=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "serve", str(site.parent), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        base = f"http://127.0.0.1:{match.group(1)}/"
        assert httpx.get(base).text == "<p>index</p>\n"
        assert httpx.get(base + "decisions/page.html").status_code == 200
        assert httpx.get(base + "decisions/").status_code == 200  # a folder listing
        for path in ("leak.txt", "linked/secret.txt", "linked/", "../outside/secret.txt"):
            response = httpx.get(base + path)
            assert response.status_code == 404 and "not part of the site" not in response.text, path
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_serve_line_build_prints_runs_as_printed_in_a_fresh_shell(reference_bundle: Path, tmp_path: Path, run_cli) -> None:
    # A fresh shell has no venv activated: "evidence-kit serve SITE" would be "not found" there. The last line
    # build prints names the script by its absolute path, quoted for the shell (this folder holds a space).
    out = tmp_path / "my site ü"
    result = run_cli("build", reference_bundle, "--out", out)
    assert result.code == 0, result.err
    line = result.out.rstrip("\n").splitlines()[-1].strip()
    assert shlex.split(line)[1:3] == ["serve", str(out)], line
    with served_printed(line) as base:
        page = httpx.get(base, timeout=30)
        assert page.status_code == 200 and "reconstructed" in page.text
