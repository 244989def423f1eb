"""Dataset files are stored compressed: a fraction of the disk, and of the memory a store costs."""

from django.db import migrations, models

import annotations.models.fields


def compress_texts(apps, schema_editor):
    DatasetFile = apps.get_model("annotations", "DatasetFile")
    for pk, text in DatasetFile.objects.values_list("pk", "text").iterator(chunk_size=50):
        DatasetFile.objects.filter(pk=pk).update(content=text)


def expand_texts(apps, schema_editor):
    DatasetFile = apps.get_model("annotations", "DatasetFile")
    for pk, text in DatasetFile.objects.values_list("pk", "content").iterator(chunk_size=50):
        DatasetFile.objects.filter(pk=pk).update(text=text)


class Migration(migrations.Migration):

    dependencies = [
        ("annotations", "0007_history_search_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="datasetfile",
            name="content",
            field=annotations.models.fields.CompressedTextField(default=b""),
            preserve_default=False,
        ),
        migrations.RunPython(compress_texts, expand_texts),
        # A default only so that reversing can add the plain column back to rows that exist.
        migrations.AlterField(model_name="datasetfile", name="text", field=models.TextField(default="")),
        migrations.RemoveField(model_name="datasetfile", name="text"),
        migrations.RenameField(model_name="datasetfile", old_name="content", new_name="text"),
    ]
