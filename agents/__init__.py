"""HEDit agents: plain Python, no Django.

Each agent lives in its own module with one public entry point; the workflow in
:mod:`agents.workflow` routes them and they exchange data only through
:class:`agents.state.AnnotationState`.
"""

from agents.quickstart import import_inflect_unchecked

import_inflect_unchecked()
