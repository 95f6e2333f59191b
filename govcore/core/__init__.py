"""The pure core (internal): conversation state, selection, rendering, verdicts, gating.

Plain data in, plain data out: nothing here reads a clock, touches a store or builds a wire
model. The service layer (:mod:`govcore.service`) does the I/O and maps results to the wire.
Internal: import the public names from :mod:`govcore`.
"""

from __future__ import annotations
