"""Bad trees: a folder deeper than Python's recursion limit is walked, not a traceback; a folder verify
cannot list is an error naming it, not an empty folder; JSON nested past the parser's stack is a problem
of its file. Each is one line, exit 1 or 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _nest(root: Path, depth: int) -> str:
    """``depth`` nested folders ``d/d/…`` under ``root`` with a page at the bottom, made one level at a time
    through folder descriptors (past the longest path the system can name); the page's relative path."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        page = os.open("page.html", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(page, b"<p>planted</p>\n")
        os.close(page)
    finally:
        os.close(fd)
    return "d/" * depth + "page.html"


def _unnest(root: Path, depth: int) -> None:
    """Remove what :func:`_nest` made, bottom up (``shutil.rmtree`` recurses once per level)."""
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY)]
    for _ in range(depth):
        fds.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    os.unlink("page.html", dir_fd=fds[-1])
    while len(fds) > 1:
        os.close(fds.pop())
        os.rmdir("d", dir_fd=fds[-1])
    os.close(fds[0])


def test_a_tree_deeper_than_the_recursion_limit_is_walked_and_its_page_reported(run_cli, site: Path) -> None:
    depth = sys.getrecursionlimit() + 100
    rel = _nest(site, depth)
    try:
        result = run_cli("verify", site, "--allow-unpinned")
    finally:
        _unnest(site, depth)
    assert result.code == 1 and "Traceback" not in result.out + result.err, result.err
    assert f"{site}/{rel}: present but not listed in {site}/manifest.json" in result.out


def test_a_tree_too_deep_to_name_is_one_line_exit_2(run_cli, site: Path) -> None:
    """Past the longest path the system can name, the folder cannot be listed: said so, exit 2."""
    depth = 2100  # 4,200 characters of "d/": past PATH_MAX (4,096)
    _nest(site, depth)
    try:
        result = run_cli("verify", site, "--allow-unpinned")
    finally:
        _unnest(site, depth)
    assert result.code == 2 and result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert "cannot list this folder (File name too long): files in it would go unseen" in result.err


def test_a_folder_verify_may_traverse_but_not_list_is_an_error(site: Path) -> None:
    """Run without the capabilities that let root read any folder, as an auditor's account would."""
    hidden = site / "decisions" / "locked"
    hidden.mkdir()
    (hidden / "page.html").write_text("<p>planted</p>\n")
    hidden.chmod(0o111)
    try:
        proc = subprocess.run(
            [
                "setpriv",
                "--inh-caps=-all",
                "--bounding-set=-dac_override,-dac_read_search",
                sys.executable,
                "-m",
                "evidence_kit",
                "verify",
                str(site),
                "--allow-unpinned",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        hidden.chmod(0o755)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr == f"evidence-kit: {hidden}: cannot list this folder (Permission denied): files in it would go unseen\n"


@pytest.mark.parametrize("name", ["manifest.json", "manifest.dsse.json"])
def test_json_nested_past_the_parsers_stack_is_a_problem_of_its_file(run_cli, site: Path, name: str) -> None:
    (site / name).write_text("[" * 200_000 + "]" * 200_000)
    result = run_cli("verify", site, "--allow-unpinned")
    assert result.code == 1 and "Traceback" not in result.out + result.err
    assert f"{site}/{name}: " in result.out and "maximum recursion depth exceeded" in result.out
