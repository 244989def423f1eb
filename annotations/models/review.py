"""What reviewers say of a run: ratings with verdicts, and corrections kept as revisions."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotations.models.runs import AnnotationSession


class Verdict(models.TextChoices):
    ACCEPT = "accept", "Accept"
    NEEDS_FIX = "needs-fix", "Needs fix"
    REJECT = "reject", "Reject"


class Review(models.Model):
    session = models.ForeignKey(AnnotationSession, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews")
    rating = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(5)])
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["session", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["session", "reviewer"], name="review_one_per_reviewer"),
            models.CheckConstraint(condition=models.Q(rating__gte=1, rating__lte=5), name="review_rating_1_5"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer}: {self.rating}/5 {self.verdict}"


class Revision(models.Model):
    """A human correction of a session's annotation."""

    session = models.ForeignKey(AnnotationSession, on_delete=models.CASCADE, related_name="revisions")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="revisions")
    before = models.TextField(blank=True)
    after = models.TextField()
    is_valid = models.BooleanField()
    issues = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    # A draft (at most one per author and session) keeps unfinished work, valid or not; it never
    # becomes the final annotation until it is saved for real, which turns it into a revision.
    is_draft = models.BooleanField(default=False)
    # Whether the author held the review permission when writing it: only then may the portal's memory hand the
    # text to other users. Decided once, at writing (a project's owner also corrects her own levels).
    by_reviewer = models.BooleanField(default=False, help_text="The author held the review permission when saving "
                                                               "it: other users' runs may reuse it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "created_at"]

    def __str__(self) -> str:
        return f"{self.author} at {self.created_at:%Y-%m-%d %H:%M}"
