"""The tables as Parquet (pyarrow): the API's DataFrames, typed, for a dataframe library to open as they are.

Each file is the frame :mod:`evidence_kit.api` gives (ordered categoricals, nullable integers, UTC
timestamps, telemetry flattened), with a list or object column (``itl_us``, ``counters``, ``client``)
as canonical JSON text, since Parquet columns hold one type. Written without pandas' index, so the same
evidence and the same pyarrow write the same bytes.
"""

from __future__ import annotations

import io
import json
from typing import Any

__all__ = ["frame_parquet"]


def _json_text(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return value


def frame_parquet(frame: Any, json_columns: list[str]) -> bytes:
    """``frame`` as Parquet bytes, its ``json_columns`` as JSON text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = frame.copy()
    for name in json_columns:
        if name in frame.columns:
            frame[name] = frame[name].map(_json_text).astype("string")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()
