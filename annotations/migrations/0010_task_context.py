"""A task keeps what the dataset says of it (README, TaskName, TaskDescription, Instructions) for the annotator,
and notes on its events files (rows without an onset)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotations", "0009_reviewer_permissions"),
    ]

    operations = [
        migrations.AddField(
            model_name="datasettask",
            name="context",
            field=models.JSONField(blank=True, default=dict, help_text="What the dataset says of the task, for the "
                                   "annotator: readme, task_name, task_description, instructions (bidsdata.context)."),
        ),
        migrations.AddField(
            model_name="datasettask",
            name="notes",
            field=models.JSONField(blank=True, default=list, help_text="Notes on its events files: [{path, message}]."),
        ),
    ]
