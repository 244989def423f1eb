"""The pure core of dataset projects: read a BIDS upload, inventory its events, build and validate sidecars.

No Django here, so every module can be tested alone:

- :mod:`.archive`: read a zip, a folder or uploaded files safely into :class:`~.archive.DatasetFiles`.
- :mod:`.inventory`: HED version, tasks, columns, levels and existing HED of a dataset.
- :mod:`.sidecar`: build a task's ``events.json``, validate it with every events file, export it.
- :mod:`.value_templates`: propose a ``#`` template for a value column.
"""

from bidsdata.archive import DatasetError, DatasetFiles, read_folder, read_uploads, read_zip

__all__ = ["DatasetError", "DatasetFiles", "read_folder", "read_uploads", "read_zip"]
