"""The service layer (internal): access, request parsing, the endpoint table and the I/O.

It is the only layer that talks to the store and the retrieval index; it calls the pure core
and maps its plain results to the wire models. Internal: import the public names from
:mod:`govcore`.
"""

from __future__ import annotations
