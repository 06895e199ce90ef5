"""What a raw value is: a path or a name, a machine or an address that names none, a host and port."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, get_args

from ...model.formats.vllm import ListenAddress

__all__ = ["LISTEN", "endpoint_parts", "is_ip", "is_path", "place_host"]

LISTEN = frozenset(get_args(ListenAddress))
_URL = re.compile(
    r"^(?:[a-z][a-z0-9+.-]{0,20}://)?(?:\[(?P<v6>[0-9A-Fa-f:.%\w]{2,64})\]|(?P<host>[^/:\s\[\]]{1,253}))(?::(?P<port>\d{1,5}))?(?:/.*)?$"
)


def is_path(value: str) -> bool:
    """A filesystem path (``/m``, ``~/m``, ``./m``, ``C:\\m``), not a name like ``org/model``."""
    return value.startswith(("/", "~", "./", "../", "\\\\")) or re.match(r"^[A-Za-z]:[\\/]", value) is not None


def is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return False
    return True


def place_host(top: dict[str, Any], host: str) -> None:
    """A server's host: public when it names no machine (``0.0.0.0``, loopback), else an IP or a host identity."""
    if host in LISTEN:
        top["listen"] = host
    else:
        top["host_ip" if is_ip(host) else "host"] = host


def endpoint_parts(where: str) -> tuple[str | None, int | None]:
    """The host and port of ``http://host:port/...``, ``host:port`` or ``[::1]:8000``; ``(None, None)`` for other text."""
    match = _URL.match(where)
    if not match or not (match["port"] or "://" in where):  # a bare word may be a host or a name: not guessed
        return None, None
    port = int(match["port"]) if match["port"] else None
    return match["v6"] or match["host"], port
