"""The ``secret`` detector's knowledge: a table of secret formats, with their validators.

The formats are data (``formats.toml``, read by :mod:`.formats`): private-key blocks, vendor
tokens and JWTs, and values assigned to keys whose names say they are secrets. The rest is split
by idea:

- :mod:`.formats`: the table, read once on first use;
- :mod:`.token_checks`: checks of a token's own structure, named in the table;
- :mod:`.known_examples`: published examples, placeholders and the allow-list settings;
- :mod:`.assignments`: what makes a key name a secret's and a value look like a secret;
- :mod:`.validators`: which format a candidate is, and whether it stands on its own;
- :mod:`.compilation`: the three scanner patterns (``keys``, ``tokens``, ``assignments``) and
  :func:`find_secrets`;
- :mod:`.key_blocks`: the armour lines of a private key, which the streaming check uses too.

The detector itself (its explanation and replacement) is
:mod:`govcore.detection.detectors.secret`.
"""

from __future__ import annotations

from govcore.detection.secrets.assignments import looks_like_secret
from govcore.detection.secrets.compilation import (
    SecretMatch,
    SecretPattern,
    find_secrets,
    secret_patterns,
)
from govcore.detection.secrets.formats import (
    FAMILIES,
    GENERIC_CONFIDENCE,
    GROUPS,
    SecretFormat,
    secret_formats,
)
from govcore.detection.secrets.key_blocks import PRIVATE_KEY_BEGIN, PRIVATE_KEY_END
from govcore.detection.secrets.known_examples import KNOWN_EXAMPLES, SecretOptions

__all__ = [
    "FAMILIES",
    "GENERIC_CONFIDENCE",
    "GROUPS",
    "KNOWN_EXAMPLES",
    "PRIVATE_KEY_BEGIN",
    "PRIVATE_KEY_END",
    "SecretFormat",
    "SecretMatch",
    "SecretOptions",
    "SecretPattern",
    "find_secrets",
    "looks_like_secret",
    "secret_formats",
    "secret_patterns",
]
