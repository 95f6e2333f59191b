"""Retrieval support (internal): text analysis shared by the retrievers in
:mod:`govcore.backends`. Internal: import the public names from :mod:`govcore`.
"""

from __future__ import annotations
