"""Events TSVs read the way hedtools reads them, in one bounded pass.

hedtools reads events with pandas (tab separated, no quoting, empty lines skipped). :func:`scan` checks a
file against the same rules, so anything it accepts hedtools can read later, and in that one pass collects
what the inventory needs: the header, the row count, and per column its value counts (at most
``max_distinct_values`` of them) and first distinct values as samples. It walks the text line by line
without copying it, so memory stays near the size of the text itself whatever the row count.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from agents.hedstring import MAX_GROUP_DEPTH
from bidsdata.errors import DatasetError
from bidsdata.limits import LimitExceeded, UploadLimits
from bidsdata.numbers import is_number
from bidsdata.shapes import check_depth

logger = logging.getLogger(__name__)

SKIP_COLUMNS = ("onset", "duration", "sample", "HED", "HED_assembled")
"""Columns that never get HED per value: timing and sample positions, and HED columns themselves."""
NA_VALUES = frozenset({"n/a", ""})
SAMPLES = 50
"""Distinct values kept per column as samples (value templates are proposed from them)."""
_BLOCK = 64 * 1024  # characters split per batch: Counter.update then runs in C over a whole column slice


@dataclass
class ColumnScan:
    """One column of one file: its value counts (n/a left out) and whether there were more to count.

    ``counter`` stays true while every value read is a whole number one more than the one before (a trial
    or event counter: 1, 2, 3...); ``counted`` is how many values that run holds.
    """

    counts: Counter[str] = field(default_factory=Counter)
    overflow: bool = False
    counter: bool = True
    counted: int = 0
    _last: int | None = field(default=None, repr=False)

    def add(self, values: list[str], limit: int) -> None:
        if self.counter:
            self._follow(values)
        if self.overflow:
            # Past the limit only values already seen are counted: a new one would grow without bound.
            self.counts.update(filter(self.counts.__contains__, values))
            return
        self.counts.update(values)
        for na in NA_VALUES:
            self.counts.pop(na, None)
        if len(self.counts) > limit:
            self.overflow = True
            kept = dict(list(self.counts.items())[:limit])
            self.counts = Counter(kept)

    def _follow(self, values: list[str]) -> None:
        """Whether *values* go on counting up by one (converted and compared in C, a block at a time)."""
        if not values:
            return
        try:
            numbers = list(map(int, values))
        except ValueError:  # n/a, a fraction or text: no counter
            self.counter = False
            return
        start = numbers[0] if self._last is None else self._last + 1
        if numbers != list(range(start, start + len(numbers))):
            self.counter = False
            return
        self._last = numbers[-1]
        self.counted += len(numbers)


@dataclass
class TableScan:
    """What one pass over an events file found."""

    header: list[str]
    rows: int = 0
    columns: dict[str, ColumnScan] = field(default_factory=dict)
    untimed_rows: int = 0
    """Rows whose ``onset`` is ``n/a`` or empty: not placed in time (a behavioural table, for instance)."""
    repeated_rows: int = 0
    """Rows equal in every cell to an earlier row at the same onset: one event written twice (:func:`by_onset`)."""
    first_repeat: str | None = None
    """The onset of the first such row."""

    def samples(self, column: str, limit: int = SAMPLES) -> list[str]:
        found = self.columns.get(column)
        return list(found.counts)[:limit] if found else []


def normalise_newlines(text: str) -> str:
    """Bare carriage returns (old Mac files) and CRLF read as one newline, as pandas reads them."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) of *text*, a block of about :data:`_BLOCK` characters at a time: whole
    lines split in C, with only one block's copy alive at once."""
    start, end, number = 0, len(text), 1
    while start < end:
        stop = text.rfind("\n", start, start + _BLOCK) if start + _BLOCK < end else end
        if stop < start:  # one line longer than a block
            stop = text.find("\n", start + _BLOCK)
            stop = end if stop < 0 else stop
        lines = text[start:stop].split("\n")
        yield number, lines
        number += len(lines)
        start = stop + 1


def _is_row(line: str) -> bool:
    # pandas skips lines holding only spaces; a line with a tab is a row, however empty its cells.
    return "\t" in line or bool(line.strip())


def _records(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every line pandas would read as a row.

    With no quoting in BIDS TSV (a quote is an ordinary character) a row is its line split at tabs.
    """
    for first, lines in _blocks(text):
        for offset, line in enumerate(lines):
            if _is_row(line):
                yield first + offset, line.split("\t")


def rows(text: str) -> Iterator[list[str]]:
    """The rows of a checked TSV, header first, as hedtools reads them."""
    for _, cells in _records(text):
        yield cells


def table(text: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of an events file exactly as hedtools' ``TabularInput`` holds them.

    hedtools reads with pandas (tab separated, ``quoting=QUOTE_NONE``, ``dtype=str``, ``keep_default_na=False``,
    ``na_values=("", "n/a")``, then ``fillna("n/a")``): a quote is an ordinary character, ``NaN``, ``N/A`` or
    ``NULL`` are values, only an empty cell becomes ``n/a``; a short row is filled with ``n/a`` and a long
    one loses its extra cells. Every part of the job that looks at rows reads them here, so a cell means the
    same thing to the inventory, the composer, the assembly and the validator.
    """
    found = rows(text)
    header = next(found, [])
    width = len(header)
    body = []
    for cells in found:
        cells = [cell or "n/a" for cell in cells[:width]]
        if len(cells) < width:
            cells += ["n/a"] * (width - len(cells))
        body.append(cells)
    return header, body


def records(text: str) -> list[dict[str, str]]:
    """The rows of :func:`table` as dicts column -> cell (the header's names, exactly as written)."""
    header, body = table(text)
    return [dict(zip(header, cells, strict=True)) for cells in body]


Rows = tuple[dict[str, str], ...]
"""An events file's rows as :func:`read` shares them: read them, never change them."""
READ_BUDGET = 4_000_000
"""Characters of events text whose rows :func:`read` keeps. One task's files are read by several passes of one
pipeline call (the composer, the assembly, the onset repeats); kept rows are several times their text's
size, so the budget, not a count of files, bounds the memory."""
_read_lock = threading.Lock()
_read_rows: OrderedDict[str, Rows] = OrderedDict()  # text -> its rows, least recently read first
_read_size = 0


def read(text: str) -> Rows:
    """The rows of :func:`records`, parsed once while *text* is among the last :data:`READ_BUDGET` characters
    read: the passes of one pipeline call over the same files share one parse.

    The rows are shared by every caller that reads the same text, so no caller may change them (a tuple, so
    none can add or drop one); :func:`records` gives a list of one's own. A text over the budget is parsed
    every time and not kept.
    """
    global _read_size
    with _read_lock:
        found = _read_rows.get(text)
        if found is not None:
            _read_rows.move_to_end(text)
            return found
    parsed: Rows = tuple(records(text))
    if len(text) > READ_BUDGET:
        logger.debug("events text of %d characters read without keeping its rows", len(text))
        return parsed
    with _read_lock:
        if text not in _read_rows:  # another thread may have parsed it meanwhile: its rows are these
            _read_rows[text] = parsed
            _read_size += len(text)
            while _read_size > READ_BUDGET:
                oldest, _ = _read_rows.popitem(last=False)
                _read_size -= len(oldest)
    return parsed


def is_na(cell: str | None) -> bool:
    """Whether hedtools reads *cell* as missing (only empty and ``n/a``; ``None``: the row has no such column)."""
    return cell is None or cell in NA_VALUES


def onset_value(cell: str | None) -> float | None:
    """An onset as hedtools compares onsets (``pd.to_numeric`` of the stripped text): ``None`` when it is not
    a finite number (``n/a``, text), so that row is an event of its own. ``1``, ``1.0`` and ``1.000`` are one
    instant."""
    text = (cell or "").strip()
    if not text or "_" in text:  # Python's float reads "1_0"; pandas does not
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


ONSET_TOLERANCE = 1e-9
"""Onsets closer than this are one instant, as hedtools' ``df_util.filter_series_by_onset`` compares them."""


def same_onset(a: str | None, b: str | None) -> bool:
    """Whether two onset cells name one instant (both numbers, :data:`ONSET_TOLERANCE` apart at most)."""
    first, second = onset_value(a), onset_value(b)
    return first is not None and second is not None and abs(first - second) <= ONSET_TOLERANCE


def onset_groups(onsets: Sequence[str | None]) -> list[list[int]]:
    """The row indices hedtools merges into one event, the one rule of "rows grouped by onset": rows of one
    file whose onset is the current one (by value, so ``1.0`` and ``1.000`` are one event; within
    :data:`ONSET_TOLERANCE`), as ``hed.models.df_util.filter_series_by_onset`` groups them; a row whose onset
    is no number stands alone. Groups in the order of their first row, indices in file order."""
    groups: dict[float | str, list[int]] = {}
    current: float | None = None
    for index, cell in enumerate(onsets):
        onset = onset_value(cell)
        if onset is None:
            groups[f"row {index}"] = [index]
            continue
        if current is None or abs(onset - current) > ONSET_TOLERANCE:
            current = onset
        groups.setdefault(current, []).append(index)
    return list(groups.values())


def by_onset(rows_: Sequence[dict[str, str]], *, once: bool = False) -> list[list[dict[str, str]]]:
    """The rows hedtools merges into one event (:func:`onset_groups`), each group in file order; with *once*, a
    row equal in every column to an earlier row of its event read once (see :func:`glitch_lines`)."""
    groups = [[rows_[i] for i in group] for group in onset_groups([row.get("onset") for row in rows_])]
    return [_once(group) if once and len(group) > 1 else group for group in groups]


def _once(group: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: set[tuple[tuple[str, str], ...]] = set()
    kept: list[dict[str, str]] = []
    for row in group:
        key = tuple(row.items())
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


GLITCH_SHARE = 0.01
"""The share of a task's rows at or under which what hedtools refuses in the events' own timing is the
recording's glitch, not the data's way: rows written twice at one onset (:func:`glitch_lines`), a start dumped
with its end at one instant (``composition.valid``). The levels keep their meaning there; above it, the data
means it, and the floor leaves such levels out as hedtools asks."""


def glitch_lines(events: Mapping[str, str]) -> set[tuple[str, int]]:
    """(path, file line) of every row of an event that holds one row twice, when such rows are at most
    :data:`GLITCH_SHARE` of the task's rows: one event written twice (a recording that dumps its codes again).
    No sidecar can make that event valid (hedtools refuses any HED said twice in one event), so what a level
    means is decided on the events as they were (:func:`by_onset` with ``once``). Empty when more are."""
    faulty = {(path, line) for path, text in events.items() for line in repeated_event_lines(text)}
    rows_ = sum(len(read(text)) for text in events.values()) if faulty else 0
    return faulty if len(faulty) <= GLITCH_SHARE * rows_ else set()


@functools.lru_cache(maxsize=32)  # asked by every pass of one pipeline call over the same texts
def repeated_event_lines(text: str) -> tuple[int, ...]:
    """The file lines (the header being line 1, as hedtools counts them) of every row of an event that holds
    one row twice (see :func:`by_onset`): hedtools refuses such an event whatever the sidecar says."""
    rows_ = read(text)
    return tuple(index + 2 for group in onset_groups([row.get("onset") for row in rows_]) if len(group) > 1
            and len(_once([rows_[i] for i in group])) < len(group) for index in group)


def scan(text: str, path: str, limits: UploadLimits, *, rows_so_far: int = 0) -> TableScan:
    """Check *text* as an events file and count its columns' values in one pass.

    Raises:
        DatasetError: no header, no ``onset`` column, empty or repeated column names, a row whose field
            count differs from the header's.
        LimitExceeded: more columns than ``max_columns`` (before any row is read), or more rows than
            ``max_rows`` with *rows_so_far* counted already.
    """
    if "\x00" in text:
        raise DatasetError(f"NUL character at offset {text.index(chr(0)):,} (not a text file)", path=path)
    blocks = _blocks(text)
    header: list[str] | None = None
    head: tuple[int, list[str]] = (1, [])
    for head in blocks:
        at = next((i for i, line in enumerate(head[1]) if _is_row(line)), None)
        if at is not None:
            # Counted before split: a header of millions of tabs must not become millions of strings first.
            if head[1][at].count("\t") >= limits.max_columns:
                raise LimitExceeded(f"{head[1][at].count(chr(9)) + 1:,} columns", "max_columns", limits.max_columns,
                                    path=path)
            header = head[1][at].split("\t")  # exactly as hedtools names the columns: nothing trimmed
            head[1][: at + 1] = [""] * (at + 1)  # blank: the rows loop below skips them
            break
    if header is None:
        raise DatasetError("empty TSV: no header row", path=path)
    _check_header(header, path, limits)
    result = TableScan(header=header)
    counted = [(i, name) for i, name in enumerate(header) if name not in SKIP_COLUMNS]
    result.columns = {name: ColumnScan() for _, name in counted}
    tabs = len(header) - 1
    onset = header.index("onset")
    hed = header.index("HED") if "HED" in header else None
    event: tuple[str, set[str]] = ("", set())  # the current onset's rows, as written: a repeat is found at once
    for first, lines in itertools.chain([head], blocks):
        kept = [line for line in lines if _is_row(line)]
        if any(line.count("\t") != tabs for line in kept):
            number, line = next((first + i, line) for i, line in enumerate(lines)
                                if _is_row(line) and line.count("\t") != tabs)
            raise DatasetError(f"line {number} has {line.count(chr(9)) + 1} fields, the header has {tabs + 1}",
                               path=path)
        batch = [line.split("\t") for line in kept]
        if hed is not None:
            _check_hed_cells(batch, hed, onset, path)
        _count(result, counted, batch, limits, rows_so_far, path)
        result.untimed_rows += sum(1 for cells in batch if cells[onset] in NA_VALUES)
        for cells, line in zip(batch, kept, strict=True):
            if cells[onset] != event[0]:
                event = (cells[onset], set())
            elif line in event[1] and cells[onset] not in NA_VALUES:
                result.repeated_rows += 1
                result.first_repeat = result.first_repeat or cells[onset]
            event[1].add(line)
    return result


def _check_hed_cells(batch: list[list[str]], index: int, onset: int, path: str) -> None:
    """The HED column's cells, nested no deeper than hedtools can read (:func:`.shapes.check_depth`); only a
    cell with more opening parentheses than the limit can nest past it, so the others cost one count."""
    for cells in batch:
        if cells[index].count("(") > MAX_GROUP_DEPTH:
            check_depth(cells[index], f"the row at onset {cells[onset]!r}, column 'HED'", path)


def _check_header(header: list[str], path: str, limits: UploadLimits) -> None:
    if len(header) > limits.max_columns:
        raise LimitExceeded(f"{len(header):,} columns", "max_columns", limits.max_columns, path=path)
    if "onset" not in header:
        if _looks_like_data(header):
            raise DatasetError("no header row (line 1 holds numbers; it must name the columns, 'onset' among "
                               "them)", path=path)
        named = f"line 1 names {', '.join(header[:8])}{'...' if len(header) > 8 else ''}"
        near = next((h for h in header if h.strip().lower() == "onset"), None)
        if near is not None:
            raise DatasetError(f"no 'onset' column ({named}): write {near!r} as 'onset', in lower case, as BIDS "
                               "names it", path=path)
        raise DatasetError(f"no 'onset' column ({named}); BIDS events files start with onset, each event's time "
                           "in seconds", path=path)
    if any(not h.strip() for h in header):
        at = next(i for i, h in enumerate(header) if not h.strip())
        raise DatasetError(f"column {at + 1} has no name in the header (line 1): name it, or remove the column "
                           "(a header line ending in a tab has an empty last name)", path=path)
    padded = next((h for h in header if h != h.strip()), None)
    if padded is not None:
        # hedtools matches column names exactly and reports padded ones (TABULAR_INVALID): the lab fixes the file.
        raise DatasetError(f"column name {padded!r} has spaces around it in the header (line 1): write it as "
                           f"{padded.strip()!r}", path=path)
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise DatasetError(f"repeated column name(s) {', '.join(dupes)} in header (line 1)", path=path)


def _looks_like_data(cells: list[str]) -> bool:
    """Whether a first line is a row of events rather than column names: it holds ``n/a`` or a fraction (no
    column is named so), or numbers in at least half its cells. A header with one number among names
    ("trial, cue, 500") is a header."""
    numbers = [c for c in cells if is_number(c)]
    return "n/a" in cells or any("." in c for c in numbers) or 2 * len(numbers) >= len(cells)


def _count(result: TableScan, counted: list[tuple[int, str]], batch: list[list[str]], limits: UploadLimits,
           rows_so_far: int, path: str) -> None:
    result.rows += len(batch)
    if rows_so_far + result.rows > limits.max_rows:
        raise LimitExceeded(f"over {limits.max_rows:,} events rows", "max_rows", limits.max_rows, path=path)
    for index, name in counted:
        result.columns[name].add(list(map(itemgetter(index), batch)), limits.max_distinct_values)
