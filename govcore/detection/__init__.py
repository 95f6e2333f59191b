"""Detection (internal): normalisation, the built-in PII detectors and the compiled scanner.

Pure like the core: a scanner is compiled once per policy-set version and then only reads text.
Internal: import the public names from :mod:`govcore`.
"""

from __future__ import annotations
