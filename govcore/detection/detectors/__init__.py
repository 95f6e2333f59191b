"""The built-in PII detectors, one module per kind, and the registry that collects them.

Each module of this package (``email.py``, ``credit_card.py``, ...) exports one
:class:`~govcore.detection.detectors.base.Detector` as ``DETECTOR``: its candidate patterns and
validators, its explanation, its default replacement and whether its matches contain other
kinds'. :data:`DETECTORS` is the one list of kinds: the scanner's patterns and containment rule,
:data:`DEFAULT_REPLACEMENTS`, the ``PiiKind`` of :mod:`govcore.policy` and the table in
docs/detection.md derive from it or are checked against it by the tests. docs/detection.md,
"Adding a PII kind", says how to add one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from govcore.detection.detectors import (
    aba_routing,
    au_abn,
    au_acn,
    au_medicare,
    au_tfn,
    ca_sin,
    credit_card,
    crypto,
    de_id_card,
    de_social_security,
    de_tax_id,
    email,
    es_nie,
    es_nif,
    fi_personal_identity_code,
    iban,
    in_aadhaar,
    in_gstin,
    in_pan,
    ip_address,
    it_fiscal_code,
    it_vat_code,
    kr_rrn,
    mac_address,
    ng_nin,
    ph_tin,
    phone,
    pl_pesel,
    se_personnummer,
    secret,
    sg_nric_fin,
    sg_uen,
    th_tnin,
    tr_national_id,
    uk_driving_licence,
    uk_nhs,
    uk_nino,
    uk_passport,
    us_ssn,
)
from govcore.detection.detectors.base import CandidatePattern, Detector, Validator

__all__ = [
    "CONTAINERS",
    "DEFAULT_REPLACEMENTS",
    "DETECTORS",
    "CandidatePattern",
    "Detector",
    "Validator",
]


def _registry(*detectors: Detector) -> Mapping[str, Detector]:
    by_kind: dict[str, Detector] = {}
    for detector in detectors:
        if detector.kind in by_kind:
            raise ValueError(f"two detectors of kind {detector.kind!r}")
        by_kind[detector.kind] = detector
    return MappingProxyType(by_kind)


# The order is the order of PiiKind, of the docs' table, and the order in which the scanner adds
# the detectors' patterns to its RE2 set.
DETECTORS: Mapping[str, Detector] = _registry(
    email.DETECTOR,
    credit_card.DETECTOR,
    iban.DETECTOR,
    phone.DETECTOR,
    us_ssn.DETECTOR,
    ip_address.DETECTOR,
    secret.DETECTOR,
    uk_nino.DETECTOR,
    uk_nhs.DETECTOR,
    uk_passport.DETECTOR,
    uk_driving_licence.DETECTOR,
    es_nif.DETECTOR,
    es_nie.DETECTOR,
    it_fiscal_code.DETECTOR,
    it_vat_code.DETECTOR,
    pl_pesel.DETECTOR,
    fi_personal_identity_code.DETECTOR,
    se_personnummer.DETECTOR,
    de_tax_id.DETECTOR,
    de_social_security.DETECTOR,
    de_id_card.DETECTOR,
    in_pan.DETECTOR,
    in_aadhaar.DETECTOR,
    in_gstin.DETECTOR,
    au_tfn.DETECTOR,
    au_abn.DETECTOR,
    au_acn.DETECTOR,
    au_medicare.DETECTOR,
    sg_nric_fin.DETECTOR,
    sg_uen.DETECTOR,
    kr_rrn.DETECTOR,
    th_tnin.DETECTOR,
    tr_national_id.DETECTOR,
    ca_sin.DETECTOR,
    ng_nin.DETECTOR,
    ph_tin.DETECTOR,
    aba_routing.DETECTOR,
    mac_address.DETECTOR,
    crypto.DETECTOR,
)
"""Every built-in PII kind, by the name a ``pii`` rule uses."""

DEFAULT_REPLACEMENTS: Mapping[str, str] = MappingProxyType(
    {kind: detector.replacement for kind, detector in DETECTORS.items()}
)
"""The default ``enforcementText`` of each kind's matches."""

CONTAINERS: frozenset[str] = frozenset(
    kind for kind, detector in DETECTORS.items() if detector.contains_other_kinds
)
"""The kinds whose validated matches explain the letters and digits inside them."""
