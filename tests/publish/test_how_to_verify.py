"""The built site's how-to-verify page, read as a reader reads it: its commands are real code blocks (no
literal language tag in the text), and pasted exactly as shown into a shell at the site's root, each one
works: the signature and figures verify, the analysis and the rebuild compare equal, with nothing printed.

Only what a reader must supply is filled in: the publisher's key (saved as the page says, `~/PUBLISHER.pub`,
outside the site), its id and the site's URL.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import serving

pytestmark = pytest.mark.slow  # one signed build, then every command of the page (four verifies, one rebuild)

BLOCK = re.compile(r'<pre class="highlight"><code class="language-sh">(.*?)</code></pre>', re.S)


def _blocks(page: str) -> list[str]:
    """The text of each code block, as a reader copies it from the page."""
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in BLOCK.findall(page)]


def test_the_commands_are_code_blocks_not_inline_code(demo_site) -> None:
    site, _, _ = demo_site
    page = (site / "public" / "how-to-verify.html").read_text()
    blocks = _blocks(page)
    assert len(blocks) == 6
    article = page[page.index("<article") : page.index("</article>")]
    assert "<code>sh " not in article and "```" not in article
    assert all(line.split()[0] in {"evidence-kit", "sha256sum", "rebuilt=$(mktemp", "diff"} for b in blocks for line in b.splitlines())


def test_every_command_works_as_pasted_at_the_site_root(demo_site, tmp_path: Path) -> None:
    site, public_key, key_id = demo_site
    public = site / "public"
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(public_key, home / "PUBLISHER.pub")
    env = {**os.environ, "HOME": str(home), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    blocks = _blocks((public / "how-to-verify.html").read_text())
    with serving(site) as url:
        for block in blocks:
            pasted = block.replace("KEY_ID", key_id).replace("SITE_URL", url)
            ran = subprocess.run(["bash", "-c", pasted], cwd=public, env=env, capture_output=True, text=True)
            assert ran.returncode == 0, (block, ran.stdout, ran.stderr)
            if block.startswith("evidence-kit verify"):
                verdicts = [line for line in ran.stdout.splitlines() if line.startswith("verified: ")]
                assert len(verdicts) == block.count("evidence-kit verify") and all("authenticated" in v for v in verdicts), ran.stdout
            elif block.startswith("evidence-kit analyze"):
                assert ran.stdout == "", ran.stdout  # diff printed nothing: the recomputed analysis is the published one
            elif "diff -r" in block:
                # Only build's own lines: diff found no file missing, added or different.
                assert ran.stdout.splitlines()[0].startswith("built 1 decision(s)") and len(ran.stdout.splitlines()) == 3, ran.stdout
    # The rebuild landed outside the site: the folder the page compares holds nothing new.
    assert not any(p.name.startswith("tmp") for p in public.iterdir())
