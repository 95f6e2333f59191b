"""Seeded generator of synthetic policy corpora and conversations for benchmarks.

Everything here is built from the standard library and a single ``random.Random(seed)``, so a
given seed always yields the same corpus (on the same Python version). The output is meant to
look like what govcore sees in production, because retrieval cost and quality depend on it:

* each policy area has its own domain vocabulary (a hundred or more words and phrases), mixed
  with a shared corporate vocabulary and the function words of a few dozen sentence templates;
* every vocabulary is sampled with Zipf-like weights, so a few terms are very common and a long
  tail is rare; coined vendor and system names add a long tail of proper nouns;
* each policy has a couple of "focus" terms that recur in its title, summary and text, so
  policies of the same area stay distinguishable.

Run ``python benchmarks/corpus.py --policies 5 --seed 1`` to eyeball policies, ``--turns 3`` to
eyeball conversation turns, and ``--stats`` for timings and vocabulary statistics.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = [
    "AREAS",
    "PII_KINDS",
    "generate_conversation",
    "generate_policies",
    "generate_turn",
    "with_examples",
]


def _split(block: str) -> tuple[str, ...]:
    """Split a comma-separated block of terms into a tuple of stripped, non-empty terms."""
    return tuple(" ".join(t.split()) for t in block.split(",") if t.strip())


# --------------------------------------------------------------------------------------------
# Vocabulary. Within each list the more common terms come first: sampling weights fall off
# with rank (Zipf-like), so list order matters.
# --------------------------------------------------------------------------------------------

AREAS: tuple[str, ...] = (
    "refunds",
    "privacy",
    "payments",
    "security",
    "conduct",
    "shipping",
    "accounts",
    "legal",
    "safety",
    "marketing",
)
"""The policy areas, in a fixed order."""

_AREA_WEIGHTS = (1.3, 1.2, 1.2, 1.1, 1.0, 1.0, 1.0, 0.8, 0.7, 0.7)

# (citation code, label used in citationRef)
_AREA_LABELS: dict[str, tuple[str, str]] = {
    "refunds": ("REF", "Refund"),
    "privacy": ("PRV", "Privacy"),
    "payments": ("PAY", "Payment"),
    "security": ("SEC", "Security"),
    "conduct": ("CND", "Conduct"),
    "shipping": ("SHP", "Shipping"),
    "accounts": ("ACC", "Account"),
    "legal": ("LGL", "Legal"),
    "safety": ("SAF", "Safety"),
    "marketing": ("MKT", "Marketing"),
}

_AREA_TERMS: dict[str, tuple[str, ...]] = {
    "refunds": _split(
        """refund, return, receipt, store credit, refund request, return window, partial refund,
        full refund, reimbursement, exchange, replacement, proof of purchase, restocking fee,
        return label, original payment method, chargeback, refund approval, return shipping,
        damaged item, defective product, gift card balance, credit note, refund threshold,
        goodwill credit, price adjustment, price match, faulty unit, missing parts, wrong item,
        return authorization, RMA number, refund timeline, processing time, bank reversal,
        cancellation fee, cancelled order, subscription refund, prorated refund, annual plan,
        monthly plan, trial period, cooling-off period, warranty claim, manufacturer warranty,
        extended warranty, opened packaging, sealed box, hygiene items, perishable goods,
        final sale items, clearance items, bundle discount, promotional credit, coupon value,
        loyalty points, points reversal, refund fraud, serial returner, return abuse,
        wardrobing, receipt fraud, inspection, condition grading, resale value, return centre,
        drop-off location, courier pickup, prepaid label, return tracking, refund status,
        refund confirmation, refund dispute, duplicate refund, refund ledger, reason code,
        customer complaint, satisfaction guarantee, money-back guarantee, non-refundable
        deposit, booking fee, service fee, delivery charge, shipping refund, tax portion,
        currency conversion, exchange rate difference, wallet refund, bank transfer refund,
        cheque refund, cash refund, refund limit, manager override, override code, refund
        queue, backlog, partial return, multi-item order, split shipment, return eligibility,
        eligibility check, purchase date, order history, digital goods, licence key, download
        entitlement, in-app purchase, app store refund, event tickets, ticket resale, travel
        voucher, voucher expiry, credit expiry, refund policy page, receipt lookup, gift
        receipt, gift recipient, return fraud score, refund velocity, refund audit,
        reconciliation, write-off"""
    ),
    "privacy": _split(
        """personal data, consent, data subject, privacy notice, retention period, erasure
        request, subject access request, lawful basis, data breach, sensitive data, opt-out,
        opt-in, data minimisation, purpose limitation, data retention schedule, right to be
        forgotten, data portability, rectification, objection, profiling, automated
        decision-making, cookie banner, tracking cookies, analytics cookies, consent record,
        do-not-sell request, special category data, health data, biometric data, location data,
        children's data, age verification, parental consent, pseudonymisation, anonymisation,
        encryption at rest, data processor, data controller, sub-processor, processing
        agreement, data protection officer, privacy impact assessment, DPIA, records of
        processing, legitimate interest, cross-border transfer, standard contractual clauses,
        adequacy decision, transfer impact assessment, breach notification, supervisory
        authority, regulator, incident log, data inventory, data map, data classification,
        personal identifier, email address, phone number, postal address, date of birth,
        national ID number, IP address, device identifier, customer profile, marketing
        preferences, call recording, transcript, chat log, redaction, masking, data sharing,
        third-party sharing, vendor access, need-to-know, access review, identity verification,
        verification questions, deletion backlog, backup copies, archive, legal hold, retention
        exception, privacy by design, privacy review, data owner, data steward, consent
        withdrawal, preference centre, unsubscribe link, privacy complaint, GDPR, CCPA, HIPAA,
        personal information, PII, data export, export file, data request portal, request
        deadline, identity proof, authorised agent, household data, employee data, candidate
        data, CCTV footage, visitor log, telemetry, usage data, aggregated statistics,
        re-identification risk, tokenisation, privacy settings, data leakage"""
    ),
    "payments": _split(
        """payment, invoice, card payment, credit card, bank transfer, payment terms, payout,
        settlement, debit card, cardholder, card number, CVV, expiry date, payment gateway,
        payment processor, acquirer, issuing bank, authorisation, pre-authorisation, capture,
        settlement batch, merchant account, merchant category code, invoice number, purchase
        order, net 30 terms, late payment fee, interest charge, instalment plan, direct debit,
        mandate, wire transfer, SWIFT code, IBAN, routing number, ACH transfer, remittance
        advice, payment reference, reconciliation, ledger entry, general ledger, accounts
        payable, accounts receivable, vendor payment, supplier invoice, duplicate payment,
        overpayment, underpayment, payment failure, declined transaction, decline code, retry
        schedule, dunning email, collections, debt collection, bad debt, credit limit, credit
        check, payment plan, billing cycle, billing address, billing dispute, dispute evidence,
        fraud screening, 3-D Secure, strong customer authentication, tokenised card, card vault,
        PCI DSS, PCI scope, cardholder data, payment link, checkout page, digital wallet,
        foreign exchange, FX fee, transaction fee, processing fee, surcharge, tax invoice, VAT,
        sales tax, receipt number, payment approval, dual approval, payment run, payment batch,
        cut-off time, same-day payment, payment limit, spending limit, corporate card, expense
        claim, petty cash, cash handling, cash drawer, till count, float, escrow, deposit,
        prepayment, balance due, outstanding balance, account statement, payment history,
        autopay, recurring billing, subscription billing, failed renewal, card updater, payment
        method change, bank details change, vendor bank details, payment fraud, invoice fraud,
        business email compromise, beneficiary, new payee, payee verification, callback
        verification, treasury, cash flow"""
    ),
    "security": _split(
        """password, access, multi-factor authentication, security incident, phishing, MFA,
        credentials, API key, access token, passphrase, one-time code, authenticator app,
        hardware key, single sign-on, secret, credential rotation, privileged access, admin
        account, service account, least privilege, role-based access, access request, access
        revocation, offboarding, badge access, visitor badge, tailgating, clean desk, screen
        lock, laptop encryption, device management, endpoint protection, antivirus, patching,
        vulnerability, vulnerability scan, penetration test, incident response, on-call
        rotation, severity level, phishing email, suspicious link, malware, ransomware, social
        engineering, pretexting, account takeover, brute force, rate limiting, firewall, VPN,
        network segment, production environment, staging environment, change request, code
        review, secret scanning, encryption key, key management, certificate, TLS, audit log,
        log retention, SIEM, security alert, threat intelligence, indicator of compromise,
        forensic image, containment, eradication, recovery plan, backup, disaster recovery,
        business continuity, security training, awareness training, acceptable use, removable
        media, USB drive, personal device, BYOD, shadow IT, cloud storage, file sharing,
        external sharing, data loss prevention, sensitive file, security review, threat model,
        security exception, compensating control, control owner, security champion, bug
        bounty, responsible disclosure, zero-day, exploit, intrusion, lateral movement,
        privilege escalation, session timeout, session hijacking, password reset, reset link,
        helpdesk verification, identity check, lost laptop, stolen device, remote wipe,
        physical security, server room, access card, security guard, lockout, break-glass
        account, emergency access, jump host, bastion host, SSH key, Git repository,
        hard-coded secret"""
    ),
    "conduct": _split(
        """code of conduct, conflict of interest, harassment, misconduct, investigation,
        respectful behaviour, professional conduct, bullying, discrimination, equal opportunity,
        inclusion, diversity, gifts and hospitality, gift register, bribery, anti-corruption,
        kickback, facilitation payment, whistleblowing, speak-up channel, ethics hotline,
        retaliation, disciplinary action, written warning, final warning, dismissal, grievance,
        grievance procedure, performance review, gross misconduct, insider trading,
        confidential information, social media use, public statements, outside employment,
        side business, personal relationships, workplace relationships, dress code, attendance,
        absence, sick leave, time off, working hours, overtime, remote work, hybrid work,
        alcohol, substance policy, workplace violence, threats, safety concern, fair dealing,
        competitor contact, antitrust, price fixing, political activity, charitable donation,
        sponsorship, company property, company resources, expense fraud, timesheet fraud,
        honesty, integrity, customer interaction, abusive customer, profanity, tone of voice,
        empathy, courtesy, complaint handling, impartiality, favouritism, nepotism, hiring
        decision, reference check, background check, training completion, annual attestation,
        ethics training, policy acknowledgement, ethics committee, anonymous report, case
        manager, case file, witness statement, interview notes, investigation outcome,
        corrective action, coaching, mediation, reasonable adjustment, accessibility, parental
        leave, pay equity, microaggression, inappropriate language, offensive content, hate
        speech, impersonation, misrepresentation, false promise, overpromising, authority
        limits, delegation of authority, speaking on behalf of the company, media enquiry,
        press contact"""
    ),
    "shipping": _split(
        """delivery, shipment, parcel, carrier, tracking number, courier, package, delivery
        date, estimated delivery, freight, pallet, tracking link, delivery window, same-day
        delivery, next-day delivery, express shipping, standard shipping, economy shipping, free
        shipping threshold, shipping fee, shipping label, packing slip, dispatch, fulfilment
        centre, warehouse, distribution hub, last-mile delivery, proof of delivery, signature on
        delivery, safe place, delivery instructions, failed delivery, redelivery, delivery
        attempt, collection point, parcel locker, pickup point, returned to sender, lost parcel,
        damaged parcel, carrier claim, insurance cover, declared value, customs declaration,
        customs duty, import tax, harmonised code, commercial invoice, export licence,
        restricted goods, hazardous materials, lithium batteries, oversized item, bulky item,
        two-person delivery, installation service, delivery slot, backorder, pre-order, stock
        level, inventory, split delivery, consolidated shipment, shipping address, address
        change, address validation, PO box, international shipping, domestic shipping, shipping
        zone, remote area surcharge, fuel surcharge, weight limit, dimensional weight, package
        dimensions, temperature-controlled shipping, cold chain, perishable shipment, delivery
        exception, weather delay, carrier delay, peak season, holiday cut-off, order cut-off
        time, handling time, processing delay, shipment notification, delivery photo, driver,
        route, depot, sorting facility, transit time, out for delivery, misdelivery, neighbour
        delivery, parcel theft, porch piracy, delivery investigation, carrier SLA, freight
        forwarder, incoterms, bill of lading, consignment, consignee, shipper, packaging
        standards, void fill, recyclable packaging, gift wrapping, marketplace seller, drop
        shipping, supplier lead time, reverse logistics, return shipment"""
    ),
    "accounts": _split(
        """account, customer account, login, account holder, subscription, account recovery,
        user account, username, sign-in, recovery email, security questions, account
        verification, verified identity, account status, account suspension, suspended
        account, account closure, account deletion, dormant account, inactive account,
        reactivation, account merge, duplicate account, shared account, family plan, household
        members, sub-account, account owner, authorised user, power of attorney, deceased
        customer, estate executor, account notes, customer record, CRM record, profile update,
        name change, email change, phone change, address update, contact details, communication
        preferences, notification settings, loyalty account, membership tier, premium
        membership, plan upgrade, plan downgrade, auto-renewal, renewal date, cancellation
        request, retention offer, win-back offer, account balance, account credit, wallet
        balance, account limits, account flags, fraud flag, risk score, watchlist, know your
        customer, KYC check, identity documents, proof of address, business account, tax ID,
        company registration, key account, enterprise customer, service agreement, account
        hierarchy, parent account, admin user, user roles, permissions, seat count, licence
        seats, account lockout, failed login attempts, unlock request, login history, session
        history, linked devices, trusted device, connected apps, third-party login, social
        login, account takeover report, impersonation attempt, account sharing, terms of
        service, age requirement, minor account, guardian, account audit, data correction,
        welcome email, onboarding checklist, referral code, referral bonus, promo eligibility,
        account tier, VIP customer, priority support, support ticket, ticket history, case
        number, service request, callback request, account review, closure confirmation, final
        invoice"""
    ),
    "legal": _split(
        """contract, agreement, claim, terms and conditions, clause, liability, legal review,
        master services agreement, indemnity, limitation of liability, warranty disclaimer,
        governing law, jurisdiction, arbitration, dispute resolution, litigation, lawsuit,
        demand letter, cease and desist, subpoena, court order, legal hold, preservation
        notice, discovery request, privileged communication, attorney-client privilege, legal
        counsel, outside counsel, general counsel, contract review, redline, signature
        authority, e-signature, counterparty, non-disclosure agreement, NDA, confidentiality
        obligation, trade secret, intellectual property, trademark, copyright, patent, licence
        agreement, open-source licence, attribution, infringement, takedown notice, DMCA
        notice, defamation, regulatory inquiry, regulator request, consumer protection law,
        unfair terms, misleading claims, advertising standards, export controls, sanctions
        screening, sanctioned country, anti-money laundering, AML check, compliance review,
        compliance obligation, record keeping, statutory deadline, notice period, termination
        clause, renewal clause, force majeure, assignment clause, change of control, data
        processing addendum, service level agreement, liquidated damages, penalty clause,
        insurance certificate, liability cap, legal entity, subsidiary, board approval,
        notarisation, legal opinion, legal risk, settlement agreement, release of claims, class
        action, small claims, consumer rights, cooling-off right, statutory warranty, product
        liability, recall notice, legal notice, terms update, policy change notice,
        accessibility law, employment law, contractor agreement, worker classification,
        non-compete, non-solicitation, legal advice, legal disclaimer, commitment letter, letter
        of intent, procurement contract, tender, bid, vendor contract, contract register,
        contract owner, obligation tracking, audit right, escrow agreement"""
    ),
    "safety": _split(
        """safety, hazard, risk assessment, incident report, injury, first aid, workplace
        safety, health and safety, near miss, first aider, first aid kit, emergency procedure,
        evacuation, fire drill, fire alarm, fire exit, assembly point, fire extinguisher, fire
        warden, personal protective equipment, PPE, safety goggles, gloves, hi-vis vest, hard
        hat, safety boots, manual handling, lifting technique, forklift, forklift licence,
        loading dock, racking, ladder, working at height, slip hazard, trip hazard, wet floor
        sign, spill kit, chemical storage, safety data sheet, hazardous substance, ventilation,
        noise exposure, lone working, night shift, fatigue, rest break, driver safety, vehicle
        inspection, seat belt, journey plan, defensive driving, product safety, product recall,
        safety warning, choking hazard, allergen, allergen information, food safety,
        temperature log, expiry date check, electrical safety, portable appliance testing,
        lockout tagout, machine guarding, confined space, permit to work, contractor induction,
        site induction, visitor safety, safety briefing, toolbox talk, safety officer, safety
        committee, wellbeing, mental health, stress, welfare check, occupational health,
        ergonomics, display screen assessment, workstation setup, heat stress, cold weather,
        severe weather, lockdown procedure, medical emergency, ambulance, emergency contact,
        emergency services, incident investigation, root cause, corrective measure, safety
        audit, inspection checklist, compliance inspection, regulator visit, reportable
        incident, injury log, lost-time injury, return to work, fitness for work, pregnant
        workers, young workers, vulnerable customer, self-harm disclosure, crisis line, duty of
        care, harmful advice, dangerous instructions, medical advice, medication, dosage,
        overdose, weapon, child safety"""
    ),
    "marketing": _split(
        """marketing campaign, promotion, newsletter, discount, marketing consent, advertising,
        email campaign, promotional email, subscriber list, mailing list, segment, audience
        targeting, personalisation, retargeting, paid social, display ad, search ad,
        influencer, sponsored post, affiliate, affiliate link, disclosure label, endorsement,
        testimonial, customer review, review incentive, fake review, star rating, brand
        guidelines, brand voice, tone guide, logo usage, trademark usage, tagline, slogan,
        claim substantiation, comparative advertising, price claim, discount claim, was-now
        pricing, limited-time offer, flash sale, countdown timer, urgency messaging, scarcity
        claim, free trial offer, promo code, coupon, voucher, sweepstakes, prize draw,
        competition rules, giveaway, loyalty programme, referral programme, SMS marketing, push
        notification, frequency cap, send time, unsubscribe rate, bounce rate, open rate,
        click-through rate, conversion rate, attribution model, UTM parameters, landing page,
        call to action, A/B test, creative asset, stock imagery, image rights, music licence,
        user-generated content, content approval, legal sign-off, campaign brief, campaign
        calendar, launch date, press release, media kit, product launch, green claims,
        environmental claims, health claims, nutrition claims, financial promotion, risk
        warning, small print, terms of the offer, age-restricted products, children's
        advertising, cold calling, telemarketing, do-not-call list, lead generation, lead list,
        purchased list, data enrichment, lookalike audience, tracking pixel, conversion pixel,
        social media post, community management, comment moderation, crisis communication,
        brand safety, ad placement, sponsorship deal, event marketing, trade show,
        co-marketing, partner marketing, market research, survey, focus group, customer
        insight, net promoter score"""
    ),
}

# Phrases an agent must not say (or a customer might say) in each area; used by detect rules
# and sprinkled into some turns so that detectors have something to find.
_RISKY_PHRASES: dict[str, tuple[str, ...]] = {
    "refunds": (
        "guaranteed refund",
        "no questions asked",
        "refund without receipt",
        "instant refund approved",
        "keep the item and get a refund",
        "full refund guaranteed",
    ),
    "privacy": (
        "send me their address",
        "share the customer list",
        "export all customer data",
        "their date of birth",
        "look up her account",
        "without their consent",
    ),
    "payments": (
        "read me the card number",
        "wire it today",
        "bypass verification",
        "change the bank details",
        "skip the approval",
        "pay in gift cards",
    ),
    "security": (
        "share your password",
        "disable mfa",
        "send the api key",
        "turn off the firewall",
        "reset without verification",
        "admin password",
    ),
    "conduct": (
        "that's a stupid question",
        "shut up",
        "between you and me",
        "off the record",
        "you people",
        "i promise you",
    ),
    "shipping": (
        "guaranteed next-day",
        "leave it anywhere",
        "ship to a different name",
        "declare it as a gift",
        "mark it as delivered",
        "no tracking needed",
    ),
    "accounts": (
        "log in as the customer",
        "merge the accounts anyway",
        "skip the identity check",
        "unlock it for me",
        "use my friend's account",
        "delete the account history",
    ),
    "legal": (
        "we will sue",
        "legal guarantee",
        "this is legal advice",
        "ignore the contract",
        "admit liability",
        "settle out of court",
    ),
    "safety": (
        "double the dose",
        "mix the chemicals",
        "skip the safety check",
        "remove the guard",
        "no need for gloves",
        "hurt myself",
    ),
    "marketing": (
        "best price guaranteed",
        "100% natural",
        "clinically proven",
        "act now",
        "risk-free investment",
        "limited time only",
    ),
}

PII_KINDS: tuple[str, ...] = ("email", "phone", "credit_card", "iban", "ip_address")
"""The ``pii`` kinds used in generated ``detect`` rules."""

# Identifier formats used by ``regex`` detect rules; turns contain matching identifiers (see
# the ORDER, TKT, RMA, CASE and INV slots below).
_ID_REGEXES: tuple[str, ...] = (
    "TKT-[0-9]{6}",
    "ORD-[0-9]{8}",
    "RMA-[0-9]{7}",
    "INV-[0-9]{4}-[0-9]{4}",
    "CASE-[0-9]{5}",
)

_SHARED_NOUNS = _split(
    """customer, request, manager, record, approval, team, case, process, system, ticket,
    employee, review, exception, decision, escalation, document, report, procedure, supervisor,
    agent, representative, staff member, contractor, vendor, partner, stakeholder, business
    unit, department, region, branch, store, head office, policy owner, compliance team,
    finance team, operations team, support team, service desk, quality assurance, audit trail,
    documentation, evidence, notes, written confirmation, log entry, checklist, template, form,
    workflow, queue, deadline, timeline, quarter, fiscal year, budget, cost centre, threshold,
    limit, standard, guideline, requirement, obligation, control, risk, issue, incident,
    complaint, feedback, notification, email, phone call, chat, meeting, training,
    certification, sign-off, authorisation, delegation, responsibility, oversight, monitoring,
    metrics, KPI, service level, customer experience, satisfaction, quality, accuracy,
    consistency, transparency, fairness, efficiency, dashboard, database, spreadsheet, internal
    wiki, knowledge base, handbook, FAQ, script, macro, case notes, annual review, quarterly
    audit, sample check, spot check, steering group, working group"""
)

_ROLES = _split(
    """team lead, line manager, duty manager, supervisor, compliance officer, regional manager,
    policy owner, senior agent, finance controller, store manager, account manager, case
    handler, quality reviewer, department head, operations manager, risk officer, legal
    counsel, HR business partner, security lead, data protection officer, shift supervisor,
    customer care manager, site manager, country manager"""
)

# (base form, past participle, gerund)
_VERBS: tuple[tuple[str, str, str], ...] = (
    ("approve", "approved", "approving"),
    ("review", "reviewed", "reviewing"),
    ("record", "recorded", "recording"),
    ("document", "documented", "documenting"),
    ("verify", "verified", "verifying"),
    ("escalate", "escalated", "escalating"),
    ("confirm", "confirmed", "confirming"),
    ("check", "checked", "checking"),
    ("log", "logged", "logging"),
    ("flag", "flagged", "flagging"),
    ("process", "processed", "processing"),
    ("reject", "rejected", "rejecting"),
    ("validate", "validated", "validating"),
    ("report", "reported", "reporting"),
    ("retain", "retained", "retaining"),
    ("update", "updated", "updating"),
    ("authorise", "authorised", "authorising"),
    ("investigate", "investigated", "investigating"),
    ("assess", "assessed", "assessing"),
    ("monitor", "monitored", "monitoring"),
    ("archive", "archived", "archiving"),
    ("reconcile", "reconciled", "reconciling"),
    ("disclose", "disclosed", "disclosing"),
    ("decline", "declined", "declining"),
    ("refer", "referred", "referring"),
    ("cross-check", "cross-checked", "cross-checking"),
    ("sign off", "signed off", "signing off"),
    ("countersign", "countersigned", "countersigning"),
    ("audit", "audited", "auditing"),
    ("cancel", "cancelled", "cancelling"),
    ("reverse", "reversed", "reversing"),
    ("suspend", "suspended", "suspending"),
    ("release", "released", "releasing"),
    ("redact", "redacted", "redacting"),
    ("submit", "submitted", "submitting"),
)

_ADJECTIVES = _split(
    """high-value, urgent, unusual, disputed, recurring, first-time, international, repeated,
    overdue, incomplete, unverified, manual, exceptional, routine, sensitive, large,
    suspicious, pending, complex, cross-border, non-standard, time-critical, low-value, bulk,
    historic, borderline, contested, high-risk, low-risk, priority, material, significant,
    minor, major, substantial, ambiguous, outdated, inaccurate, duplicated, missing, expired,
    invalid, unapproved, unauthorised, questionable, anomalous, irregular, atypical, late,
    provisional, previous, upcoming, annual, quarterly, regional, national, internal,
    external, confidential, restricted, critical, moderate, severe, trivial, frequent, rare,
    legacy, revised, amended, unresolved, outstanding, reopened, abandoned, orphaned,
    seasonal, promotional, contractual, statutory, regulatory, discretionary, mandatory,
    voluntary, undocumented, unexplained, conflicting, erroneous, fraudulent, retrospective"""
)

_ADVERBS = _split(
    """promptly, carefully, immediately, clearly, accurately, consistently, fairly, directly,
    manually, formally, separately, independently, regularly, periodically, routinely,
    temporarily, proactively, transparently, securely, confidentially, politely, firmly,
    briefly, fully, thoroughly, quickly, diligently, responsibly, explicitly, verbally,
    electronically, centrally, locally, internally, strictly, reliably, respectfully,
    cautiously, properly, correctly, appropriately, proportionately, urgently, gradually,
    systematically, objectively, impartially, honestly, openly, discreetly, concisely,
    truthfully, retroactively, jointly, courteously, sensibly, sparingly, reasonably"""
)

# Circumstances ("during peak season") and reasons ("due to a supplier error").
_CONTEXTS = _split(
    """during peak season, after a system outage, following an internal audit, at month end,
    at quarter end, over a public holiday, outside business hours, during a product recall,
    after a data migration, while the customer is travelling abroad, during a service
    disruption, when a supplier goes out of business, after a merger or acquisition, during
    the annual stocktake, when the original handler has left the company, after a price
    change, during a marketing promotion, following a customer complaint, after a regulator
    enquiry, during an office move, when systems are running in degraded mode, in the first
    week of a new financial year, during severe weather, after a failed software release,
    during industrial action by carrier staff, when the case spans several countries, on
    weekends, over the holiday period, after the contract has expired, during a trial
    period, during onboarding, while an investigation is open, before the end of the
    cooling-off period, after the warranty has lapsed, during sharp currency movements,
    while a dispute is pending, when the customer cannot be reached, when records are
    incomplete, during a network incident, after a bereavement, during a warehouse
    relocation, after a cyber attack, during a rebranding exercise, while a complaint is
    with the ombudsman, during a pilot programme"""
)

_REASONS = _split(
    """because the original receipt was lost, due to a supplier error, because of a pricing
    mistake on the website, after repeated failed deliveries, because the account was
    flagged for review, owing to a system fault, because the item was discontinued, due to a
    mislabelled product, because the customer moved house, because the invoice was issued
    twice, due to a clerical error, because the courier damaged the goods, because the
    promotion code failed at checkout, because the request was submitted late, because of a
    medical emergency, because the customer was overcharged, because the payment bounced,
    due to an identity mismatch, because the contract terms changed, because of a
    translation error in the terms, due to a misunderstanding by a previous agent, because
    the product arrived incomplete, owing to a manufacturing defect, because of a
    duplicated order, due to an expired authorisation, because the address was mistyped,
    because of a long-standing relationship with the customer, due to a goodwill gesture
    approved in advance, because the customer is in financial hardship, because the
    warehouse shipped the wrong colour"""
)

_SEGMENTS = _split(
    """retail customers, enterprise customers, small business customers, marketplace sellers,
    premium members, contractors, new employees, EU customers, customers in California,
    wholesale partners, trial users, vulnerable customers, franchise stores, regional offices,
    temporary staff, third-party vendors, returning customers, loyalty members, B2B accounts,
    field engineers, call centre staff, warehouse staff"""
)

_REGIONS = _split(
    """the EU, the UK, North America, APAC, Latin America, the Nordics, Germany, France,
    Canada, Australia, Japan, Brazil, India, the Middle East"""
)

_QUALIFIERS = _split(
    """approvals, exceptions, escalations, thresholds, limits, verification, handling,
    retention, disclosures, reviews, controls, records, requirements, responsibilities,
    timelines, eligibility, documentation, audits, sign-off, monitoring, reporting,
    communications, standards, waivers, overrides"""
)

_HEADINGS = _split(
    """Scope, Exceptions, Approvals, Records, Escalation, Responsibilities, Eligibility,
    Monitoring, Purpose, Review, Definitions, Timelines, Limits, Training, Enforcement"""
)

_CITIES = _split(
    """London, Manchester, Dublin, Berlin, Munich, Hamburg, Paris, Lyon, Madrid, Barcelona,
    Lisbon, Amsterdam, Rotterdam, Brussels, Copenhagen, Stockholm, Oslo, Helsinki, Warsaw,
    Prague, Vienna, Zurich, Milan, Rome, Toronto, Vancouver, Montreal, Chicago, Austin, Denver,
    Seattle, Boston, Atlanta, Phoenix, Sydney, Melbourne, Auckland, Singapore, Tokyo, Osaka,
    Seoul, Mumbai, Bangalore, Dubai, Nairobi, Lagos, Cape Town, Sao Paulo, Mexico City,
    Bogota"""
)

_FIRST_NAMES = _split(
    """Sarah, James, Priya, Mohammed, Emma, Liam, Olivia, Noah, Sofia, Lucas, Aisha, Chen, Mei,
    Hiroshi, Yuki, Fatima, Omar, Elena, Mateo, Isabella, Daniel, Grace, Kwame, Amara, Ravi,
    Ananya, Lars, Ingrid, Pierre, Camille, Giulia, Marco, Anna, Jakub, Zofia, Dmitri, Olga,
    Carlos, Lucia, Sean, Niamh, Tom, Hannah, David, Rachel, Ahmed, Leila, Tariq, Nadia, Joao,
    Beatriz, Kofi, Zainab, Wei, Min-jun, Ji-woo, Arjun, Meera, Erik, Freya, Patrick, Chloe,
    Ben, Laura, Michael, Jessica, Samuel, Ruth, Victor, Alice"""
)

_LAST_NAMES = _split(
    """Smith, Patel, Khan, Nguyen, Garcia, Muller, Rossi, Kowalski, Johansson, Dubois, Tanaka,
    Kim, Okafor, Mensah, Silva, Costa, Hernandez, Lopez, Brown, Wilson, Taylor, Anderson,
    Murphy, O'Brien, Kelly, Schmidt, Fischer, Weber, Novak, Horvath, Ivanova, Petrov, Haddad,
    Rahman, Ali, Chowdhury, Sharma, Iyer, Reddy, Wang, Li, Zhang, Liu, Sato, Suzuki, Park,
    Choi, Lindqvist, Nielsen, Jensen, Bakker, de Vries, Janssen, Moreau, Laurent, Ferrari,
    Romano, Santos, Pereira, Adeyemi, Abubakar, Mwangi, Otieno, Cohen, Levi, Walsh, Byrne,
    Hughes, Evans, Clarke"""
)

_PRODUCTS = _split(
    """wireless headphones, ceramic mug set, standing desk, running shoes, winter jacket, USB-C
    charger, coffee grinder, yoga mat, laptop sleeve, bluetooth speaker, cast iron pan, desk
    lamp, office chair, backpack, smartwatch strap, kettle, blender, air fryer, duvet cover,
    bath towel set, phone case, gaming mouse, mechanical keyboard, monitor arm, water bottle,
    hiking boots, rain jacket, electric toothbrush, hair dryer, vacuum cleaner, robot vacuum,
    baby stroller, car seat, bicycle helmet, tent, sleeping bag, garden hose, power drill,
    cookware set, knife block, wine glasses, picture frame, scented candles, bookshelf, sofa
    cushion, rug, curtains, printer ink, webcam, external hard drive"""
)

_STREETS = _split(
    """High Street, Station Road, Church Lane, Park Avenue, Mill Road, Victoria Street, King
    Street, Queen's Road, Oak Drive, Maple Avenue, Elm Close, Harbour Road, Market Street,
    Bridge Street, Hillside Crescent, Riverside Walk, Green Lane, Chapel Street, North Road,
    Meadow View"""
)

_MONTHS = _split(
    """January, February, March, April, May, June, July, August, September, October, November,
    December"""
)

_EMAIL_DOMAINS = _split(
    """example.com, example.org, mailbox.example, inbox.example.net, post.example.co.uk,
    webmail.example"""
)

# Function words and boilerplate tokens excluded from tags.
_STOP_TAGS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "by",
        "with",
        "at",
        "or",
        "as",
        "is",
        "be",
        "are",
        "from",
        "into",
        "per",
        "it",
        "its",
        "this",
        "that",
        "their",
        "your",
        "our",
        "not",
        "no",
    ]
)


def _coined_names(count: int, seed: int) -> list[str]:
    """Pronounceable invented names (vendors, systems) forming a long tail of proper nouns."""
    onsets = [
        "b",
        "br",
        "c",
        "ch",
        "cl",
        "d",
        "dr",
        "f",
        "fl",
        "g",
        "gr",
        "h",
        "j",
        "k",
        "kr",
        "l",
        "m",
        "n",
        "p",
        "pr",
        "qu",
        "r",
        "s",
        "sh",
        "st",
        "t",
        "th",
        "tr",
        "v",
        "w",
        "z",
    ]
    vowels = ["a", "e", "i", "o", "u", "a", "e", "o", "ae", "ia", "ei", "ou"]
    codas = [
        "_",
        "n",
        "r",
        "l",
        "s",
        "m",
        "x",
        "nd",
        "rt",
        "st",
        "ck",
        "ll",
        "v",
        "ne",
        "ra",
        "va",
        "lin",
        "ton",
        "well",
        "mere",
        "by",
        "stead",
        "vik",
        "wood",
    ]
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < count:
        parts = [rng.choice(onsets), rng.choice(vowels)]
        if rng.random() < 0.6:
            parts += [rng.choice(onsets), rng.choice(vowels)]
        coda = rng.choice(codas)
        parts.append("" if coda == "_" else coda)
        name = "".join(parts)
        if 4 <= len(name) <= 11:
            seen[name.capitalize()] = None
    return list(seen)


_COINED = _coined_names(4000, seed=0x60C0)
_SYSTEM_SUFFIXES = ("portal", "console", "workbench", "tracker", "ledger", "hub", "desk")
_ORG_SUFFIXES = _split(
    """Logistics, Group, Ltd, Partners, Services, Solutions, Freight, Consulting, Labs, Systems,
    Insurance, Analytics, Legal LLP, Security, Payments"""
)
_SYSTEM_NAMES = tuple(
    f"the {name} {_SYSTEM_SUFFIXES[i % len(_SYSTEM_SUFFIXES)]}"
    for i, name in enumerate(_COINED[:1800])
)
_ORG_NAMES = tuple(
    f"{name} {_ORG_SUFFIXES[i % len(_ORG_SUFFIXES)]}" for i, name in enumerate(_COINED[1800:])
)


def _people(count: int, seed: int) -> tuple[str, ...]:
    """A fixed, shuffled subset of first-name/last-name pairs."""
    pairs = [f"{f} {last}" for f in _FIRST_NAMES for last in _LAST_NAMES]
    random.Random(seed).shuffle(pairs)
    return tuple(pairs[:count])


_PEOPLE = _people(1500, seed=0x9E0)


_DAYS = _split(
    """30 days, 14 days, 7 days, 90 days, five business days, 60 days, 5 days, 10 days,
    30 calendar days, 3 days, 45 days, ten working days, 180 days, two weeks, 365 days,
    six months, 21 days, 12 months, 2 days, one year, 14 calendar days, 120 days, seven
    years, 24 months, three business days"""
)
_HOURS = _split(
    """24 hours, 48 hours, one business day, 72 hours, two hours, four hours, the same business
    day, 12 hours, 8 hours, one hour"""
)
_PERCENTS = _split("5%, 10%, 20%, 15%, 25%, 2%, 1%, 50%, 30%, 3%, 95%, 98%, 99%, 0.5%, 75%, 40%")
_COUNTS = _split("two, three, five, four, ten, six, 2, 3, 5, 10, seven, twelve, 20")


# --------------------------------------------------------------------------------------------
# Sampling tables. Each pool is expanded into a table of 2**14 entries in which every item
# appears in proportion to its weight (at least once), so a weighted draw is a single
# ``table[rng.getrandbits(14)]``.
# --------------------------------------------------------------------------------------------

_BITS = 14
_TABLE_SIZE = 1 << _BITS

_Table = tuple[str, ...]
_T = TypeVar("_T")


def _expand(items: Sequence[_T], weights: Sequence[float], bits: int) -> tuple[_T, ...]:
    """A lookup table of ``2 ** bits`` entries holding ``items`` in proportion to ``weights``
    (each at least once)."""
    size = 1 << bits
    total = sum(weights)
    counts = [max(1, int(w / total * size)) for w in weights]
    top = counts.index(max(counts))
    counts[top] += size - sum(counts)  # the most common item absorbs rounding
    if counts[top] < 1:
        raise ValueError("too many items for the lookup table")
    return tuple(item for item, n in zip(items, counts, strict=True) for _ in range(n))


def _weighted_table(items: Sequence[str], weights: Sequence[float]) -> _Table:
    """A lookup table of ``_TABLE_SIZE`` entries with ``items`` in proportion to ``weights``."""
    return _expand(items, weights, _BITS)


def _zipf_table(items: Sequence[str], exponent: float = 1.0) -> _Table:
    """A lookup table with weights proportional to ``1 / rank ** exponent``."""
    return _weighted_table(items, [1.0 / (rank + 1) ** exponent for rank in range(len(items))])


def _money() -> tuple[list[str], list[float]]:
    """Money amounts with currency prefixes, and their weights."""
    amounts = _split(
        """100, 50, 500, 250, 1;000, 25, 200, 1;500, 75, 2;500, 5;000, 10, 150, 20, 300,
        10;000, 750, 49.99, 2;000, 25;000, 19.99, 99.99, 50;000, 4.95, 129.00, 15, 35, 400"""
    )
    currencies = (("$", 0.6), ("EUR ", 0.2), ("GBP ", 0.2))
    items: list[str] = []
    weights: list[float] = []
    for rank, amount in enumerate(amounts):
        for prefix, share in currencies:
            items.append(prefix + amount.replace(";", ","))
            weights.append(share / (rank + 1) ** 0.8)
    return items, weights


_TABLES: dict[str, _Table] = {
    "S": _zipf_table(_SHARED_NOUNS, 0.9),
    "R": _zipf_table(_ROLES, 0.8),
    "V": _zipf_table([v[0] for v in _VERBS], 0.8),
    "VP": _zipf_table([v[1] for v in _VERBS], 0.8),
    "VG": _zipf_table([v[2] for v in _VERBS], 0.8),
    "J": _zipf_table(_ADJECTIVES, 0.7),
    "G": _zipf_table(_SEGMENTS, 0.6),
    "REGION": _zipf_table(_REGIONS, 0.6),
    "QUAL": _zipf_table(_QUALIFIERS, 0.5),
    "HEAD": _zipf_table(_HEADINGS, 0.5),
    "D": _zipf_table(_DAYS, 0.9),
    "H": _zipf_table(_HOURS, 0.9),
    "M": _weighted_table(*_money()),
    "PCT": _zipf_table(_PERCENTS, 0.8),
    "N": _zipf_table(_COUNTS, 0.8),
    "SYS": _zipf_table(_SYSTEM_NAMES, 0.8),
    "ORG": _zipf_table(_ORG_NAMES, 0.8),
    "ADV": _zipf_table(_ADVERBS, 0.8),
    "CTX": _zipf_table(_CONTEXTS, 0.7),
    "WHY": _zipf_table(_REASONS, 0.7),
    "PER": _zipf_table(_PEOPLE, 0.9),
    "FIRST": _zipf_table(_FIRST_NAMES, 0.5),
    "CITY": _zipf_table(_CITIES, 0.8),
    "PROD": _zipf_table(_PRODUCTS, 0.7),
    "AREA": _weighted_table(AREAS, _AREA_WEIGHTS),
}
for _area, _terms in _AREA_TERMS.items():
    _TABLES["area:" + _area] = _zipf_table(_terms, 0.9)


def _digits(rng: random.Random, n: int) -> str:
    return str(rng.randrange(10**n)).zfill(n)


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(_MONTHS)} {rng.choice((2023, 2024, 2024, 2025))}"


# Slots filled by a small function instead of a pool.
_GENERATED: dict[str, Callable[[random.Random], str]] = {
    "ORDER": lambda rng: "ORD-" + _digits(rng, 8),
    "TKT": lambda rng: "TKT-" + _digits(rng, 6),
    "RMA": lambda rng: "RMA-" + _digits(rng, 7),
    "CASE": lambda rng: "CASE-" + _digits(rng, 5),
    "INV": lambda rng: f"INV-{_digits(rng, 4)}-{_digits(rng, 4)}",
    "DATE": _date,
    "MIN": lambda rng: str(rng.choice((5, 10, 15, 20, 30))),
}


def _draw(rng: random.Random, key: str) -> str:
    """One weighted draw from table ``key``, or a generated value such as an order number."""
    table = _TABLES.get(key)
    if table is None:
        return _GENERATED[key](rng)
    return table[rng.getrandbits(_BITS)]


# --------------------------------------------------------------------------------------------
# Templates.
# --------------------------------------------------------------------------------------------

_SLOT_RE = re.compile(r"\{([A-Z]+)\}")


_Source = _Table | str | None  # a table, a generated slot's key, or None for ``A``

# Typical lengths of slot values, used to estimate a sentence's length before rendering it.
_MEAN_AREA_TERM = sum(len(term) for area in AREAS for term in _TABLES["area:" + area]) / (
    len(AREAS) * _TABLE_SIZE
)
_GENERATED_LENGTHS = {"ORDER": 12, "TKT": 10, "RMA": 11, "CASE": 10, "INV": 13, "DATE": 14}


class _Template:
    """A sentence template compiled to an auto-numbered format string and its slot sources.

    A source is the lookup table of a pool slot, None for ``A`` (drawn from the caller's topic
    table), or the slot key of a generated slot such as ``ORDER``. Because the fields are
    auto-numbered (``{}``), format strings of several templates can be concatenated and filled
    in one call with their sources concatenated in the same order.
    """

    __slots__ = ("capitalise", "fmt", "mean_length", "simple", "sources")

    def __init__(self, text: str) -> None:
        keys = _SLOT_RE.findall(text)
        for key in keys:
            if key not in _TABLES and key not in _GENERATED and key != "A":
                raise KeyError(f"unknown slot {key!r} in template {text!r}")
        if _SLOT_RE.sub("", text).count("{") or _SLOT_RE.sub("", text).count("}"):
            raise ValueError(f"stray brace in template {text!r}")
        self.sources: tuple[_Source, ...] = tuple(
            None if key == "A" else _TABLES.get(key, key) for key in keys
        )
        self.simple = all(key == "A" or key in _TABLES for key in keys)
        self.fmt = _SLOT_RE.sub("{}", text)
        self.capitalise = text.startswith("{")
        self.mean_length = len(self.fmt) - 2 * len(keys) + sum(map(_mean_length, keys))


def _mean_length(key: str) -> float:
    """The expected length of a value of slot ``key``."""
    if key == "A":
        return _MEAN_AREA_TERM
    table = _TABLES.get(key)
    if table is None:
        return _GENERATED_LENGTHS.get(key, 8)
    return sum(map(len, table)) / len(table)


def _fill(
    sources: Sequence[_Table | None], rng: random.Random, topic: Sequence[str], bits: int
) -> list[str]:
    """Values for table and ``A`` sources; ``A`` draws from ``topic`` (``2 ** bits`` entries)."""
    draw = rng.getrandbits
    return [topic[draw(bits)] if source is None else source[draw(_BITS)] for source in sources]


def _fill_any(
    sources: Sequence[_Source], rng: random.Random, topic: Sequence[str], bits: int
) -> list[str]:
    """Like :func:`_fill`, but also handles generated slots."""
    draw = rng.getrandbits
    return [
        topic[draw(bits)]
        if source is None
        else _GENERATED[source](rng)
        if isinstance(source, str)
        else source[draw(_BITS)]
        for source in sources
    ]


def _templates(block: str) -> tuple[_Template, ...]:
    return tuple(_Template(line.strip()) for line in block.strip().splitlines() if line.strip())


# Slot keys: A area term (biased to the policy's focus terms), S shared noun, R role, V/VP/VG
# verb forms, J adjective, ADV adverb, G segment, D days, H hours, M money, PCT percentage,
# N count, SYS system, ORG organisation, PER person, CITY city, PROD product, CTX circumstance,
# WHY reason; turns also use generated ORDER, TKT, RMA, CASE, INV, DATE and MIN slots.
_BODY = _templates(
    """
    Any {A} above {M} must be {VP} by the {R} before it is {VP}.
    The {R} is responsible for making sure that every {A} is {VP} in {SYS} within {D}.
    Where a {S} involves {A}, the {R} should {V} the {S} and record the outcome in {SYS}.
    Requests for {A} that arrive more than {D} after the original {S} are normally declined unless the {R} approves an exception.
    Agents must not promise {A} or {A} to a customer without written confirmation from the {R}.
    If the {A} cannot be {VP}, the case is escalated to the {R} and the customer is told within {H}.
    Cases involving {J} {A} make up roughly {PCT} of volume and are reviewed weekly by the {R}.
    Exceptions for {G} require sign-off from the {R} and a short note explaining the {A}.
    Every {J} {S} linked to {A} must be {VP} and kept for at least {D}.
    The {A} limit is {M} per {S}; anything above that goes to the {R}.
    Staff should never {V} the {A} on behalf of a customer without checking the {A} first.
    When in doubt, {ADV} {V} the {A} with the {R} rather than guessing.
    Records of each {A}, including the {S} and the {S}, are retained for {D}.
    Our partner {ORG} handles {A} for {G}, and their staff follow the same {S} as internal teams.
    Questions about {A} should be sent to {PER} in the {CITY} office or raised through {SYS}.
    No more than {N} {A} requests per customer may be {VP} in any rolling period of {D}.
    The {R} must {V} the {A} and the {A} together, because an error in one usually affects the other.
    Failure to follow this {S} may result in the {A} being reversed and the matter being referred to the {R}.
    Customers in {CITY} and other {J} locations may be offered {A} at the discretion of the {R}.
    This section does not apply to {A} handled by {ORG}, which is covered by a separate {S}.
    Before {VG} any {A}, confirm the customer's identity and check the {S} in {SYS}.
    All {A} decisions are sampled monthly, and at least {PCT} of cases must pass the {S} check.
    Where the value exceeds {M} or the customer has raised more than {N} complaints in {D}, the {R} must be involved.
    The {R} publishes updated guidance on {A} every quarter.
    Do not disclose internal {A} criteria or {S} thresholds to customers.
    If a customer disputes the {A}, acknowledge the complaint within {H} and open a case in {SYS}.
    Both {A} and {A} are treated as {J} matters and must be {VP} by a second reviewer.
    Automated checks in {SYS} flag any {A} that looks {J}, and flagged items must be {VP} by hand.
    Use the approved template when writing to customers about {A}, and avoid wording that implies {A}.
    Managers should review open {A} cases at least every {D}, and {ADV} close any that are no longer needed.
    Where local rules in {CITY} are stricter, the stricter rule on {A} applies.
    The {R} may waive the {A} up to {M} if the customer was affected by a {J} {S}.
    Any deviation from the standard {A} process must be {VP} with a reason code and the name of the approving {R}.
    Training on {A} is mandatory for new starters and must be refreshed every {D}.
    It is the duty of every {R} to {V} a suspicious {A} immediately.
    Changes to the {A} rules take effect {D} after publication and are announced by {PER}.
    As a rule, the {A} is {VP} within {H} for {G} and within {D} for everyone else.
    Escalations about {A} go first to the {R}, then to the {R} if still unresolved after {D}.
    The monthly {S} report lists the number of {A} cases, the average handling time, and the share resolved within {D}.
    Third parties such as {ORG} must not be given access to {A} without a signed {S}.
    A fee of {M} or {PCT} of the order value, whichever is lower, may apply to {A}.
    Staff handling {A} for {G} must complete the {S} before the case is closed.
    The {A} must be {VP} against the {S} held in {SYS} and any mismatch reported to the {R}.
    The {A} guidance is owned by {PER}, who reviews it every {D}.
    Staff must {ADV} {V} the {A} {CTX}.
    If a request arrives {CTX}, the {R} may approve the {A} {WHY}.
    Any {A} granted {WHY} must be {ADV} {VP} and noted in {SYS}.
    Items such as the {PROD} or the {PROD} are handled under the standard {A} rules unless the {R} decides otherwise.
    Requests involving {ORG} or {ORG} are routed through {SYS} and reviewed {ADV} by the {R}.
    The {R} should respond {ADV} and keep the customer informed about the {A}, especially {CTX}.
    Decisions taken {WHY} must be {ADV} {VP} and discussed at the next {S} review.
    Where the {A} is refused, explain the reason {ADV} and point the customer to the published {A} guidance.
    Partners such as {ORG} report {J} {A} to {PER} within {D}.
    The {A} process was last revised by {PER} and {PER} after feedback from the {CITY} team.
    Staff in the {CITY} and {CITY} offices use {SYS} to track {A} and {A}.
    Any {J} {A} that is noticed {CTX} should be {VP} {ADV} and escalated to {ORG} if it involves their systems.
    Past cases show that {A} is most often disputed {WHY}.
    """
)

# Opening sentences: F/F2 focus terms, Q title qualifier, G scope (segment or region).
_OPENINGS = (
    "This policy sets out the rules for {F} {Q} and applies to {G}.",
    "The purpose of this policy is to make sure {F} and {F2} are handled consistently for {G}.",
    "This document describes how staff manage {F} {Q}, including when {F2} needs extra review.",
    "These rules govern {F} for {G} and should be read together with the guidance on {F2}.",
    "This policy explains who is accountable for {F} {Q} and how decisions are recorded.",
)

_HEADING_LENGTH = 4 + _mean_length("HEAD")  # "\n\n" + heading + ". "
# Body templates with mildly skewed frequencies (weight ~ 1 / rank ** 0.3), drawn with
# ``_BODY_DECK[rng.getrandbits(_DECK_BITS)]``.
_DECK_BITS = 8
_BODY_DECK = _expand(_BODY, [1.0 / (rank + 1) ** 0.3 for rank in range(len(_BODY))], _DECK_BITS)
if any(template.capitalise or not template.simple for template in _BODY):
    raise ValueError("policy body templates must not start with a slot or use generated slots")

_SUMMARIES = (
    "Explains how staff handle {F} {Q} for {G}.",
    "Defines who may approve {F} {Q} and what must be recorded.",
    "Describes the checks required before {F} is offered to {G}.",
    "Sets the limits and escalation path for {F} {Q}.",
    "Covers {F} {Q}, including when {F2} needs a second review.",
    "Establishes record-keeping and review requirements for {F} affecting {G}.",
    "Lists the conditions under which {F} and {F2} may be granted to {G}.",
)

_CUSTOMER_TOPICAL = _templates(
    """
    Hi there, I'm following up on the {A} for order {ORDER}. It's been {D} and nothing has changed on my end.
    Can someone explain how the {A} works? The help page talks about {A} but it doesn't say what happens in my case.
    I was charged {M} and I think it's related to the {A}. Could you check for me?
    My {PROD} arrived yesterday but I have a question about the {A} before I do anything else.
    Your colleague {PER} told me the {A} would be sorted within {H}, but I'm still waiting.
    Is there a way to speed up the {A}? I'm travelling to {CITY} next week.
    I don't understand why my {A} was declined. I've been a customer for years.
    Quick question: does the {A} apply to items bought in the sale?
    Honestly, this is the third time I've contacted you about the {A}. Ticket {TKT} is still open.
    Can you confirm in writing what the {A} is for my account? I need it for my records.
    I read something about {A} in your email last week and I'm not sure it applies to me.
    The {PROD} I ordered on {DATE} is fine, but the {A} part of the process has been a nightmare.
    Someone called me claiming to be from your company and asked about my {A}. Was that really you?
    Who do I talk to about the {A}? The last agent said it was a different department.
    My manager wants to know whether the {A} covers purchases over {M}.
    I'd like to make a formal complaint about how the {A} was handled.
    I already have a return number, {RMA}, but nobody has explained the {A} to me.
    Invoice {INV} shows a charge I don't recognise, and I think it's linked to the {A}.
    """
)

_AGENT_TOPICAL = _templates(
    """
    Thanks for getting in touch. I've looked at order {ORDER} and the {A} has been {VP} on our side.
    I'm sorry about the delay with the {A}. I've escalated this to my team lead and you should hear back within {H}.
    Just to confirm, the {A} applies to purchases made in the last {D}.
    I can see the {A} on your account. Could you confirm the email address you used when ordering?
    Our policy on {A} means I can offer {M} as a goodwill gesture, but anything above that needs approval.
    I've added a note to ticket {TKT} so the next person you speak to can see the history of the {A}.
    Unfortunately I'm not able to {V} the {A} myself, but I've passed it to the right team.
    The {A} usually takes {D}. I'll keep an eye on it and update you.
    I've checked with {FIRST} in our {CITY} team, and the {A} should be resolved by {DATE}.
    For security reasons I need to verify a couple of details before I can discuss the {A}.
    The {A} was {VP} automatically by our system, which is why you received that email.
    I completely understand. Let me explain how the {A} works so there are no surprises.
    I've opened case {CASE} for the {A} and attached your order details.
    """
)

_CHITCHAT = _templates(
    """
    Thanks so much, that's really helpful!
    No worries at all, take your time.
    Sorry, I stepped away for a minute. I'm back now.
    Ha, fair enough. It's been one of those weeks.
    Good morning! Hope you're having a nice day so far.
    The weather in {CITY} has been miserable all week, so I'm stuck indoors anyway.
    Could you give me a second? My internet keeps dropping out.
    Perfect, I appreciate you sticking with me on this.
    Is anyone there? I've been waiting a while.
    Great, have a lovely weekend!
    I'll be honest, I'm not very good with computers, so bear with me.
    My daughter set this up for me, so I'm not sure which email I used.
    I'm on my lunch break now, but I'll check back in about {MIN} minutes.
    That's brilliant news, thank you {FIRST}.
    Okay, let me have a look and I'll come back to you.
    Sorry for the typos, I'm typing on my phone.
    Is it still raining over there? It's lovely and sunny here in {CITY}.
    Appreciate it. You've been more helpful than the last person I spoke to.
    Hello again, it's me from earlier.
    Right, that makes sense now. Thanks for explaining it properly.
    Can I ask you something unrelated? Do you know if the shop in {CITY} is open on Sundays?
    No rush, I'm just making a cup of tea.
    Oh nice, I visited {CITY} last summer. Lovely place.
    Thanks for your patience today, {FIRST}. Is there anything else I can help you with?
    You're very welcome. Have a great rest of your day!
    """
)


# --------------------------------------------------------------------------------------------
# Rendering.
# --------------------------------------------------------------------------------------------


def _render(template: _Template, rng: random.Random, topic: Sequence[str], topic_bits: int) -> str:
    """Fill one template; ``A`` slots draw from ``topic`` (``2 ** topic_bits`` entries)."""
    if template.simple:
        values = _fill(template.sources, rng, topic, topic_bits)  # type: ignore[arg-type]
    else:
        values = _fill_any(template.sources, rng, topic, topic_bits)
    text = template.fmt.format(*values)
    if template.capitalise:
        text = text[0].upper() + text[1:]
    return text


_MAX_TOPIC_BITS = 12

# Area tables permuted by a fixed odd stride and extended, so that any window of up to
# 2**_MAX_TOPIC_BITS consecutive entries is a well-spread weighted sample of the area's terms.
_STRIDED: dict[str, _Table] = {}
for _area in AREAS:
    _table = _TABLES["area:" + _area]
    _strided = [_table[(i * 7919) % _TABLE_SIZE] for i in range(_TABLE_SIZE)]
    _STRIDED["area:" + _area] = tuple(_strided + _strided[: 1 << _MAX_TOPIC_BITS])


def _topic_table(
    rng: random.Random, area: str, alt_area: str, focus: Sequence[str], bits: int
) -> list[str]:
    """What the ``A`` slots of one document draw from: ``2 ** bits`` entries, 28% the
    document's focus terms, 8% terms of a secondary area, the rest terms of its area.

    The area terms are a window of a strided table (see ``_STRIDED``), so the cost does not
    depend on the table size. Drawing the ``A`` slots from this small per-document sample
    also makes terms bursty (a term used once in a document tends to recur), as in real text.
    """
    size = 1 << bits
    n_focus = round(size * 0.28) if focus else 0
    n_alt = max(1, round(size * 0.08))
    draw = rng.getrandbits
    start = draw(_BITS)
    table = list(_STRIDED["area:" + area][start : start + size - n_focus - n_alt])
    start = draw(_BITS)
    table += _STRIDED["area:" + alt_area][start : start + n_alt]
    if n_focus:
        table += (list(focus) * (n_focus // len(focus) + 1))[:n_focus]
    return table


def _pick(rng: random.Random, items: Sequence[str]) -> str:
    """A uniformly chosen item (cheaper than ``rng.choice`` in hot loops)."""
    return items[int(rng.random() * len(items))]


def _other_area(rng: random.Random, area: str) -> str:
    other = _pick(rng, AREAS)
    return other if other != area else AREAS[(AREAS.index(area) + 1) % len(AREAS)]


def _distinct(rng: random.Random, items: Sequence[str], count: int) -> list[str]:
    """``count`` distinct items (2 or 3) of ``items``, in random order."""
    n = len(items)
    first = int(rng.random() * n)
    second = int(rng.random() * (n - 1))
    second += second >= first
    chosen = [items[first], items[second]]
    if count > 2:
        third = int(rng.random() * (n - 2))
        for taken in sorted((first, second)):
            third += third >= taken
        chosen.append(items[third])
    return chosen


def _tag_words(phrase: str) -> tuple[str, ...]:
    return tuple(
        word
        for word in phrase.lower().split()
        if word.isalpha() and 3 <= len(word) <= 12 and word not in _STOP_TAGS
    )


_TAG_WORDS: dict[str, tuple[str, ...]] = {
    term: _tag_words(term) for terms in _AREA_TERMS.values() for term in terms
}


def _tags(rng: random.Random, area: str, focus: Sequence[str], qualifier: str) -> list[str]:
    """Two to four short lowercase tags: the area, then words of the focus terms and qualifier."""
    candidates = dict.fromkeys(word for term in focus for word in _TAG_WORDS[term])
    candidates[qualifier] = None
    candidates.pop(area, None)
    rest = list(candidates)
    start = int(rng.random() * len(rest))
    rest = rest[start:] + rest[:start]
    return [area, *rest[: 1 + int(rng.random() * 3)]]


def _detect_rule(rng: random.Random, area: str) -> dict[str, object]:
    kind = rng.random()
    if kind < 0.5:
        return {"terms": rng.sample(_RISKY_PHRASES[area], 2)}
    if kind < 0.75:
        return {"pii": rng.choice(PII_KINDS)}
    return {"regex": rng.choice(_ID_REGEXES)}


# Severities 1.0 .. 5.0 in halves, most often in the middle: ``_SEVERITIES[getrandbits(6)]``.
_SEVERITIES = _expand([x / 2 for x in range(2, 11)], (2, 3, 5, 7, 8, 7, 5, 3, 2), 6)


def _enforcement(rng: random.Random, severity: float) -> str:
    r = rng.random()
    if severity >= 4.0:
        return "fix" if r < 0.6 else "warning" if r < 0.9 else "audit"
    if severity <= 2.0:
        return "audit" if r < 0.5 else "warning" if r < 0.9 else "fix"
    return "warning" if r < 0.5 else "fix" if r < 0.75 else "audit"


def _policy_text(
    rng: random.Random, opening: str, topic: Sequence[str], topic_bits: int, text_bytes: int
) -> str:
    """Paragraphs of template sentences totalling about ``text_bytes`` characters.

    Sentences are chosen by their estimated length, then the whole text is filled with one
    ``str.format`` call over the concatenated templates, which is much faster than rendering
    sentence by sentence.
    """
    draw = rng.getrandbits
    deck = _BODY_DECK
    pieces = [opening.replace("{", "{{").replace("}", "}}")]
    sources: list[_Table | None] = []
    total = float(len(opening))
    count = 1  # sentences in the current paragraph
    room = 2 + draw(2)  # sentences this paragraph will hold
    while total < text_bytes:
        template = deck[draw(_DECK_BITS)]
        if count < room:
            new_total = total + template.mean_length + 1
            # Keep the sentence only if it brings the length closer to the target.
            if new_total > text_bytes and new_total - text_bytes > text_bytes - total:
                break
            pieces.append(" ")
            count += 1
        else:
            heading = rng.random() < 0.4
            new_total = total + template.mean_length + (_HEADING_LENGTH if heading else 2)
            if new_total > text_bytes and new_total - text_bytes > text_bytes - total:
                break
            if heading:
                pieces.append("\n\n{}. ")
                sources.append(_TABLES["HEAD"])
            else:
                pieces.append("\n\n")
            count = 1
            room = 2 + draw(2)
        total = new_total
        pieces.append(template.fmt)
        sources += template.sources  # type: ignore[arg-type]  # body templates are simple
    return "".join(pieces).format(*_fill(sources, rng, topic, topic_bits))


def generate_policies(
    count: int, *, seed: int = 0, text_bytes: int = 1000
) -> list[dict[str, object]]:
    """Policy documents in govcore's policy format (dicts with camelCase keys).

    Each dict has the keys ``id``, ``title``, ``summary``, ``text``, ``severity``,
    ``enforcement``, ``citationRef``, ``tags`` and ``area``; about one in ten also has a
    ``detect`` list holding one rule (``terms``, ``pii`` or ``regex``).

    Args:
        count: number of policies; ids are numbered from 1 and unique.
        seed: the same seed always gives the same corpus.
        text_bytes: approximate length of each ``text`` in characters (all ASCII).

    Raises:
        ValueError: ``count`` is negative or ``text_bytes`` is not positive.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    if text_bytes <= 0:
        raise ValueError(f"text_bytes must be > 0, got {text_bytes}")
    rng = random.Random(seed)
    topic_bits = min(_MAX_TOPIC_BITS, max(5, (text_bytes // 35).bit_length()))
    digits = len(str(count))
    id_format = f"pol-{{:0{max(5, digits)}d}}-{{}}"
    ref_format = f"CORP-{{}}-{{:0{max(4, digits)}d}} {{}} {{}}"
    policies: list[dict[str, object]] = []
    for number in range(1, count + 1):
        area = _draw(rng, "AREA")
        focus = _distinct(rng, _AREA_TERMS[area], 3 if rng.random() < 0.4 else 2)
        topic = _topic_table(rng, area, _other_area(rng, area), focus, topic_bits)
        qualifier = _draw(rng, "QUAL")

        scope_roll = rng.random()
        if scope_roll < 0.55:
            scope = _draw(rng, "G")
            title_scope = " for " + scope
        elif scope_roll < 0.7:
            scope = "staff in " + _draw(rng, "REGION")
            title_scope = " in " + scope[len("staff in ") :]
        else:
            scope = "all customers and staff"
            title_scope = ""
        subject = focus[0] if rng.random() < 0.8 else f"{focus[0]} and {focus[1]}"
        title = subject[0].upper() + subject[1:] + " " + qualifier + title_scope

        slots = {"F": focus[0], "F2": focus[1], "Q": qualifier, "G": scope}
        summary = _pick(rng, _SUMMARIES).format(**slots)
        opening = _pick(rng, _OPENINGS).format(**slots)
        text = _policy_text(rng, opening, topic, topic_bits, text_bytes)

        severity = _SEVERITIES[rng.getrandbits(6)]
        code, label = _AREA_LABELS[area]
        policy: dict[str, object] = {
            "id": id_format.format(number, area),
            "title": title,
            "summary": summary,
            "text": text,
            "severity": severity,
            "enforcement": _enforcement(rng, severity),
            "citationRef": ref_format.format(code, number, label, qualifier),
            "tags": _tags(rng, area, focus, qualifier),
            "area": area,
        }
        if rng.random() < 0.1:
            policy["detect"] = [_detect_rule(rng, area)]
        policies.append(policy)
    return policies


def with_examples(
    policies: Sequence[dict[str, object]], seed: int, count: int = 5
) -> list[dict[str, object]]:
    """``policies`` each with ``count`` example messages: short turns (about 80 characters)
    of :func:`generate_turn`, drawn in the policy's own area.

    Raises:
        ValueError: ``count`` is negative.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    rng = random.Random(seed)
    out = []
    for policy in policies:
        area = policy.get("area")
        examples = [
            generate_turn(rng, size_bytes=80, area=area if isinstance(area, str) else None)
            for _ in range(count)
        ]
        out.append({**policy, "examples": examples})
    return out


# --------------------------------------------------------------------------------------------
# Conversation turns.
# --------------------------------------------------------------------------------------------


def _email_address(name: str, rng: random.Random) -> str:
    local = re.sub(r"[^a-z.]", "", name.lower().replace(" ", "."))
    return f"{local}@{rng.choice(_EMAIL_DOMAINS)}"


def _order_block(rng: random.Random) -> str:
    lines = [f"Order {_draw(rng, 'ORDER')} (placed {_date(rng)})"]
    subtotal = 0.0
    for _ in range(rng.randint(1, 4)):
        quantity = rng.choice((1, 1, 1, 2, 3))
        price = rng.choice((4.99, 9.99, 14.5, 19.99, 24.0, 39.99, 59.0, 89.99, 129.0, 249.0))
        subtotal += quantity * price
        lines.append(f"  {quantity} x {_draw(rng, 'PROD')} @ ${price:.2f}")
    shipping = rng.choice((0.0, 3.95, 4.99, 7.5, 12.0))
    lines.append(
        f"Subtotal: ${subtotal:.2f}  Shipping: ${shipping:.2f}  Total: ${subtotal + shipping:.2f}"
    )
    lines.append(
        f"Deliver to: {_draw(rng, 'PER')}, {rng.randint(1, 240)} {rng.choice(_STREETS)}, "
        f"{_draw(rng, 'CITY')} {_digits(rng, 5)}"
    )
    if rng.random() < 0.5:
        lines.append(f"Paid with card ending {_digits(rng, 4)}, invoice {_draw(rng, 'INV')}")
    return "\n".join(lines)


def _ticket_block(rng: random.Random) -> str:
    status = rng.choice(("open", "pending customer", "escalated", "on hold", "resolved"))
    priority = rng.choice(("low", "normal", "normal", "high", "urgent"))
    return (
        f"[Ticket {_draw(rng, 'TKT')} | status: {status} | priority: {priority} | "
        f"opened {_date(rng)} | assigned to {_draw(rng, 'FIRST')}]"
    )


class _TurnContext:
    """What one turn talks about: its role and, for a topical turn, a topic table.

    Templates are dealt from shuffled decks so that one turn does not repeat a sentence.
    """

    __slots__ = ("_chat", "_source", "_topical", "rng", "topic")

    def __init__(self, rng: random.Random, role: str, area: str | None) -> None:
        self.rng = rng
        self.topic: list[str] = []
        self._source = _AGENT_TOPICAL if role == "agent" else _CUSTOMER_TOPICAL
        self._topical: list[_Template] = []
        self._chat: list[_Template] = []
        if area is not None:
            self.topic = _topic_table(rng, area, _other_area(rng, area), (), 5)

    def term(self) -> str:
        """An area term of this turn's topic (the turn must be topical)."""
        return self.topic[self.rng.getrandbits(5)]

    def sentences(self, count: int) -> str:
        """``count`` sentences: mostly on topic for a topical turn, chit-chat otherwise."""
        rng = self.rng
        out: list[str] = []
        for _ in range(count):
            if self.topic and rng.random() < 0.75:
                deck, source = self._topical, self._source
            else:
                deck, source = self._chat, _CHITCHAT
            if not deck:
                deck.extend(source)
                rng.shuffle(deck)
            out.append(_render(deck.pop(), rng, self.topic, 5))
        return " ".join(out)


def _email_block(ctx: _TurnContext) -> str:
    rng = ctx.rng
    sender = _draw(rng, "PER")
    subject = ctx.term() if ctx.topic else rng.choice(("Quick question", "Hello", "Following up"))
    lines = [
        "---------- Forwarded message ----------",
        f"From: {sender} <{_email_address(sender, rng)}>",
        f"Date: {_date(rng)}",
        f"Subject: Re: {subject}",
        "",
        f"Hi {_draw(rng, 'FIRST')},",
        "",
        ctx.sentences(rng.randint(2, 4)),
        "",
        "Kind regards,",
        sender,
    ]
    if rng.random() < 0.4:
        lines.append(f"Tel: +1 555 {_digits(rng, 3)} {_digits(rng, 4)}")
    return "\n".join(lines)


def _fit(text: str, size: int) -> str:
    """Cut ``text`` to at most ``size`` characters, preferably at a sentence or word end."""
    if len(text) <= size:
        return text
    head = text[:size]
    cut = head.rfind(". ")
    if cut >= size * 0.85:
        return head[: cut + 1]
    cut = max(head.rfind(" "), head.rfind("\n"))
    if cut >= size * 0.8:
        return head[:cut].rstrip()
    return head


def generate_turn(
    rng: random.Random,
    *,
    size_bytes: int = 1000,
    role: str = "customer",
    area: str | None = None,
) -> str:
    """One conversation message of about ``size_bytes`` characters (never more).

    About 60% of turns touch a policy area's topics (``area``, or a random area when None);
    the rest are pure chit-chat. The opening message is padded with realistic content (an
    order summary, a forwarded email, a ticket header or more conversation) to reach the size.

    Args:
        rng: source of randomness; the output is a pure function of its state.
        size_bytes: target length in characters (all ASCII).
        role: ``"customer"`` or ``"agent"``; changes the phrasing of topical sentences.
        area: the area a topical turn talks about (one of :data:`AREAS`).

    Raises:
        ValueError: ``size_bytes`` is not positive, or ``role`` or ``area`` is unknown.
    """
    if size_bytes <= 0:
        raise ValueError(f"size_bytes must be > 0, got {size_bytes}")
    if role not in ("customer", "agent"):
        raise ValueError(f"role must be 'customer' or 'agent', got {role!r}")
    if area is not None and area not in _AREA_TERMS:
        raise ValueError(f"unknown area {area!r} (known: {', '.join(AREAS)})")
    topical = rng.random() < 0.6
    if topical and area is None:
        area = _draw(rng, "AREA")
    ctx = _TurnContext(rng, role, area if topical else None)
    parts = [ctx.sentences(rng.randint(1, 3))]
    if topical and area is not None and rng.random() < 0.08:
        # Occasionally a phrase that area's detect rules look for.
        phrase = rng.choice(_RISKY_PHRASES[area])
        if role == "agent":
            parts[0] += f" To be clear: {phrase}."
        else:
            parts[0] += f' Someone told me "{phrase}", is that right?'
    total = len(parts[0])
    pasted: set[str] = set()  # an order, an email and a ticket header at most once each
    while total < size_bytes:
        roll = rng.random()
        kind = (
            "order" if roll < 0.2 else "email" if roll < 0.35 else "ticket" if roll < 0.45 else ""
        )
        if kind in pasted:
            kind = ""
        pasted.add(kind)
        if kind == "order":
            block = _order_block(rng)
        elif kind == "email":
            block = _email_block(ctx)
        elif kind == "ticket":
            block = _ticket_block(rng)
        else:
            block = ctx.sentences(rng.randint(2, 4))
        parts.append(block)
        total += 2 + len(block)
    return _fit("\n\n".join(parts), size_bytes)


def generate_conversation(turns: int, *, seed: int = 0, turn_bytes: int = 1000) -> list[str]:
    """Turn contents of one conversation, each about ``turn_bytes`` long.

    Turns alternate customer / agent, starting with the customer, and mostly stay on one
    policy area chosen for the conversation.

    Raises:
        ValueError: ``turns`` is negative or ``turn_bytes`` is not positive.
    """
    if turns < 0:
        raise ValueError(f"turns must be >= 0, got {turns}")
    if turn_bytes <= 0:
        raise ValueError(f"turn_bytes must be > 0, got {turn_bytes}")
    rng = random.Random(seed)
    topic = rng.choices(AREAS, weights=_AREA_WEIGHTS)[0]
    out: list[str] = []
    for index in range(turns):
        area = topic if rng.random() < 0.8 else rng.choice(AREAS)
        role = "customer" if index % 2 == 0 else "agent"
        out.append(generate_turn(rng, size_bytes=turn_bytes, role=role, area=area))
    return out


# --------------------------------------------------------------------------------------------
# Command line.
# --------------------------------------------------------------------------------------------


def _print_stats(seed: int, text_bytes: int) -> None:
    """Timings, determinism and vocabulary statistics of the generator."""
    for n in (10_000, 100_000):
        start = time.perf_counter()
        corpus = generate_policies(n, seed=seed, text_bytes=text_bytes)
        print(f"generate_policies({n:,}): {time.perf_counter() - start:.3f} s")
    corpus = generate_policies(10_000, seed=seed, text_bytes=text_bytes)
    same = corpus == generate_policies(10_000, seed=seed, text_bytes=text_bytes)
    differs = corpus != generate_policies(10_000, seed=seed + 1, text_bytes=text_bytes)
    ids = [p["id"] for p in corpus]
    print(f"deterministic: {same}; other seed differs: {differs}")
    print(f"unique ids: {len(set(ids)) == len(ids)}")
    lengths = [len(str(p["text"])) for p in corpus]
    print(
        f"text length: mean {sum(lengths) / len(lengths):.0f}, min {min(lengths)}, "
        f"max {max(lengths)}"
    )
    counts: dict[str, int] = {}
    word_re = re.compile(r"[a-z]+")
    for policy in corpus:
        for word in word_re.findall(
            f"{policy['title']} {policy['summary']} {policy['text']}".lower()
        ):
            counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.values(), reverse=True)
    singletons = sum(1 for c in ranked if c == 1)
    print(
        f"vocabulary: {len(counts):,} distinct words, {sum(ranked):,} tokens, "
        f"{singletons:,} seen once"
    )
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:15]
    print("top words:", ", ".join(f"{w} {c}" for w, c in top))
    detects = sum(1 for p in corpus if "detect" in p)
    print(f"policies with detect: {detects / len(corpus):.1%}")
    start = time.perf_counter()
    convo = generate_conversation(1000, seed=seed, turn_bytes=1000)
    mean = sum(map(len, convo)) / len(convo)
    print(
        f"generate_conversation(1,000): {time.perf_counter() - start:.3f} s, "
        f"mean turn length {mean:.0f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print generated policies or turns as JSON, or generator statistics."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--policies", type=int, help="print this many policies")
    parser.add_argument("--turns", type=int, help="print a conversation of this many turns")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--text-bytes", type=int, default=1000)
    parser.add_argument("--turn-bytes", type=int, default=1000)
    parser.add_argument("--stats", action="store_true", help="print timings and statistics")
    args = parser.parse_args(argv)
    if args.stats:
        _print_stats(args.seed, args.text_bytes)
        return 0
    if args.turns is None and args.policies is None:
        args.policies = 5
    if args.policies is not None:
        policies = generate_policies(args.policies, seed=args.seed, text_bytes=args.text_bytes)
        print(json.dumps(policies, indent=2))
    if args.turns is not None:
        turns = generate_conversation(args.turns, seed=args.seed, turn_bytes=args.turn_bytes)
        print(json.dumps(turns, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
