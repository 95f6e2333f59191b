"""The ``email`` detector (govcore/detection/detectors/email.py): legal addresses found whole, file
names and URL logins that are not addresses, addresses glued to words of scripts without spaces.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    EMAIL,
    ZWSP,
    found,
)


@pytest.mark.parametrize(
    "email",
    [
        "a+tag@x.com",
        "john.doe@mail.sub.example.co.uk",
        "first_last@ex-ample.io",
        '"john doe"@example.com',
        '"odd..dots"@example.com',
        "user@[192.168.0.1]",
        "josé@exämple.de",
        "Ünïcödé@Bücher.de",
        "用户@例子.广告",
        "UPPER.Case@Example.COM",
        f"jane{ZWSP}.doe@example.com",
    ],
)
def test_legal_emails_are_found_whole(email: str) -> None:
    """Plus addressing, subdomains, quoted local parts, IP literals and Unicode are emails."""
    assert found(EMAIL, f"write to {email} today") == [email]


@pytest.mark.parametrize(
    "text",
    ["a..b@x.com", "@x.com", "a.@x.com", ".a@x.com", "x@y", "user@-x.com", "user@x-.com", "@"],
)
def test_non_emails_are_not_found(text: str) -> None:
    """Double or edge dots, a missing local part, no top-level domain or bad labels are no email."""
    assert found(EMAIL, text) == []


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("请联系jane@example.com谢谢", "jane@example.com"),
        ("请联系jane.doe@mail.example.co.uk。谢谢", "jane.doe@mail.example.co.uk"),
        ("メールはtaro@example.jpまで", "taro@example.jp"),
        ("연락처john@example.com입니다", "john@example.com"),
        ("ติดต่อsomchai@example.co.thครับ", "somchai@example.co.th"),
        ("用户@例子.广告", "用户@例子.广告"),
        ("请联系用户@例子.广告", "请联系用户@例子.广告"),
    ],
)
def test_email_glued_to_spaceless_script_is_cut_at_the_script_change(text: str, email: str) -> None:
    """Chinese, Japanese, Korean or Thai prose runs into an address without a space; the words
    are not part of the address, so they are neither reported nor redacted. An address wholly in
    such a script cannot be told from its neighbours and is kept whole."""
    assert found(EMAIL, text) == [email]


def test_email_with_ipv6_literal_domain_is_found() -> None:
    """An RFC 5321 IPv6 address literal (`user@[IPv6:2001:db8::1]`) is an IP-literal email."""
    email = "user@[IPv6:2001:db8::1]"
    assert found(EMAIL, f"write to {email} today") == [email]


@pytest.mark.parametrize(
    ("text", "emails"),
    [
        ("https://john@example.com/", []),
        ("postgres://app:S3cr3t-pw@db.example.com:5432/x", []),
        ("https://ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u@github.com/o/r.git", []),
        ("ftp://files.example/b@example.com", ["b@example.com"]),
        ("mailto:jane@example.com", ["jane@example.com"]),
        ("https://x.example/contact?email=jane@example.com&x=1", ["jane@example.com"]),
    ],
)
def test_a_urls_login_is_not_an_email_address(text: str, emails: list[str]) -> None:
    """``scheme://user@host`` and ``scheme://user:password@host`` are a URL's login (a password
    there is a secret); an address in a path, a query or after ``mailto:`` is an address."""
    assert found(EMAIL, text) == emails


@pytest.mark.parametrize(
    ("text", "emails"),
    [
        ("see logo@2x.png and icon@3x.jpg", []),
        ("write to team@studio.photography", ["team@studio.photography"]),
        ("write to a@xn--d1acufc.xn--p1ai", ["a@xn--d1acufc.xn--p1ai"]),
        (
            "docs use jane@corp.example and ops@db.internal",
            ["jane@corp.example", "ops@db.internal"],
        ),
        ("email@domain.web is no address", []),
        ("user=hiro+billing@studio.example.fr", ["hiro+billing@studio.example.fr"]),
        ("root@192.0.2.7 and x@111.222.333.44444", ["root@192.0.2.7"]),
    ],
)
def test_email_domains_that_exist(text: str, emails: list[str]) -> None:
    """An ASCII top-level domain must exist (or be a special-use name such as ``example``,
    ``test``, ``local`` or ``internal``); a bare IPv4 domain must be an address; a ``key=``
    before the address is the setting's, not the address's."""
    assert found(EMAIL, text) == emails
