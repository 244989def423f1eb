from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0014_schema_version_lists"),
    ]

    operations = [
        migrations.AddField(
            model_name="datasetproject",
            name="reuse_memory",
            field=models.BooleanField(
                default=True,
                help_text="Whether the levels' runs may start from reviewed annotations of other runs (another "
                          "project's corrections included).",
            ),
        ),
    ]
