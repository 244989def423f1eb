"""hedtools' ``Delay`` split without growing a DataFrame one row at a time.

Validating events whose HED holds ``Delay/...`` runs hedtools' ``df_util.split_delay_tags``, which adds
each delayed group to a DataFrame with ``.loc[new_index] = row``: pandas copies the frame on every
added row, so the cost grows with the square of the rows (half of a 400-file dataset's validation
time). :func:`split_delay_tags` is the same function with the new rows gathered and added in one
``concat``; its frames are equal to hedtools' own (tests compare them), so the issues reported do not
change. :func:`install` puts it in hedtools' place for the validators that call it.
"""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd
from hed.errors.exceptions import HedFileError
from hed.models import df_util
from hed.models.hed_string import HedString
from hed.models.model_constants import DefTagNames

logger = logging.getLogger(__name__)
_ORIGINAL = df_util.split_delay_tags


def split_delay_tags(series: pd.Series | None, hed_schema: Any, onsets: pd.Series | None) -> pd.DataFrame | None:
    """``hed.models.df_util.split_delay_tags`` with the delayed rows added at once (same result)."""
    if series is None or onsets is None:
        return None
    split_df = pd.DataFrame({"onset": onsets, "HED": series, "original_index": series.index})
    added: list[dict[str, Any]] = []
    remaining: dict[Any, str] = {}
    for i, hed_string in series.items():
        if "delay/" not in hed_string.casefold():
            continue
        delay_string = HedString(hed_string, hed_schema)
        to_remove = []
        for tag, group in delay_string.find_top_level_tags({DefTagNames.DELAY_KEY}):
            delay = tag.value_as_default_unit()
            if delay is None:
                raise HedFileError(
                    "DelayNotConvertible",
                    f"Delay tag '{tag}' at index {i} of the data cannot be converted to default units (non-numeric "
                    f"value, invalid unit, or a unit with no conversionFactor), so the delayed onset cannot be "
                    f"computed.", "")
            to_remove.append(group)
            added.append({"HED": str(group), "onset": delay + float(onsets[i]), "original_index": i})
        delay_string.remove(to_remove)
        remaining[i] = str(delay_string)
    if remaining:  # one assignment, not one ``.at`` per delayed row
        split_df.loc[list(remaining), "HED"] = list(remaining.values())
    if added:
        start = split_df.index.max() + 1
        extra = pd.DataFrame(added, index=range(start, start + len(added)), columns=["HED", "onset", "original_index"])
        split_df = pd.concat([split_df, extra[split_df.columns]])
    split_df = df_util.sort_dataframe_by_onsets(split_df).reset_index(drop=True)
    return filter_by_onset(split_df)


def filter_by_onset(frame: pd.DataFrame) -> pd.DataFrame:
    """``df_util.filter_series_by_onset(frame, frame.onset)`` with the joined HED gathered in a list.

    hedtools writes each event's joined HED with ``Series.iloc[...] = ...`` and reads each row with
    ``.iloc[i]`` (a third of the Delay split's time); here the same strings are joined from a plain list and
    the column is built once. The groups are hedtools' own (``_indexed_dict_from_onsets``), so the frame is
    equal to its own (tests compare them)."""
    groups = df_util._indexed_dict_from_onsets(pd.to_numeric(frame.onset, errors="coerce"))
    column = frame["HED"]
    values = column.tolist()
    joined = [""] * len(values)
    for indices in groups.values():
        if indices:
            joined[indices[0]] = ",".join([str(values[i]) for i in indices])
    result = frame.copy()
    result["HED"] = pd.Series(joined, dtype=column.dtype)
    return result


def install() -> None:
    """Make hedtools' validators (which call ``df_util.split_delay_tags``) use :func:`split_delay_tags`."""
    if df_util.split_delay_tags is not split_delay_tags:
        df_util.split_delay_tags = split_delay_tags
        logger.debug("hedtools' Delay split replaced by the one that adds rows at once")


def original() -> Any:
    """hedtools' own function (for comparisons)."""
    return _ORIGINAL
