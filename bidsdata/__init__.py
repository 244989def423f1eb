"""The pure core of dataset projects: read a BIDS upload, inventory its events, build and validate sidecars.

No Django here, so every module can be tested alone:

- :mod:`.archive`: read a zip, a folder or uploaded files safely into :class:`~.archive.DatasetFiles`.
- :mod:`.inventory`: HED version, tasks, columns, levels and existing HED of a dataset.
- :mod:`.pipeline`: one task's sidecar from its inventory and annotations -- composed, built, validated,
  the floor kept, its quality figures -- in one call (:func:`~.pipeline.sidecar_for_task`).
- :mod:`.composition`: the levels' annotations composed as a curator writes a sidecar, pass by pass.
- :mod:`.sidecar`: build a task's ``events.json``, validate it with every events file, export it.
- :mod:`.issues`: hedtools' issues mapped back to the sidecar entry, file, row and level.
- :mod:`.value_templates`: propose a ``#`` template for a value column.
"""

from bidsdata.archive import DatasetError, DatasetFiles, read_folder, read_uploads, read_zip

__all__ = ["DatasetError", "DatasetFiles", "read_folder", "read_uploads", "read_zip"]
