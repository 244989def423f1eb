"""Using the annotations: HED search, design matrices and tag summaries over a dataset's events, on hedtools.

- :mod:`.queries` -- hedtools' query parser, with the place a malformed query goes wrong;
- :mod:`.sources` -- a task's events files, each with the sidecar BIDS inheritance gives it, and their keys;
- :mod:`.assembly` -- an events file's events as hedtools assembles them (``EventManager``, ``HedTagManager``);
- :mod:`.search` -- queries over the assembled events (the per-process store, counts, pages, rows);
- :mod:`.design` -- design matrices (``HedTypeManager.get_factor_vectors``) and the design summary;
- :mod:`.summary` -- tag counts (``HedTagCounts``) grouped as the HED summary guide groups them;
- :mod:`.workers` -- the search processes, each owning the revisions it assembled;
- :mod:`.task` -- :class:`~.task.TaskEvents`, the one object the commands, pages and API ask.

Pure: no Django.
"""

from bidsdata.usage.assembly import Options
from bidsdata.usage.queries import MAX_QUERY_CHARS, QueryCheck, QueryError, check_query
from bidsdata.usage.sources import EventsSource
from bidsdata.usage.task import TaskEvents

__all__ = ["MAX_QUERY_CHARS", "EventsSource", "Options", "QueryCheck", "QueryError", "TaskEvents", "check_query"]
