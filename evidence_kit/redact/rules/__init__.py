"""The rules of the known-value scan, one object each, in one registry.

The scan hunts identities only: the values the typed writer pseudonymised (and those it withheld
from a ``private`` part), and the values a policy declares private. Three families of rules say
how (the matching engine, :mod:`..hunt`, names none of them):

- **spelling** rules: the other forms a known value of a kind takes (a host's short name, a model's
  ``models--org--name`` folder), and what it teaches (an endpoint teaches its host, whose own
  spellings are then hunted too);
- **reading** rules: how published text is read before it is searched (letter case, escapes, URL
  encoding, HTML entities, invisible and full-width characters, base64);
- **guard** rules: what is never learnt as private, however it was met (a configuration word, an
  English or template word, a number under six digits, a date, a version string). A value a
  policy declares that a guard refuses is an error at ``redact``.

Each rule carries its examples, which are its tests (``tests/redact/test_rules.py``), and
``docs/redaction.md``'s reference tables are generated from :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ...model.publication import IdentityKind

__all__ = ["Example", "Rule", "RULES", "rules_of"]


@dataclass(frozen=True)
class Example:
    """One example of a rule: what it is given, and what it must (and must not) give back."""

    given: str
    gives: tuple[str, ...] = ()
    not_gives: tuple[str, ...] = ()
    kind: IdentityKind | None = None  # a spelling rule's input kind


@dataclass(frozen=True)
class Rule:
    """One rule of the scan: its family, what it does (one line for the docs) and its examples.

    - a spelling rule's ``spell(value)`` yields ``(spelling, kind)`` pairs: another form of the value
      (same kind), or a value it teaches (its own kind, whose spellings are then added);
    - a reading rule's ``read(text)`` gives the text read another way (or ``None`` when it changes nothing);
      one that is ``always`` is applied in place to every text searched and to every spelling, so one
      search covers both forms;
    - a guard rule's ``refuses(word)`` says the word is never private on its own.
    """

    name: str
    family: str  # "spelling", "reading" or "guard"
    finds: str
    kinds: tuple[IdentityKind, ...] = ()  # a spelling rule's kinds (empty: every kind)
    spell: Callable[[str], Iterable[tuple[str, IdentityKind]]] | None = None
    read: Callable[[str], str | None] | None = None
    refuses: Callable[[str], bool] | None = None
    examples: tuple[Example, ...] = field(default=())
    always: bool = False  # a reading applied in place to every text and every spelling (no second search)


def _registry() -> tuple[Rule, ...]:
    from .guards import GUARDS
    from .readings import READINGS
    from .spellings import SPELLINGS

    return (*SPELLINGS, *READINGS, *GUARDS)


RULES: tuple[Rule, ...] = _registry()


def rules_of(family: str) -> tuple[Rule, ...]:
    """The rules of one family, in registry order."""
    return tuple(rule for rule in RULES if rule.family == family)
