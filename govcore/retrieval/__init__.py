"""Retrieval algorithms (internal): text analysis, the TF-IDF and hybrid indexes, embeddings
and ranking. The retrievers that settings name, in :mod:`govcore.backends`, build these
indexes; nothing here imports a backend. Internal: import the public names from
:mod:`govcore`.
"""

from __future__ import annotations
