"""Create a first local account so a fresh checkout can log in (DEBUG only)."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandParser

from annotations.access import REVIEWER_GROUP, ensure_reviewers_group


class Command(BaseCommand):
    help = "Create the reviewers group, and an admin account when there is no user yet (DEBUG only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="", help="where the server is about to listen (make run passes "
                                                       "http://HOST:PORT/); printed last, whole, to open")

    def handle(self, *args: Any, **opts: Any) -> None:
        ensure_reviewers_group()
        self._first_account()
        if opts["url"]:
            # The last line before the server's own log: the address to open, and how to choose another port.
            self.stdout.write(f"HEDit Portal starting at {opts['url']}  (another port: make run PORT=8080)")

    def _first_account(self) -> None:
        user_model = get_user_model()
        if user_model.objects.exists():
            return
        if not settings.DEBUG:
            self.stdout.write("no users yet: create one with `python manage.py createsuperuser`")
            return
        password = os.environ.get("HEDIT_ADMIN_PASSWORD", "admin")
        user = user_model.objects.create_superuser("admin", password=password)
        user.groups.add(Group.objects.get(name=REVIEWER_GROUP))
        self.stdout.write("created local account 'admin' (password from HEDIT_ADMIN_PASSWORD, default "
                          "'admin'); log in at /accounts/login/")
