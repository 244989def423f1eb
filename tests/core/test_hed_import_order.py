"""hedtools is imported in the main thread before the schema warm-up thread starts: a request thread importing
it at the same time as the warm-up thread saw a partially initialised module and answered 500."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# In a fresh interpreter (this test process imported hedtools long ago): record which modules are loaded at
# the moment the warm-up thread starts; the warm-up itself and the resume of runs are left out.
CODE = """
import json, os, sys, threading
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hedit_site.settings")
import django
django.setup()
from django.conf import settings
from annotations.runs import startup
before = "hed" in sys.modules
seen = {}
real_start = threading.Thread.start
def start(self):
    if self.name == "hedit-warm-up":
        seen.update({name: name in sys.modules for name in WANTED})
    real_start(self)
threading.Thread.start = start
startup.warm_up_schema = lambda version: None
settings.HEDIT_TASK_BACKEND = "worker"
startup.on_server_start()
print(json.dumps({"before": before, "seen": seen}))
"""
WANTED = ["hed.errors.error_reporter", "hed.models", "hed.schema", "hed.validator",
          "hed.tools.analysis.annotation_util", "bidsdata.sidecar"]


def test_hedtools_is_imported_before_the_warm_up_thread_starts():
    code = f"WANTED = {WANTED!r}\n{CODE}"
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, timeout=300, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["before"] is False  # Django's setup alone does not import it, so the check below means something
    assert result["seen"] == dict.fromkeys(WANTED, True)
