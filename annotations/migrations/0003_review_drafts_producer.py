"""Correction drafts, review requests and the producer of each result.

Also repairs what the old rules allowed: a correction that did not validate became the final
annotation.  Such a revision is turned into a draft and the session falls back to its latest
valid correction, else the machine's annotation, so the validity filter and exports describe
only annotations that really validate.
"""

from django.db import migrations, models

OFFLINE = "offline annotator"


def repair_and_fill(apps, schema_editor):
    Session = apps.get_model("annotations", "AnnotationSession")
    Revision = apps.get_model("annotations", "Revision")
    LLMCallRecord = apps.get_model("annotations", "LLMCallRecord")

    broken = Revision.objects.filter(is_valid=False, is_draft=False).values_list("session_id", flat=True)
    for session in Session.objects.filter(pk__in=set(broken)):
        Revision.objects.filter(session=session, is_valid=False, is_draft=False).update(is_draft=True)
        last_valid = Revision.objects.filter(session=session, is_draft=False).order_by("-created_at", "-id").first()
        if last_valid is not None:
            session.final_annotation, session.is_valid = last_valid.after, True
        else:
            session.final_annotation = session.machine_annotation
            # The workflow's verdict on its own annotation: a run succeeds only with a valid one.
            session.is_valid = {"succeeded": True, "invalid": False}.get(session.status)
        session.save(update_fields=["final_annotation", "is_valid"])

    finished = Session.objects.filter(producer="").exclude(machine_annotation="")
    for session in finished.iterator():
        model = (LLMCallRecord.objects.filter(session=session, agent="annotation").exclude(model="")
                 .order_by("-id").values_list("model", flat=True).first())
        session.producer = model or OFFLINE
        session.save(update_fields=["producer"])


class Migration(migrations.Migration):

    dependencies = [
        ("annotations", "0002_run_lease"),
    ]

    operations = [
        migrations.AddField(
            model_name="annotationsession",
            name="producer",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name="annotationsession",
            name="review_requested_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="revision",
            name="is_draft",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(repair_and_fill, migrations.RunPython.noop),
    ]
