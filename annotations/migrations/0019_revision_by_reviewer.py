"""Revisions say whether a reviewer wrote them: the portal's memory shares only reviewers' corrections (issue 35).

Existing corrections are marked from their author's rights as ``has_perm`` would read them (staff, superuser, or
the review permission held alone or through a group); a project owner's own fixes stay unmarked, so they stop
reaching other users' runs.
"""

from django.db import migrations, models
from django.db.models import Q

REVIEW_PERMISSION = Q(codename="review_session", content_type__app_label="annotations")


def mark_reviewers(apps, schema_editor):
    Revision = apps.get_model("annotations", "Revision")
    Permission = apps.get_model("auth", "Permission")
    permission_ids = list(Permission.objects.filter(REVIEW_PERMISSION).values_list("pk", flat=True))
    # As access._granted reads it: staff and superusers hold every right; others the permission, while active.
    reviewer = Q(author__is_staff=True) | Q(author__is_superuser=True)
    if permission_ids:
        reviewer |= Q(author__is_active=True) & (Q(author__user_permissions__in=permission_ids)
                                                 | Q(author__groups__permissions__in=permission_ids))
    ids = Revision.objects.filter(reviewer).values_list("pk", flat=True).distinct()
    Revision.objects.filter(pk__in=list(ids)).update(by_reviewer=True)


class Migration(migrations.Migration):

    dependencies = [
        ("annotations", "0018_column_by_pattern"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.AddField(
            model_name="revision",
            name="by_reviewer",
            field=models.BooleanField(default=False, help_text="The author held the review permission when saving "
                                                               "it: other users' runs may reuse it."),
        ),
        migrations.RunPython(mark_reviewers, migrations.RunPython.noop),
    ]
