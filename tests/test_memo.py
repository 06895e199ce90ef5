"""The in-memory memo: one answer per text, made once, within its budget, least recently used forgotten first."""

from __future__ import annotations

import threading

from evidence_kit.memo import Memo


def _counting() -> tuple[list[str], object]:
    made: list[str] = []

    def make(text: str):  # type: ignore[no-untyped-def]
        return lambda: (made.append(text), text.upper())[1]

    return made, make


def test_the_same_text_is_answered_once() -> None:
    made, make = _counting()
    memo: Memo[str] = Memo(100)
    assert [memo.get("ab", make("ab")), memo.get("ab", make("ab")), memo.get("cd", make("cd"))] == ["AB", "AB", "CD"]
    assert made == ["ab", "cd"]


def test_past_the_budget_the_least_recently_used_is_made_again() -> None:
    made, make = _counting()
    memo: Memo[str] = Memo(8)  # each entry costs 4: its key and its answer
    memo.get("aa", make("aa"))
    memo.get("bb", make("bb"))
    memo.get("aa", make("aa"))  # aa used last: bb goes first
    memo.get("cc", make("cc"))
    memo.get("aa", make("aa"))
    memo.get("bb", make("bb"))
    assert made == ["aa", "bb", "cc", "bb"]
    assert memo.used <= memo.budget


def test_an_answer_larger_than_the_budget_is_not_kept() -> None:
    made, make = _counting()
    memo: Memo[str] = Memo(5)
    assert memo.get("abcd", make("abcd")) == "ABCD"
    assert memo.get("abcd", make("abcd")) == "ABCD"
    assert made == ["abcd", "abcd"] and memo.used == 0


def test_two_threads_making_one_text_count_it_once() -> None:
    # Two verifies in two threads of one process (the Python API) both miss the same text and both make it:
    # the memo must count the one entry it keeps once, or `used` drifts up past every entry it holds (and,
    # past the budget, evicting from an empty memo raises KeyError).
    memo: Memo[str] = Memo(100)
    both = threading.Barrier(2)

    def make() -> str:
        both.wait(timeout=10)
        return "AB"

    threads = [threading.Thread(target=memo.get, args=("ab", make)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert memo.used == sum(size for _, size in memo.entries.values()) == 4
