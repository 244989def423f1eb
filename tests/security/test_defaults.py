"""Finding 4: no secret in the repository, DEBUG off by default, stored keys encrypted with keys of their
own (rotatable), a Content Security Policy, HTTPS settings for `check --deploy`, styled error pages."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.template import loader

from annotations.llm.crypto import SecretUnreadable, decrypt_secret, encrypt_secret, legacy_fernet, reencrypt_secret

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_STRING = "local-development-only-not-secret"
PRINT_SETTINGS = ("import django; django.setup(); from django.conf import settings as s; "
                  "print(s.DEBUG, s.SECRET_KEY, ','.join(s.HEDIT_KEY_ENCRYPTION_KEYS), sep='|')")


def settings_in_child(state_dir: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DJANGO_", "HEDIT_KEY_", "HEDIT_HTTPS", "HEDIT_TEST_"))}
    clean.update({"DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_STATE_DIR": str(state_dir), **env})
    out = subprocess.run([sys.executable, "-c", PRINT_SETTINGS], cwd=ROOT, env=clean, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return out.strip().splitlines()[-1].split("|")


def test_debug_is_off_and_the_secret_is_made_per_install(tmp_path):
    debug, secret, keys = settings_in_child(tmp_path)
    assert debug == "False"
    assert secret != PUBLIC_STRING and len(secret) >= 50
    for name in ("secret_key", "key_encryption_key"):
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode == 0o600, oct(mode)
    Fernet(keys.encode())  # a real Fernet key
    assert keys != secret
    # Every process of one install reads the same values; another install has its own.
    assert settings_in_child(tmp_path)[1:] == [secret, keys]
    assert settings_in_child(tmp_path / "other")[1] != secret


def test_the_environment_wins(tmp_path):
    key = Fernet.generate_key().decode()
    debug, secret, keys = settings_in_child(tmp_path, DJANGO_SECRET_KEY="s" * 60, HEDIT_KEY_ENCRYPTION_KEYS=key,
                                            DJANGO_DEBUG="true")
    assert (debug, secret, keys) == ("True", "s" * 60, key)
    assert not (tmp_path / "secret_key").exists()


def test_no_secret_is_committed_in_the_repository():
    settings_text = (ROOT / "hedit_site" / "settings.py").read_text()
    assert PUBLIC_STRING not in settings_text
    assert not re.search(r"SECRET_KEY\s*=\s*['\"]", settings_text)


def test_stored_keys_do_not_depend_on_the_django_secret(settings):
    token = encrypt_secret("sk-user")
    settings.SECRET_KEY = "another secret entirely " * 3
    assert decrypt_secret(token) == "sk-user"
    # A key stored by the old scheme with the public development string is not readable by default.
    old = legacy_fernet(PUBLIC_STRING).encrypt(b"sk-old").decode()
    with pytest.raises(SecretUnreadable):
        decrypt_secret(old)


def test_key_rotation(settings):
    old_key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.HEDIT_KEY_ENCRYPTION_KEYS = [old_key]
    token = encrypt_secret("sk-user")
    settings.HEDIT_KEY_ENCRYPTION_KEYS = [new_key, old_key]  # new first: encrypts; old still decrypts
    assert decrypt_secret(token) == "sk-user"
    rotated = reencrypt_secret(token)
    settings.HEDIT_KEY_ENCRYPTION_KEYS = [new_key]
    assert decrypt_secret(rotated) == "sk-user"
    with pytest.raises(SecretUnreadable):
        decrypt_secret(token)


def test_check_deploy_passes_with_https_settings(tmp_path):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HEDIT_TEST_"))}
    clean.update({"DJANGO_SETTINGS_MODULE": "hedit_site.settings", "HEDIT_STATE_DIR": str(tmp_path),
                  "HEDIT_HTTPS": "true", "DJANGO_ALLOWED_HOSTS": "hedit.example.org"})
    proc = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT,
                          env=clean, capture_output=True, text=True, timeout=120, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    # Not one warning: from Django's security checks, django-axes, django-csp or anything else.
    assert "System check identified no issues" in output, output


@pytest.mark.django_db
def test_pages_send_a_content_security_policy(client, user):
    client.force_login(user)
    for url in ("/accounts/login/", "/", "/validate/", "/api/docs/"):
        policy = client.get(url).headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, url
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy


def test_templates_have_no_inline_scripts_or_styles():
    inline = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=\s*[\"']|javascript:", re.I)
    found = [f"{p.relative_to(ROOT)}: {m.group()}" for p in (ROOT / "templates").rglob("*.html")
             for m in inline.finditer(p.read_text())]
    assert found == []


@pytest.mark.django_db
def test_error_pages_are_styled_without_debug(client, user, settings):
    settings.DEBUG = False
    client.force_login(user)
    response = client.get("/no/such/page/")
    body = response.content.decode()
    assert response.status_code == 404
    assert "Page not found" in body and 'class="site-nav"' in body and "Traceback" not in body


@pytest.mark.django_db
def test_the_500_page_needs_no_request_and_no_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        html = loader.get_template("500.html").render()
    assert "Something went wrong" in html and 'href="/static/css/app.css"' in html
    for name in ("400.html", "403.html", "404.html", "403_csrf.html"):
        assert "site-header" in loader.get_template(name).render()
