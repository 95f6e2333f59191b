"""The markets a ``pii`` rule may name instead of kinds: which built-in kinds each one enables.

A tenant serving the UK and the EU writes ``pii: [uk, eu]`` rather than listing every national
identifier, and ``pii: [common, uk]`` adds the kinds no country owns (email addresses, card
numbers, ...). A market is a lower-case ISO 3166-1 alpha-2 code (``uk`` as people write it, with
``gb`` its other name), ``eu`` (the kinds of the EU member states listed here) or ``common``.

This table is part of the configuration format, so it lives in the policy-format layer, where
the ``pii`` field is validated; tests/test_pii_markets.py checks it against the detector
registry (every kind a market names is registered, every country's kind is in a market).
docs/decisions/pii-markets.md says why the names are these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from govcore._suggest import closest_name

__all__ = ["MARKETS", "MARKET_ALIASES", "market_names", "resolve_pii", "unknown_pii_name"]

_UK = ("uk_nino", "uk_nhs", "uk_passport", "uk_driving_licence")
_ES = ("es_nif", "es_nie")
_IT = ("it_fiscal_code", "it_vat_code")
_PL = ("pl_pesel",)
_FI = ("fi_personal_identity_code",)
_SE = ("se_personnummer",)
_DE = ("de_tax_id", "de_social_security", "de_id_card")

MARKETS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # The kinds that belong to no one country: the same shapes in every market.
        "common": (
            "email",
            "credit_card",
            "iban",
            "phone",
            "ip_address",
            "secret",
            "mac_address",
            "crypto",
        ),
        "au": ("au_tfn", "au_abn", "au_acn", "au_medicare"),
        "ca": ("ca_sin",),
        "in": ("in_pan", "in_aadhaar", "in_gstin"),
        "kr": ("kr_rrn",),
        "ng": ("ng_nin",),
        "ph": ("ph_tin",),
        "sg": ("sg_nric_fin", "sg_uen"),
        "th": ("th_tnin",),
        "tr": ("tr_national_id",),
        "de": _DE,
        # The EU's member states' kinds (the UK is not one since 2020: write [uk, eu]).
        "eu": (*_ES, *_IT, *_PL, *_FI, *_SE, *_DE),
        "es": _ES,
        "fi": _FI,
        "it": _IT,
        "pl": _PL,
        "se": _SE,
        "uk": _UK,
        "us": ("us_ssn", "aba_routing"),
    }
)
"""Each market's name and the kinds it enables, in no particular order (a rule resolves them
into the registry's order)."""

MARKET_ALIASES: Mapping[str, str] = MappingProxyType({"gb": "uk"})
"""Other names of a market: ISO 3166-1 writes the United Kingdom ``gb``."""


def market_names() -> list[str]:
    """Every name a market may be written with, sorted: the markets and their aliases."""
    return sorted({*MARKETS, *MARKET_ALIASES})


def resolve_pii(names: Iterable[str], kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The kinds that ``names`` (kinds and markets) enable, each once, in the order of ``kinds``
    (the registry's), so that a rule's kinds do not depend on how they were listed.

    Raises:
        ValueError: a name is neither one of ``kinds`` nor a market (nor a market's alias);
            the message names it and lists what is valid.
    """
    known = set(kinds)
    wanted: set[str] = set()
    for name in names:
        if name in known:
            wanted.add(name)
            continue
        market = MARKETS.get(MARKET_ALIASES.get(name, name))
        if market is None:
            raise ValueError(unknown_pii_name(name, kinds))
        wanted.update(market)
    return tuple(kind for kind in kinds if kind in wanted)


def unknown_pii_name(name: str, kinds: Iterable[str]) -> str:
    """The reason a ``pii`` name is refused: what it was, and every kind and market there is."""
    markets = ", ".join(
        f"{market} (or {', '.join(a for a, m in MARKET_ALIASES.items() if m == market)})"
        if market in MARKET_ALIASES.values()
        else market
        for market in sorted(MARKETS)
    )
    kinds = tuple(kinds)
    meant = closest_name(name, (*kinds, *MARKETS, *MARKET_ALIASES))
    hint = "" if meant is None else f" (did you mean {meant!r}?)"
    return (
        f"unknown PII kind or market {name!r}{hint}; kinds: {', '.join(kinds)}; markets: {markets}"
    )
