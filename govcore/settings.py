"""The settings every deployment shares, and the base of each backend's own settings.

``settings:`` of a configuration is one flat mapping (docs/configuration.md). Its keys are of two
kinds: the shared ones, fields of :class:`GovernanceSettings`, and those a backend owns, fields of
that backend's :class:`SettingsSection` (the backend class names it as ``settings_model``). The
loader (:mod:`govcore.config`) validates both and attaches the sections to the shared settings;
a backend's ``from_settings`` reads its own with :meth:`GovernanceSettings.section`. Why it is
split this way: docs/decisions/backend-settings.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator

from govcore.detection.hyperscan_engine import available as hyperscan_available
from govcore.detection.normalize import normalize
from govcore.detection.scanner import DetectionEngine
from govcore.detection.secrets import SecretOptions
from govcore.models import MAX_TTL_SECONDS, MIN_TTL_SECONDS
from govcore.retrieval.analysis import DEFAULT_LANGUAGE, languages, words_of

__all__ = [
    "KIB",
    "GovernanceSettings",
    "SettingsSection",
    "TtlSeconds",
    "configuration_folder",
]

TtlSeconds = Annotated[int, Field(ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS)]
KIB = 1024


class _ConfigModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class SettingsSection(_ConfigModel):
    """Base of a backend's own settings: the keys of ``settings:`` it owns, each with its type,
    bounds and default, validated strictly like every other setting.

    A backend class names its subclass as ``settings_model``; several backends may share one
    (the blocking and the asyncio memory store do). A validator may resolve a relative path
    against :func:`configuration_folder`.
    """

    reloadable: ClassVar[bool] = False
    """Whether a reload may change these settings (``Governance.reload``): true for a
    retriever's (retrievers are built again when the settings change), false for what a
    facade builds once (its store, its decision log)."""


SectionT = TypeVar("SectionT", bound=SettingsSection)


def configuration_folder(info: ValidationInfo) -> Path | None:
    """The folder of the configuration file being validated, against which a backend's
    settings resolve relative paths (the working directory for a configuration given as a
    mapping); ``None`` when the settings are built in code."""
    context = info.context
    folder = context.get("configuration_folder") if isinstance(context, dict) else None
    return folder if isinstance(folder, Path) else None


class GovernanceSettings(_ConfigModel):
    """Service-wide settings; every field has a default.

    Only what every deployment shares is a field here. A backend's own keys (the memory store's
    ``max_conversations``, the ``hybrid`` retriever's ``semantic_model``, the Redis decision
    log's ``decision_log_stream``, ...) are written in the same ``settings:`` mapping but
    belong to that backend's :class:`SettingsSection`; the loader validates them and attaches
    them here, where the backend reads them with :meth:`section`
    (docs/decisions/backend-settings.md).
    """

    conversation_ttl_seconds: TtlSeconds = 4 * 3600
    """Conversation TTL when neither the request nor the key sets one."""
    release_after_unselected_turns: Annotated[int, Field(ge=1, le=1000)] = 3
    """A policy not selected again for this many consecutive turns is released."""
    retrieval_top_k: Annotated[int, Field(ge=1, le=100)] = 6
    """At most this many policies are selected by retrieval per turn."""
    min_relevance: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    """Minimum retrieval score; ``None`` keeps the retriever's own default, or for a policy
    set calibrated on its examples, the threshold its calibration chose."""
    relative_relevance: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    """A selected policy also scores at least this fraction of the turn's best score (so a
    clear match does not drag weak neighbours in, while a message with two subjects keeps
    both); ``None`` keeps the retriever's own default (0.7 for ``tfidf``, 0.6 for
    ``hybrid``)."""
    synonyms: dict[str, list[Annotated[str, Field(min_length=1)]]] = Field(default_factory=dict)
    """Extra paraphrase concepts for retrieval: a one-word concept to phrases that mean it."""
    retrieval_window_chars: Annotated[int, Field(ge=256, le=1_048_576)] = 2048
    """Retrieval reads at most this many characters from each end of a long turn."""
    recent_context_turns: Annotated[int, Field(ge=0, le=50)] = 3
    """How many of the latest ``recentContext`` / ``priorHistory`` entries inform retrieval."""
    default_rate_limit_per_minute: Annotated[int, Field(ge=1)] = 120
    max_content_bytes: Annotated[int, Field(ge=KIB)] = 256 * KIB
    """Limit of turn content, prompt and each context entry, in UTF-8 bytes."""
    max_output_bytes: Annotated[int, Field(ge=KIB)] = 1024 * KIB
    """Limit of ``output`` and ``fullText``, in UTF-8 bytes."""
    max_body_bytes: Annotated[int, Field(ge=KIB)] = 8 * 1024 * KIB
    """Limit of a whole request body, checked before it is parsed."""
    max_tool_arguments_bytes: Annotated[int, Field(ge=KIB)] = 256 * KIB
    """Limit of a tool call's ``arguments``, measured as compact JSON in UTF-8 bytes."""
    binding_log_limit: Annotated[int, Field(ge=10)] = 500
    """A conversation keeps this many of its latest binding events."""
    message_ids_per_conversation: Annotated[int, Field(ge=10, le=100_000)] = 1000
    """A conversation keeps the digests of this many of the latest message ids that the typed
    client's ``record_turn(message_id=...)`` recorded; an older id is forgotten, and a replay
    of it is recorded again (docs/decisions/integration-identifiers.md)."""
    decision_log_include_text: bool = False
    """Keep the checked text in decision records (off: the log never holds it)."""
    tool_call_check_keys: bool = True
    """Also check the keys of the objects in a tool call's ``arguments`` with ``detect`` rules
    (an email or a card number used as a dictionary key); on by default, as data in a key leaves
    with the call like data in a value. Off: only string and number values are checked."""
    max_violations_per_check: Annotated[int, Field(ge=1, le=10_000)] = 100
    """Most violations one check's answer lists (the first in text order); the verdict, risk
    score, citations and redaction still cover all of them."""
    decision_log_queue_size: Annotated[int, Field(ge=1)] = 10_000
    """How many decision records may wait for the sink before new ones are dropped."""
    store: Annotated[str, Field(min_length=1, repr=False)] = "memory://"
    """Where conversation state lives: a URL whose scheme names the store backend (entry-point
    groups ``govcore.stores`` and ``govcore.async_stores``). Kept out of ``repr``: a URL may
    hold a password."""
    retriever: Annotated[str, Field(min_length=1)] = "tfidf"
    """The retriever that selects policies, by name (entry-point group ``govcore.retrievers``):
    ``tfidf`` (the default) or ``hybrid`` (lexical and semantic, with ``govcore[semantic]``)."""
    language: str = DEFAULT_LANGUAGE
    """The language of text analysis for retrieval (stemmer, stop words, conversation words);
    a tenant may set its own ``language``."""
    lexicons: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    """Paraphrase lexicons for retrieval: a shipped lexicon's name (``retail``) or the path of a
    YAML file (relative to the configuration file). None by default."""

    secret_known_examples: bool = True
    """The ``secret`` detector leaves out published example values and placeholders
    (``AKIAIOSFODNN7EXAMPLE``, ``ghp_xxxx...``; docs/detection.md, "Secret formats")."""
    secret_allowlist: list[Annotated[str, Field(min_length=4, max_length=4096)]] = Field(
        default_factory=list
    )
    """Values the ``secret`` detector never reports (test fixtures, documented sample keys)."""

    detection_engine: DetectionEngine = "re2"
    """What finds where ``detect`` rules match: ``re2``, ``hyperscan`` (``govcore[hyperscan]``:
    one Hyperscan pass over the text tells where each pattern's matches can begin, and RE2
    confirms them there) or ``auto``, Hyperscan when it is installed and RE2 otherwise. Both
    report the same violations (docs/decisions/detection-engine.md)."""

    @field_validator("detection_engine")
    @classmethod
    def _engine_is_installed(cls, engine: DetectionEngine) -> DetectionEngine:
        if engine == "hyperscan" and not hyperscan_available():
            raise ValueError(
                "the hyperscan engine needs the hyperscan package: "
                "pip install 'govcore[hyperscan]' (or use re2 or auto)"
            )
        return engine

    @field_validator("secret_allowlist")
    @classmethod
    def _allowlist_values_are_values(cls, values: list[str]) -> list[str]:
        for value in values:
            if value != value.strip() or any(c in value for c in "\r\n"):
                raise ValueError(
                    f"{value[:12]!r}...: an allow-listed value must not hold line breaks "
                    "or start or end with whitespace"
                )
        return values

    @property
    def secret_options(self) -> SecretOptions:
        """The ``secret`` detector's known values, as the scanner takes them."""
        return SecretOptions(
            known_examples=self.secret_known_examples,
            allowlist=frozenset(normalize(value).text for value in self.secret_allowlist),
        )

    @field_validator("language")
    @classmethod
    def _language_is_known(cls, language: str) -> str:
        if language not in languages():
            raise ValueError(f"unknown language {language!r} (one of: {', '.join(languages())})")
        return language

    @field_validator("synonyms")
    @classmethod
    def _synonyms_are_words(cls, synonyms: dict[str, list[str]]) -> dict[str, list[str]]:
        for concept, phrases in synonyms.items():
            if len(words_of(concept)) != 1:
                raise ValueError(f"synonym concept {concept!r} must be a single word")
            for phrase in phrases:
                if not words_of(phrase):
                    raise ValueError(f"synonym phrase {phrase!r} of {concept!r} has no words")
        return synonyms

    _sections: dict[type[SettingsSection], SettingsSection] = PrivateAttr(default_factory=dict)

    def section(self, model: type[SectionT]) -> SectionT:
        """The settings of the backend ``model`` describes: as the configuration gave them
        (validated when it loaded), or ``model``'s defaults when it gave none of its keys."""
        found = self._sections.get(model)
        return found if isinstance(found, model) else model()

    def with_sections(self, sections: Iterable[SettingsSection]) -> GovernanceSettings:
        """A copy of these settings carrying ``sections`` (one per model; a later one wins)."""
        copy = self.model_copy()
        copy._sections = {**self._sections, **{type(s): s for s in sections}}
        return copy

    def restart_sections(self) -> dict[type[SettingsSection], SettingsSection]:
        """The backends' sections a reload may not change (see
        :attr:`SettingsSection.reloadable`), as the configuration gave them."""
        return {kind: s for kind, s in self._sections.items() if not kind.reloadable}

    @property
    def backend_keys(self) -> frozenset[str]:
        """The backends' keys the configuration gave a value other than null or empty text:
        what chooses a decision log (``decision_log_path``, ``decision_log_stream``). Empty text
        counts as unset, as it always has (a configuration templated from an unset environment
        variable keeps the default log)."""
        return frozenset(
            name
            for section in self._sections.values()
            for name in section.model_fields_set
            if getattr(section, name) not in (None, "")
        )
