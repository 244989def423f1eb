"""History at a million runs on PostgreSQL: trigram indexes for the search, a covering index for deep pages.

PostgreSQL only; SQLite (and any other database) is left as it is.

* The history search (``annotations.history.filters.filter_sessions``, parameter ``q``) is ``icontains``
  on ``description``, ``final_annotation`` and ``machine_annotation``, which Django writes on PostgreSQL as
  ``UPPER("col"::text) LIKE UPPER('%q%')``. A trigram index on the plain column is never used for that, so
  each index is on the same expression, ``UPPER(col::text)``, with ``gin_trgm_ops`` (pg_trgm).
* Deep pages run ``SELECT id ... ORDER BY created_at DESC OFFSET n``: an index on ``(created_at DESC, id)``
  answers that from the index alone (an index-only scan) instead of visiting the table for every row skipped.

The indexes are built ``CONCURRENTLY`` (so the migration is not atomic): on a large live history the build
takes minutes, and a plain ``CREATE INDEX`` would hold up every new run for that long. A build that failed
half-way leaves an invalid index behind; it is dropped and built again. Reversing drops the indexes and
keeps the pg_trgm extension (something else may use it; it costs nothing unused).
"""

from django.db import migrations

TABLE = "annotations_annotationsession"

# Exactly the columns filter_sessions searches with icontains.
SEARCHED_COLUMNS = ("description", "final_annotation", "machine_annotation")

INDEXES = {
    **{f"session_{column}_trgm_idx": f"USING gin ((UPPER({column}::text)) gin_trgm_ops)"
       for column in SEARCHED_COLUMNS},
    "session_created_id_idx": "(created_at DESC, id)",
}


def _on_postgresql(schema_editor) -> bool:
    return schema_editor.connection.vendor == "postgresql"


def create_indexes(apps, schema_editor) -> None:
    if not _on_postgresql(schema_editor):
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for name, definition in INDEXES.items():
            cursor.execute("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                           "WHERE c.relname = %s", [name])
            found = cursor.fetchone()
            if found and found[0]:
                continue
            if found:  # left invalid by an interrupted concurrent build
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
            cursor.execute(f"CREATE INDEX CONCURRENTLY {name} ON {TABLE} {definition}")


def drop_indexes(apps, schema_editor) -> None:
    if not _on_postgresql(schema_editor):
        return
    with schema_editor.connection.cursor() as cursor:
        for name in INDEXES:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction.
    atomic = False

    dependencies = [
        ("annotations", "0006_drop_bids_assignment"),
    ]

    operations = [
        migrations.RunPython(create_indexes, drop_indexes, elidable=False),
    ]
