"""The layering of the package: no part imports a higher layer or a sibling of its own layer.

Every import of every module is read with ``ast``: at the top and inside
functions, absolute and relative (``from . import x`` names a module ``x``), and
the dynamic ones the command line names as ``"evidence_kit.commands.x:y"``
strings. The order is declared once, in :mod:`evidence_kit.layers`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import evidence_kit
from evidence_kit.layers import LAYERS, layer_of

PACKAGE = Path(evidence_kit.__file__).resolve().parent
ROOT = PACKAGE.parent
DYNAMIC = re.compile(r"evidence_kit(?:\.\w+)+(?::\w+)?")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, root: Path = ROOT) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _part(name: str) -> str:
    """``evidence_kit.render.pages`` -> ``render``; the package root itself is ``__init__``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """``(line, module)`` for every module of the package that ``path`` imports, wherever the import is."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if _part_of_package(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not _part_of_package(target):
                continue
            for alias in node.names:  # `from .. import format` imports the module format, not the root
                candidate = f"{target}.{alias.name}"
                found.append((node.lineno, candidate if _is_module(candidate, root) else target))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and DYNAMIC.fullmatch(node.value):
            found.append((node.lineno, node.value.partition(":")[0]))
    return found


def _part_of_package(name: str) -> bool:
    return name == "evidence_kit" or name.startswith("evidence_kit.")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.relative_to(PACKAGE).parts)


def test_every_part_of_the_package_has_a_layer_and_every_layer_names_a_part() -> None:
    parts = {_part(_module_name(p)) for p in _modules()}
    declared = [part for layer in LAYERS for part in layer]
    assert len(declared) == len(set(declared)), "a part is declared in two layers"
    assert sorted(parts - set(declared)) == [], "parts of the package without a layer (add them to evidence_kit/layers.py)"
    assert sorted(set(declared) - parts) == [], "layers name parts the package does not have"


def test_no_part_imports_a_higher_layer_or_a_sibling() -> None:
    wrong = []
    for path in _modules():
        source = _part(_module_name(path))
        for line, module in imported_modules(path):
            target = _part(module)
            if target != source and layer_of(target) >= layer_of(source):
                how = "a sibling in" if layer_of(target) == layer_of(source) else "a higher"
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {source} (layer {layer_of(source)}) imports {module}, {how} layer {layer_of(target)}")
    assert wrong == [], "\n".join(wrong)


def test_the_reader_sees_local_relative_and_dynamic_imports(tmp_path: Path) -> None:
    """The guard itself: imports hidden in a function, ``from . import x`` and ``"pkg.mod:attr"`` strings count."""
    package = tmp_path / "evidence_kit" / "sub"
    package.mkdir(parents=True)
    (tmp_path / "evidence_kit" / "__init__.py").write_text("")
    (tmp_path / "evidence_kit" / "other.py").write_text("")
    (package / "__init__.py").write_text("from . import mod\n")
    (package / "mod.py").write_text("")
    module = package / "user.py"
    module.write_text(
        "from .. import __version__, other\n"
        "def f():\n"
        "    from ..sub import mod\n"
        "    import evidence_kit.other\n"
        "TARGET = 'evidence_kit.sub.mod:f'\n"
        "TEXT = 'see evidence_kit.other for details'\n"
    )
    assert sorted(imported_modules(module, tmp_path)) == [
        (1, "evidence_kit"),
        (1, "evidence_kit.other"),
        (3, "evidence_kit.sub.mod"),
        (4, "evidence_kit.other"),
        (5, "evidence_kit.sub.mod"),
    ]
    assert imported_modules(package / "__init__.py", tmp_path) == [(1, "evidence_kit.sub.mod")]


def test_the_architecture_page_shows_the_declared_layers() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", text, re.M)
    shown = [tuple(re.findall(r"`([\w]+)`", parts)) for _, parts in sorted(rows, key=lambda row: int(row[0]))]
    assert shown == list(LAYERS), "docs/architecture.md's layer table differs from evidence_kit/layers.py"
