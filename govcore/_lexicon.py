"""A built-in lexicon of everyday paraphrases for the concepts company policies are about.

Customers rarely use a policy's own words: "can I get my money back" is about refunds. Each
concept below lists phrases that mean it; the retrieval analyzer adds the concept's term
wherever one of them occurs, in policies and in turns alike, so the two meet. Configuration
can add concepts or phrases (``settings.synonyms``). Phrases are matched on word stems, so
"sending it back" matches "send it back".
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["BUILTIN_SYNONYMS"]

BUILTIN_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "refund": (
        "money back", "my money", "reimburse", "reimbursement", "repay", "repayment",
        "pay me back", "paid back", "credit back", "credited back", "full credit",
        "compensation", "compensate",
    ),
    "return": (
        "send back", "send it back", "sent it back", "ship back", "take back", "take it back",
        "bring back", "bring it back", "exchange", "swap", "returns",
    ),
    "cancel": (
        "call off", "stop my order", "stop the order", "don't want it anymore",
        "do not want it anymore", "changed my mind", "terminate", "termination", "undo",
    ),
    "damage": (
        "broken", "broke", "cracked", "torn", "ripped", "shattered", "dented", "defective",
        "faulty", "doesn't work", "does not work", "stopped working", "not working",
        "leaks", "leaking", "malfunction", "damaged", "busted",
    ),
    "delivery": (
        "shipping", "shipment", "ship", "arrive", "arrived", "arrival", "parcel", "package",
        "courier", "tracking", "track my order", "where is my order", "postage", "dispatch",
        "in the mail", "transit",
    ),
    "payment": (
        "pay", "paid", "charge", "charged", "billing", "billed", "bill", "invoice",
        "card", "checkout", "transaction", "debit",
    ),
    "dispute": (
        "chargeback", "charge back", "dispute", "contest the charge", "my bank",
        "reverse the charge", "reversed", "double charged", "charged twice",
    ),
    "fraud": (
        "scam", "scammed", "stolen", "unauthorized", "unauthorised", "didn't make",
        "did not make", "someone else", "hacked", "phishing", "suspicious",
    ),
    "password": (
        "passcode", "credentials", "login details", "log in details", "sign in",
        "log in", "login", "pin", "two factor", "2fa", "verification code", "one time code",
    ),
    "account": ("profile", "my details", "username", "user name", "sign up", "signup"),
    "email": ("e-mail", "email address", "mail address", "inbox"),
    "privacy": (
        "my data", "my information", "personal data", "personal information",
        "personal details", "what you know about me", "what do you know about me",
        "data you hold", "data you have", "information you have", "tracking me", "cookies",
    ),
    "delete": ("erase", "erasure", "remove my", "wipe", "get rid of", "forget me"),
    "complaint": (
        "complain", "not happy", "unhappy", "dissatisfied", "disappointed", "terrible service",
        "awful service", "fed up", "furious", "angry", "upset", "unacceptable",
    ),
    "escalate": (
        "speak to a person", "talk to a person", "real person", "human", "a manager",
        "supervisor", "someone in charge", "talk to someone", "speak to someone", "an agent",
    ),
    "legal": (
        "sue", "suing", "lawsuit", "lawyer", "attorney", "solicitor", "court", "legal action",
        "small claims", "liable", "liability", "my rights",
    ),
    "injury": (
        "hurt", "injured", "injury", "burned", "burnt", "cut myself", "bleeding", "accident",
        "hospital", "unsafe", "dangerous", "hazard", "caught fire", "fire", "smoke",
        "electric shock",
    ),
    "recall": ("recall", "recalled", "safety notice", "withdrawn from sale"),
    "medical": (
        "doctor", "medication", "medicine", "health condition", "diagnosis", "symptoms",
        "pregnant", "allergy", "allergic",
    ),
    "discount": (
        "coupon", "promo", "promo code", "voucher", "deal", "sale price", "price match",
        "cheaper", "percent off", "money off", "markdown",
    ),
    "price": ("cost", "costs", "how much", "expensive", "pricing", "fee", "fees"),
    "warranty": (
        "guarantee", "guaranteed", "lifetime", "covered", "coverage", "repair", "fix it",
    ),
    "minor": (
        "kid", "kids", "child", "children", "teen", "teenager", "under 18", "my son",
        "my daughter", "underage", "years old", "school",
    ),
    "membership": (
        "member", "subscription", "subscribe", "loyalty", "rewards", "points", "premium",
        "perks", "tier",
    ),
    "financing": (
        "installment", "installments", "instalment", "instalments", "pay later", "pay over time",
        "monthly payments", "loan", "credit plan", "interest rate", "apr", "credit check",
    ),
    "abuse": (
        "idiot", "stupid", "useless", "shut up", "insult", "swear", "curse", "threaten",
        "threat", "harass", "harassment",
    ),
    "ai": (
        "are you a bot", "are you human", "are you a robot", "a real person", "chatbot",
        "artificial intelligence", "automated",
    ),
    "security": ("hacker", "breach", "compromised", "locked out", "security question"),
    "address": ("move house", "moved house", "new home", "where i live", "postcode", "zip code"),
    "phone": ("mobile number", "cell number", "phone number", "telephone"),
}
