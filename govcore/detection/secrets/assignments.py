"""Generic assignments: a value assigned to a key whose name says it is a secret (``password``,
``api_key``, ``DB_TOKEN``, the word for password in other languages), in env files, YAML, JSON,
INI, code, command lines, SQL, XML, prose and URL queries, and the password of a URL's
``user:password@``. What counts is decided in two steps: the key's name must be the secret's
own name (:func:`secret_key`), and the value must look like a secret (:func:`looks_like_secret`).

The thresholds were chosen on the labelled set of tests/detection/secret_cases.py
(docs/detection.md, "Generic assignments", says how).
"""

from __future__ import annotations

import math
import re
from functools import cache

from govcore.detection.normalize import look_alikes

__all__ = [
    "KEY_GROUPS",
    "MIN_ENTROPY_BITS",
    "MIN_SECRET_LENGTH",
    "MIN_URL_PASSWORD_LENGTH",
    "NEXT_PARAMETER",
    "ONE_CLASS_MIN_ENTROPY_BITS",
    "ONE_CLASS_MIN_LENGTH",
    "PASSWORD_KEY",
    "UNQUOTED",
    "assignment_pattern",
    "looks_like_secret",
    "secret_key",
]

MIN_SECRET_LENGTH = 8
"""A shorter value assigned to a secret-named key is not reported."""
MIN_URL_PASSWORD_LENGTH = 6
"""The password of a URL is a password by its place: a shorter length is enough."""
MIN_ENTROPY_BITS = 2.5
"""Least Shannon entropy per character of a reported value."""
ONE_CLASS_MIN_LENGTH = 16
"""A value of one character class (only lower-case letters, say) needs this length."""
ONE_CLASS_MIN_ENTROPY_BITS = 3.0

_PLACEHOLDER_VALUE = re.compile(
    r"(?:change[_\-. ]?(?:me|it)|replace[_\-. ]?me|password|passwd|pass|secret|token|"
    r"api[_\-. ]?key|key|none|null|nil|true|false|yes|no|on|off|undefined|required|optional|"
    r"string|str|bool|int|hidden|masked|empty|todo|tbd|fixme|n/?a|test|default|"
    r"bearer|basic|ask|prompt|unset|secret[_\-. ]?here|token[_\-. ]?here|"
    r"0?1234(?:5(?:6(?:7(?:8(?:90?)?)?)?)?)?)",
    re.I,
)
_PLACEHOLDER_PART = re.compile(
    r"(?:^|[^a-z])your[_\-. ]?|_here\b|-here\b|xxx|\.\.\.|example|placeholder|dummy|sample|"
    r"redacted|changeme|change_me|replace_?me|insert[_\-. ]|^<.*>$|^\[.*\]$|^\(.*\)$",
    re.I,
)
_REFERENCE = re.compile(
    r"\$\{|\$\(|^\$[A-Za-z_]|\{\{|\{%|%\(\w+\)s|^%s$|<%|#\{|os\.environ|environ\.get|"
    r"process\.env|getenv\s*\(|ENV\[|\benv\(|\bsecrets\.[A-Za-z_]|^vault:|^!(?:Ref|Sub)\b|"
    r"^@Microsoft\.KeyVault|^ref\+|^arn:aws:secretsmanager",
    re.I,
)
_CODE_REFERENCE = re.compile(r"[A-Za-z_][\w.]*\(.*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
"""An unquoted value that is an attribute or a call in code: ``self.password``, ``get()``."""
NEXT_PARAMETER = re.compile(r"&(?:amp;)?[A-Za-z0-9_.\-\[\]]+=")
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.\-]+(?:/[\w.\-]+)+/?|[A-Za-z]:\\.*")
"""A file path of two or more parts (one part, ``/2xK...``, may start a base64 secret)."""
_MASK = frozenset("*•●xX#.-_ ")


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character of the value's character distribution."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _classes(value: str) -> int:
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    other = any(not c.isalnum() for c in value)
    return lower + upper + digit + other


def looks_like_secret(value: str, *, password: bool, quoted: bool, url: bool = False) -> bool:
    """Whether ``value``, assigned to a secret-named key, looks like a secret.

    Args:
        value: the value, without its quotes.
        password: the key names a password (a plain number may be one).
        quoted: the value was quoted (an unquoted attribute or call is code, not a value).
        url: the value is the password of a URL (a shorter one counts).
    """
    if len(value) < (MIN_URL_PASSWORD_LENGTH if url else MIN_SECRET_LENGTH):
        return False
    if set(value) <= _MASK or len(set(value)) == 1:
        return False  # a mask: "********", "xxxxxxxx"
    if _PLACEHOLDER_VALUE.fullmatch(value) or _PLACEHOLDER_PART.search(value):
        return False
    if _REFERENCE.search(value):
        return False  # ${VAR}, $VAR, {{ var }}, os.environ[...], getenv(...)
    if not quoted and _CODE_REFERENCE.fullmatch(value):
        return False
    if _NUMBER.fullmatch(value):
        if not password:
            return False  # max_tokens: 2048
        return _entropy(value) >= MIN_ENTROPY_BITS  # a PIN-like password: 84629175
    if not url and (_URL.match(value) or _PATH.fullmatch(value)):
        return False  # password_reset_url: https://..., password_file: /run/secrets/db
    entropy = _entropy(value)
    if entropy < MIN_ENTROPY_BITS:
        return False
    if _classes(value) == 1:
        return len(value) >= ONE_CLASS_MIN_LENGTH and entropy >= ONE_CLASS_MIN_ENTROPY_BITS
    return True


# Words of a key's name that make it name something other than the secret itself.
_NOT_THE_SECRET = frozenset(
    "url uri urls endpoint file path dir name type count length len size limit ref env var "
    "policy expiry expires expiration ttl timeout header prompt hint field label required "
    "enabled min max format id ids reset link mode manager version rotation store age "
    "question questions strength confirm confirmation user username login".split()
)
# Continuations of a secret word that make another word: tokenizer, secretary, passwordless.
_OTHER_WORD = re.compile(r"(?:token|secret|password)(?:i[sz]|ar[iy]|less)", re.I)
_CAMEL = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# "Password" in the languages people write configuration and chat in: a password under any of
# these names is a password.
_TRANSLATED_KEY_WORDS = (
    "passwort|kennwort|mot[_\\-. ]?de[_\\-. ]?passe|contrase[nñ]a|senha|wachtwoord|has[lł]o"
    "|l[oö]senord|salasana|adgangskode|passord|[sş]ifre|пароль|パスワード|密码|密碼|비밀번호"
    "|סיסמה|كلمة[_ ]المرور"
)
PASSWORD_KEY = re.compile(f"pass|pwd|identified|{_TRANSLATED_KEY_WORDS}", re.I)


def secret_key(key: str) -> bool:
    """Whether a key's name says its value is a secret."""
    if _OTHER_WORD.search(key):
        return False
    words = [w.lower() for part in re.split(r"[^A-Za-z0-9]+", key) for w in _CAMEL.findall(part)]
    return not any(word in _NOT_THE_SECRET for word in words)


def _look_alike_letters(pattern: str) -> str:
    """``pattern`` with each ASCII letter outside a character class also matching the letters
    of other scripts that look like it (UTS 39 confusables): a key written ``раssword`` with
    Cyrillic ``р`` and ``а`` is still a password's key."""
    pieces: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char.isascii() and char.isalpha() and not in_class:
            others = look_alikes(char.lower())
            if others:
                pieces.append(f"[{char}{others}]")
                continue
        pieces.append(char)
    return "".join(pieces)


# Unbounded repeats, not counted ones: counted repeats multiply the states of the scanner's
# RE2 set, which every text goes through.
_KEY_TAIL = r"[A-Za-z0-9_.\-]*"
# At most 7 spaces or tabs around a separator: a blanked-out match (the scanner looks again
# around a match with the match blanked, govcore/detection/scanner.py) is at least 8 long, and
# the value after it must not be taken for this key's.
_SEPARATOR = r"[ \t]{0,7}(?::=|=>|=|:)[ \t]{0,7}"
_VALUE = (
    r"(?:\\?\"(?P<dq>(?:[^\"\\\r\n]|\\[^\"\r\n])*)\\?\"|'(?P<sq>[^'\r\n]*)'|`(?P<bq>[^`\r\n]*)`"
    r"|(?P<bare>[^\s\"'`,;<>\\]+))"
)
_QUOTED = r"(?:\"(?P<{0}dq>[^\"\r\n]*)\"|'(?P<{0}sq>[^'\r\n]*)')"


@cache
def assignment_pattern() -> str:
    """Every form of assignment as one pattern, in Python ``re`` syntax with named groups (RE2
    takes it once the names are dropped): :data:`KEY_GROUPS` names the groups of each form.
    Built on first use, since the key words' look-alike letters come from the confusables
    table, which is read only then."""
    keyword = (
        "(?:"
        + _look_alike_letters(
            r"pass(?:word|wd|phrase)|pwd|secret|token|api[_\-. ]?key|access[_\-. ]?key"
            r"|account[_\-. ]?key|credential"
        )
        + "|"
        + _TRANSLATED_KEY_WORDS
        + ")"
    )
    return (
        rf"(?P<cli>--[A-Za-z0-9_\-]*{keyword}{_KEY_TAIL}[ \t]{{1,7}})"
        r"(?:\"(?P<cdq>[^\"\r\n]*)\"|'(?P<csq>[^'\r\n]*)'|(?P<cv>[^\s\"'`,;<>\\-][^\s\"'`,;<>\\]*))"
        # In the next field of a JSON object ({"name": "DB_PASSWORD", "value": "..."}).
        rf"|(?P<jkey>{keyword}{_KEY_TAIL})[\"'][ \t]*,[ \t]*[\"']value[\"'][ \t]*:[ \t]*"
        + _QUOTED.format("j")
        # A call or a pair of quoted strings: setdefault("API_SECRET", "..."), ("password", '...').
        + rf"|(?P<pkey>{keyword}{_KEY_TAIL})[\"'][ \t]{{0,7}},[ \t]{{0,7}}"
        r"(?:\"(?P<pdq>[^\"\r\n]*)\"|'(?P<psq>[^'\r\n]*)')"
        rf"|(?P<key>{keyword}{_KEY_TAIL})\\?[\"'`)\]]?{_SEPARATOR}{_VALUE}"
        # Prose, as a model's answer is written ("the wifi password is ..."): an unquoted value
        # must hold a digit or a sign, so that ordinary sentences ("the token was revoked") are
        # not candidates at all.
        + rf"|(?P<skey>{keyword}{_KEY_TAIL})[ \t]{{1,7}}(?:is|was)[ \t]{{1,7}}"
        + r"(?:\"(?P<sdq>[^\"\r\n]*)\"|'(?P<ssq>[^'\r\n]*)'"
        + r"|(?P<sbare>[^\s\"'`,;<>\\]*[0-9!#$%&*+/=?@^_~\-][^\s\"'`,;<>\\]*))"
        # A name and its value on the next line (a Kubernetes env entry: "- name: DB_PASSWORD",
        # then "value: ...").
        rf"|(?P<nkey>{keyword}{_KEY_TAIL})[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*"
        r"(?:\"(?P<ndq>[^\"\r\n]*)\"|'(?P<nsq>[^'\r\n]*)'|(?P<nbare>[^\s\"'`,;<>\\]+))"
        # An XML element (<password>...</password>) or an .NET appSettings entry
        # (<add key="ApiSecret" value="..."/>).
         + rf"|(?P<tkey>{keyword}{_KEY_TAIL})>(?P<tv>[^<\r\n]+)<"
        rf"|(?P<akey>{keyword}{_KEY_TAIL})[\"'][ \t]+value[ \t]*=[ \t]*"
        + _QUOTED.format("a")
        # SQL: CREATE USER ... WITH PASSWORD '...', ... IDENTIFIED BY '...'. Only a password
        # word: other key words before a quoted string name a block or a resource
        # (credentials "app.example.io" { ... }, token "deploy").
        + rf"|(?P<qkey>{_look_alike_letters('pass(?:word|wd|phrase)|pwd')}|identified[ \t]+by)"
        + r"[ \t]{1,7}"
        + _QUOTED.format("q")
        + r"|://(?P<user>[^\s/?#@:]*):(?P<pw>[^\s/?#@]+)@"
    )


# Each form of assignment: its key's group and its value's groups (the command-line form and a
# URL's password are told apart by their own groups).
KEY_GROUPS = (
    ("pkey", ("pdq", "psq")),
    ("key", ("dq", "sq", "bq", "bare")),
    ("nkey", ("ndq", "nsq", "nbare")),
    ("skey", ("sdq", "ssq", "sbare")),
    ("jkey", ("jdq", "jsq")),
    ("tkey", ("tv",)),
    ("akey", ("adq", "asq")),
    ("qkey", ("qdq", "qsq")),
)
UNQUOTED = frozenset({"bare", "cv", "nbare", "sbare", "tv"})
