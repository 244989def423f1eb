"""Re-encrypt every stored user API key with the current (first) key encryption key."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from annotations.llm.crypto import SecretUnreadable, reencrypt_secret
from annotations.models import UserLLMSettings


class Command(BaseCommand):
    help = ("Re-encrypt users' stored API keys with the first key of HEDIT_KEY_ENCRYPTION_KEYS; afterwards "
            "the older keys (and HEDIT_KEY_ENCRYPTION_SECRET) can be removed.")

    def handle(self, *args: Any, **opts: Any) -> None:
        done = unreadable = 0
        with transaction.atomic():
            for stored in UserLLMSettings.objects.select_for_update().exclude(encrypted_api_key=""):
                try:
                    stored.encrypted_api_key = reencrypt_secret(stored.encrypted_api_key)
                except SecretUnreadable:
                    unreadable += 1
                    continue
                stored.save(update_fields=["encrypted_api_key"])
                done += 1
        self.stdout.write(f"re-encrypted {done} stored key(s); {unreadable} could not be decrypted "
                          "(their users must enter them again)")
