"""hedtools' inflect is imported without typeguard's per-function instrumentation, and nothing else changes."""

from __future__ import annotations

import subprocess
import sys


def test_inflect_is_imported_uninstrumented_and_typeguard_is_left_as_it_was():
    code = (
        "import typeguard; original = typeguard.typechecked\n"
        "import agents, inflect, hed\n"
        "assert typeguard.typechecked is original, 'the no-op decorator leaked'\n"
        "assert not hasattr(inflect.engine.plural, '__wrapped__') and 'typeguard' not in "
        "str(inflect.engine.plural.__code__.co_names), 'inflect was instrumented'\n"
        "assert inflect.engine().plural('circle') == 'circles'\n"
        "from hed.schema import load_schema_version\n"
        "assert load_schema_version('8.3.0').get_tag_entry('Circle') is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_without_the_shim_inflect_would_be_instrumented():
    # The premise of agents.quickstart: typeguard rewrites inflect's functions when it is imported plainly.
    code = "import inflect\nprint('typeguard' in str(inflect.engine.plural.__code__.co_names))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip() == "True", done.stderr[-2000:]
