"""Policy sets in two domains for the semantic retrieval tests, with paraphrases of them.

Written for these tests, unlike the example retailer's: a veterinary clinic and a letting
agency. Each paraphrase shares no word (stem or lexicon concept) with the policy it is about;
the tests check that mechanically, so a paraphrase edited into sharing one fails loudly.
"""

from __future__ import annotations

from typing import Any

from tests.support import policy


def _policy(pid: str, title: str, summary: str, text: str, **fields: Any) -> dict[str, Any]:
    return policy(pid, title=title, summary=summary, text=text, **fields)


VET: list[dict[str, Any]] = [
    _policy(
        "vaccination-schedule",
        "Vaccination schedule",
        "Explain the core vaccines and booster intervals; never advise skipping a booster.",
        "Puppies and kittens receive their first vaccines at eight weeks, with boosters every "
        "year. The assistant explains the schedule and books the appointment; a vet decides on "
        "any exemption.",
        tags=["vaccines", "boosters"],
        area="clinical",
    ),
    _policy(
        "toxic-ingestion",
        "Poisoning emergencies",
        "A pet that swallowed a toxic substance is an emergency: send the owner to the clinic "
        "at once.",
        "Chocolate, grapes, xylitol, rat bait and medicines for humans are toxic to pets. The "
        "assistant never suggests waiting or inducing vomiting at home.",
        tags=["emergency", "toxins"],
        area="clinical",
        severity=8,
    ),
    _policy(
        "euthanasia-conversations",
        "End-of-life decisions",
        "Discussions about euthanasia are handled with care and handed to a veterinarian.",
        "The assistant offers condolences, explains that a veterinarian will talk the owner "
        "through the options, and books a quiet appointment.",
        tags=["end of life"],
        area="clinical",
    ),
    _policy(
        "payment-plans",
        "Instalment plans for treatment costs",
        "Treatment over 500 EUR can be paid in up to six monthly instalments after a credit check.",
        "The assistant explains the instalment plan and the credit check; it never promises "
        "approval.",
        tags=["billing", "instalments"],
        area="billing",
    ),
    _policy(
        "pet-insurance-claims",
        "Pet insurance paperwork",
        "The clinic fills in insurers' claim forms for a fee; the owner pays the clinic first.",
        "Claim forms are completed within five working days. The clinic does not bill insurers "
        "directly.",
        tags=["insurance", "claims"],
        area="billing",
    ),
    _policy(
        "appointment-cancellations",
        "Missed and cancelled appointments",
        "Cancel at least 24 hours ahead; a missed appointment costs a 25 EUR fee.",
        "The fee is waived for emergencies. The assistant may move an appointment once without "
        "charge.",
        tags=["appointments"],
        area="bookings",
    ),
]

LETTINGS: list[dict[str, Any]] = [
    _policy(
        "deposit-protection",
        "Tenancy deposits",
        "Deposits are held in a government-backed protection scheme and returned within ten "
        "days of the tenancy ending.",
        "Deductions need evidence from the check-out inventory. Disputes go to the scheme's "
        "adjudicator.",
        tags=["deposit"],
        area="money",
    ),
    _policy(
        "repairs-reporting",
        "Repairs and maintenance requests",
        "Tenants report repairs in writing; urgent repairs such as leaks or no heating are "
        "attended within 24 hours.",
        "The landlord is responsible for the structure, heating, plumbing and electrics. The "
        "assistant logs the request and gives the expected response time.",
        tags=["repairs", "maintenance"],
        area="property",
    ),
    _policy(
        "noise-complaints",
        "Complaints about neighbours",
        "Complaints about neighbours are logged, and the agency writes to the neighbour's "
        "landlord; the assistant never shares the neighbour's details.",
        "Repeated disturbance may be referred to the local council's environmental health team.",
        tags=["neighbours", "complaints"],
        area="tenancy",
    ),
    _policy(
        "pets-in-property",
        "Pets in rented homes",
        "Tenants need the landlord's written consent before keeping a pet.",
        "Consent is not unreasonably refused; the landlord may ask for a higher deposit or pet "
        "insurance.",
        tags=["pets"],
        area="tenancy",
    ),
    _policy(
        "ending-tenancy",
        "Giving notice",
        "Tenants give one month's written notice, ending on the last day of a rental period.",
        "A fixed-term tenancy cannot be ended early without the landlord's agreement or a break "
        "clause.",
        tags=["notice"],
        area="tenancy",
    ),
    _policy(
        "rent-arrears",
        "Late rent",
        "Rent unpaid seven days after the due date is chased in writing; offer a repayment "
        "plan before any legal step.",
        "The assistant never threatens eviction and refers hardship cases to the arrears team.",
        tags=["rent", "arrears"],
        area="money",
    ),
]

# (message, the policy it is about): no word of the message is a word of that policy.
PARAPHRASES: dict[str, list[tuple[str, str]]] = {
    "vet": [
        ("my puppy ate some raisins off the kitchen floor, should I be worried", "toxic-ingestion"),
        ("how often does a cat need its shots", "vaccination-schedule"),
        ("how do I know when it's time to say goodbye to my dying dog", "euthanasia-conversations"),
    ],
    "lettings": [
        ("can I have a dog in the apartment", "pets-in-property"),
        ("my shower is broken, when will someone come out to fix it", "repairs-reporting"),
    ],
}

CHITCHAT: list[str] = [
    "thanks, that's all for today",
    "hello! how are you doing?",
    "ok great, have a lovely evening",
]
