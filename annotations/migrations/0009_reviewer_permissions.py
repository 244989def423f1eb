"""Access on Django's permissions: the models declare them, and the reviewers group is given them.

The rules that ask them live in ``annotations.access``; this migration names the group and the permissions
itself, as they are today, so it stays what it is whatever that module becomes. It creates the group when a
database has none yet, and the content types and permissions it needs when they do not exist yet (on a new
database Django creates them only after all migrations have run). Reversing takes the permissions back
from the group and leaves the group (and its members) as they are.
"""

from django.db import migrations

GROUP = "reviewers"
PERMISSIONS = {
    "annotationsession": [("view_all_sessions", "Can see every user's runs"),
                          ("review_session", "Can rate, judge and correct runs")],
    "datasetproject": [("view_all_projects", "Can see every user's dataset projects")],
}


def _permissions(apps):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    found = []
    for model, permissions in PERMISSIONS.items():
        content_type, _ = ContentType.objects.get_or_create(app_label="annotations", model=model)
        for codename, name in permissions:
            permission, _ = Permission.objects.get_or_create(content_type=content_type, codename=codename,
                                                             defaults={"name": name})
            found.append(permission)
    return found


def grant(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    group, _ = Group.objects.get_or_create(name=GROUP)
    group.permissions.add(*_permissions(apps))


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        group.permissions.remove(*_permissions(apps))


class Migration(migrations.Migration):

    dependencies = [
        ("annotations", "0008_dataset_files_compressed"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="annotationsession",
            options={
                "ordering": ["-created_at"],
                "permissions": [
                    ("view_all_sessions", "Can see every user's runs"),
                    ("review_session", "Can rate, judge and correct runs"),
                ],
            },
        ),
        migrations.AlterModelOptions(
            name="datasetproject",
            options={
                "ordering": ("-created_at",),
                "permissions": [("view_all_projects", "Can see every user's dataset projects")],
            },
        ),
        migrations.RunPython(grant, revoke),
    ]
