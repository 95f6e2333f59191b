"""Microsoft Presidio's pattern recognizers, the baseline that detection benchmarks run beside
govcore (installed only for benchmarks: ``pip install -e ".[bench]"``).

Only the regex-and-validator recognizers are used, without an NLP engine (so without Presidio's
context-word enhancement), for the ``pii`` kinds Presidio also has; it has no secret detector.
The country-specific recognizers are not in Presidio's default registry for English; they are
instantiated here directly, whatever language they declare, so that every one runs on every
text. A recognizer class that the installed Presidio lacks is skipped.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Any

PRESIDIO_ENTITY = {
    "CREDIT_CARD": "credit_card",
    "EMAIL_ADDRESS": "email",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ip_address",
    "US_SSN": "us_ssn",
    "PHONE_NUMBER": "phone",
    "UK_NINO": "uk_nino",
    "UK_NHS": "uk_nhs",
    "UK_PASSPORT": "uk_passport",
    "UK_DRIVING_LICENCE": "uk_driving_licence",
    "ES_NIF": "es_nif",
    "ES_NIE": "es_nie",
    "IT_FISCAL_CODE": "it_fiscal_code",
    "IT_VAT_CODE": "it_vat_code",
    "IN_PAN": "in_pan",
    "IN_AADHAAR": "in_aadhaar",
    "IN_GSTIN": "in_gstin",
    "AU_TFN": "au_tfn",
    "AU_ABN": "au_abn",
    "AU_ACN": "au_acn",
    "AU_MEDICARE": "au_medicare",
    "SG_NRIC_FIN": "sg_nric_fin",
    "SG_UEN": "sg_uen",
    "PL_PESEL": "pl_pesel",
    "FI_PERSONAL_IDENTITY_CODE": "fi_personal_identity_code",
    "SE_PERSONNUMMER": "se_personnummer",
    "KR_RRN": "kr_rrn",
    "TH_TNIN": "th_tnin",
    "TR_NATIONAL_ID": "tr_national_id",
    "CA_SIN": "ca_sin",
    "DE_TAX_ID": "de_tax_id",
    "DE_SOCIAL_SECURITY": "de_social_security",
    "DE_ID_CARD": "de_id_card",
    "NG_NIN": "ng_nin",
    "PH_TIN": "ph_tin",
    "ABA_ROUTING_NUMBER": "aba_routing",
    "MAC_ADDRESS": "mac_address",
    "CRYPTO": "crypto",
}
"""Presidio's entity names, as govcore's ``pii`` kinds."""

RECOGNIZER_CLASS = {
    "credit_card": "CreditCardRecognizer",
    "email": "EmailRecognizer",
    "iban": "IbanRecognizer",
    "ip_address": "IpRecognizer",
    "us_ssn": "UsSsnRecognizer",
    "phone": "PhoneRecognizer",
    "uk_nino": "UkNinoRecognizer",
    "uk_nhs": "NhsRecognizer",
    "uk_passport": "UkPassportRecognizer",
    "uk_driving_licence": "UkDrivingLicenceRecognizer",
    "es_nif": "EsNifRecognizer",
    "es_nie": "EsNieRecognizer",
    "it_fiscal_code": "ItFiscalCodeRecognizer",
    "it_vat_code": "ItVatCodeRecognizer",
    "in_pan": "InPanRecognizer",
    "in_aadhaar": "InAadhaarRecognizer",
    "in_gstin": "InGstinRecognizer",
    "au_tfn": "AuTfnRecognizer",
    "au_abn": "AuAbnRecognizer",
    "au_acn": "AuAcnRecognizer",
    "au_medicare": "AuMedicareRecognizer",
    "sg_nric_fin": "SgFinRecognizer",
    "sg_uen": "SgUenRecognizer",
    "pl_pesel": "PlPeselRecognizer",
    "fi_personal_identity_code": "FiPersonalIdentityCodeRecognizer",
    "se_personnummer": "SePersonnummerRecognizer",
    "kr_rrn": "KrRrnRecognizer",
    "th_tnin": "ThTninRecognizer",
    "tr_national_id": "TrNationalIdRecognizer",
    "ca_sin": "CaSinRecognizer",
    "de_tax_id": "DeTaxIdRecognizer",
    "de_social_security": "DeSocialSecurityRecognizer",
    "de_id_card": "DeIdCardRecognizer",
    "ng_nin": "NgNinRecognizer",
    "ph_tin": "PhTinRecognizer",
    "aba_routing": "AbaRoutingRecognizer",
    "mac_address": "MacAddressRecognizer",
    "crypto": "CryptoRecognizer",
}
"""govcore's ``pii`` kind -> the name of the Presidio recognizer class for it."""


def presidio_recognizers(entities: Iterable[str]) -> list[Any] | None:
    """Presidio's pattern recognizers for those of ``entities`` (govcore's ``pii`` kinds) it
    has; ``None`` when Presidio is not installed."""
    try:
        from presidio_analyzer import predefined_recognizers
    except ImportError:
        return None
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    logging.getLogger("presidio-analyzer").setLevel(logging.CRITICAL)
    wanted = set(entities)
    recognizers = []
    for entity, class_name in RECOGNIZER_CLASS.items():
        make = getattr(predefined_recognizers, class_name, None)
        if entity in wanted and make is not None:
            with contextlib.suppress(ImportError):  # the phone one needs `phonenumbers`
                recognizers.append(make())
    return recognizers


def analyze(recognizers: list[Any], text: str) -> list[Any]:
    """Every recognizer's results on ``text``."""
    results: list[Any] = []
    for recognizer in recognizers:
        results += recognizer.analyze(
            text, entities=recognizer.supported_entities, nlp_artifacts=None
        )
    return results
