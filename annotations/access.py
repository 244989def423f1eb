"""Who may see or act on what: every access rule of the portal, in one place.

Rights are Django permissions (``Meta.permissions`` of the models). Reviewers are the members of the
reviewers group, which holds every permission below: migration 0009 gives them to it, and
:func:`ensure_reviewers_group` creates the group with them on a database that has none (a new or a
flushed one). Staff and superusers hold every right; an administrator may also grant one permission to a
single user or to another group in the admin. ``user.has_perm`` answers from the user's permissions, which
:class:`PermissionBackend` loads in one query and keeps on the user object for its request or socket.

Views, the API's permission class, the consumers and the template tags only ask the functions here.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from annotations.errors import Forbidden
from annotations.models import AnnotationSession, DatasetProject, SessionStatus

REVIEWER_GROUP = "reviewers"

# The permissions, as ``user.has_perm`` names them.
VIEW_ALL_SESSIONS = "annotations.view_all_sessions"  # everyone's runs: history, run pages, exports, sockets
REVIEW_SESSION = "annotations.review_session"  # rate, judge and correct runs; the review queue
VIEW_ALL_PROJECTS = "annotations.view_all_projects"  # everyone's dataset projects
REVIEWER_PERMISSIONS = (VIEW_ALL_SESSIONS, REVIEW_SESSION, VIEW_ALL_PROJECTS)

# Sessions a reviewer can judge (and their owner ask a review of): the run ended with an annotation.
REVIEWABLE_STATUSES = (SessionStatus.SUCCEEDED, SessionStatus.INVALID)


def signed_in(user: Any) -> bool:
    return user is not None and user.is_authenticated


def _granted(user: Any, permission: str) -> bool:
    """Staff and superusers hold every right; anyone else needs *permission* (through a group or their own)."""
    return signed_in(user) and bool(user.is_staff or user.is_superuser or user.has_perm(permission))


def owns(user: Any, session: AnnotationSession) -> bool:
    """*user* started *session* (a run without an owner belongs to nobody)."""
    return signed_in(user) and session.user_id is not None and session.user_id == user.pk


# --- seeing -----------------------------------------------------------------------------------


def can_see_all(user: Any) -> bool:
    """Reviewers and staff see everyone's runs (and the owner filter, and the reviewers' links)."""
    return _granted(user, VIEW_ALL_SESSIONS)


def may_see(user: Any, session: AnnotationSession) -> bool:
    """A run is seen by its owner and by those who see all (``selectors.visible_sessions`` as a query). A run of
    a project's level is the project owner's (:func:`level_run_owner`), whoever started it."""
    return owns(user, session) or can_see_all(user)


def can_see_all_projects(user: Any) -> bool:
    """Reviewers and staff see every dataset project (``datasets.selectors.visible_projects``)."""
    return _granted(user, VIEW_ALL_PROJECTS)


# --- acting -----------------------------------------------------------------------------------


def can_review(user: Any) -> bool:
    """Reviewers and staff rate, judge and correct annotations, and work through the review queue."""
    return _granted(user, REVIEW_SESSION)


def can_place_in_dataset(user: Any, session: AnnotationSession) -> bool:
    """The session's owner knows which event it describes; reviewers may place it too."""
    return can_review(user) or owns(user, session)


def may_request_review(user: Any, session: AnnotationSession) -> bool:
    """The owner of a finished run with an annotation may ask reviewers to look at it."""
    return owns(user, session) and session.status in REVIEWABLE_STATUSES


def may_cancel(user: Any, session: AnnotationSession) -> bool:
    """Reviewers may watch anyone's run, but only its owner (or staff) may stop it, while it runs."""
    return not session.is_finished and (session.user_id == user.pk or user.is_staff)


# --- dataset projects: reviewers see and review; only the owner (and staff) change or run them ---------

EDIT_PROJECT_REFUSED = ("Only the owner of this dataset project can change its descriptions and columns, answer "
                        "its questions or start its runs; reviewers rate, accept and correct its annotations.")


def can_edit_project(user: Any, project: DatasetProject) -> bool:
    """The owner (and staff) edit the inventory, answer questions and start jobs. Seeing every project
    (``can_see_all_projects``) is not editing it: a reviewer's edits and runs would land in someone else's work."""
    if not signed_in(user):
        return False
    return bool(user.is_staff or user.is_superuser) or (project.user_id is not None and project.user_id == user.pk)


def can_correct_level(user: Any, project: DatasetProject) -> bool:
    """A level's annotation is corrected on its page by the project's owner (the lab fixes the error where it is)
    and by reviewers, who correct any run."""
    return can_review(user) or can_edit_project(user, project)


def check_edit_project(user: Any, project: DatasetProject) -> None:
    """Raise :class:`Forbidden` (403) unless *user* may edit *project*. ``None`` is the command line, which
    acts for the owner (it reads the database directly anyway)."""
    if user is not None and not can_edit_project(user, project):
        raise Forbidden(EDIT_PROJECT_REFUSED)


def project_of_run(session: AnnotationSession) -> DatasetProject | None:
    """The project whose level *session* annotates (one query), or None for a run of its own."""
    if session.dataset_level_id is None:
        return None
    return DatasetProject.objects.filter(tasks__columns__levels=session.dataset_level_id).first()


def can_rerun(user: Any, session: AnnotationSession) -> bool:
    """Anyone who sees a run may re-run it as a run of their own, except a run of a project's level: that
    starts a run of the project, which only its owner (and staff) may (:func:`can_edit_project`)."""
    project = project_of_run(session)
    return signed_in(user) and (project is None or can_edit_project(user, project))


def level_run_owner(user: Any, project: DatasetProject) -> Any:
    """Whose a run of *project*'s level is: its owner's, whoever started it, so she sees and reviews every run
    of her project; a project without an owner (imported on the command line) gives it to the starter."""
    if project.user_id is not None:
        return project.user
    return user if signed_in(user) else None


# --- the machinery: the group's permissions, and answering has_perm in one query ---------------


def ensure_reviewers_group(using: str = "default", **kwargs: Any) -> None:
    """``post_migrate``: a database without the reviewers group (new, or flushed) gets it with its
    permissions. A group that exists is left as its administrators made it."""
    group, created = Group.objects.using(using).get_or_create(name=REVIEWER_GROUP)
    if created:
        codenames = [name.partition(".")[2] for name in REVIEWER_PERMISSIONS]
        group.permissions.set(Permission.objects.using(using).filter(content_type__app_label="annotations",
                                                                     codename__in=codenames))


class PermissionBackend(ModelBackend):
    """Django's ``ModelBackend`` answering ``has_perm`` (a user's own and their groups' permissions) from one
    query instead of two. It logs no one in: ``ModelBackend``, listed after it, still does, so the logins
    stored in sessions keep naming that backend.

    The set is kept where ``ModelBackend`` keeps it (``user._perm_cache``): asked several times per page (the
    view, its queryset, the menu), or by ``ModelBackend`` after this backend said no, it is not read again.
    """

    def authenticate(self, request: Any, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> None:
        return None

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if user_obj.is_superuser or hasattr(user_obj, "_perm_cache"):
            return super().get_all_permissions(user_obj, obj)
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        rows = (Permission.objects.filter(Q(user=user_obj) | Q(group__user=user_obj))
                .values_list("content_type__app_label", "codename").order_by().distinct())
        user_obj._perm_cache = {f"{app}.{codename}" for app, codename in rows}
        return user_obj._perm_cache
