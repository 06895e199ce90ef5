"""The comparison the docs' examples are held to: ``…`` stands for what varies, nothing else does."""

from __future__ import annotations

from tests.docs.examples import matches, steps

OUTPUT = "key id: " + "ab" * 32 + "\nPASS digests   92 file(s)\nPASS figures   recomputed 1 trial(s)\nverified: site\n"


def test_the_output_shown_whole_matches() -> None:
    assert matches(OUTPUT, OUTPUT)


def test_a_changed_figure_does_not_match() -> None:
    assert not matches(OUTPUT.replace("1 trial", "2 trial"), OUTPUT)


def test_a_missing_or_extra_line_does_not_match() -> None:
    assert not matches(OUTPUT.replace("verified: site\n", ""), OUTPUT)
    assert not matches(OUTPUT + "one more\n", OUTPUT)


def test_an_ellipsis_line_stands_for_lines_and_an_inline_one_for_text() -> None:
    assert matches("key id: …\n…\nverified: site\n", OUTPUT)
    assert matches("…\nPASS digests   … file(s)\n…\n", OUTPUT)
    assert not matches("…\nPASS sources\n…\n", OUTPUT)


def test_any_64_hex_digits_match_any_other() -> None:
    assert matches(OUTPUT.replace("ab" * 32, "0f" * 32), OUTPUT)


def test_a_page_gives_its_files_and_commands_in_order() -> None:
    page = '```toml title="p.toml"\na = 1\n```\n\n```console\n$ evidence-kit scan .\nclean\n$ evidence-kit analyze x\n```\n'
    found = steps(page)
    assert [(s.path, s.command, s.shown) for s in found] == [
        ("p.toml", "", ""),
        ("", "evidence-kit scan .", "clean\n"),
        ("", "evidence-kit analyze x", ""),
    ]
