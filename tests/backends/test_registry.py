"""Backends chosen by name: the entry-point registry behind settings.store, .retriever and the
decision log, and the backends' own settings."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import govcore
from govcore import ConfigError, backends
from govcore.backends import (
    decision_log_from_settings,
    register_decision_log,
    register_retriever,
    register_store,
    retriever_from_name,
    settings_models,
    store_from_settings,
    store_from_url,
)
from govcore.backends.awaited import AwaitedPipelinedStore, AwaitedStore, awaited
from govcore.backends.memory import AsyncMemoryStore, MemoryStore, MemoryStoreSettings
from govcore.backends.tfidf import TfidfRetriever
from govcore.config import GovernanceSettings, load_config, load_settings
from govcore.decision_log import JsonlDecisionLog, MemoryDecisionLog
from govcore.settings import SettingsSection
from govcore.testing import FakeClock
from govcore.types import AsyncPipelinedStore, PipelinedStore
from tests.support import config

SECRET = "s3cret"


class RecordingStore:
    """A store class that keeps what it was built with (no ``from_url``)."""

    def __init__(self, *, clock: Any, **options: Any) -> None:
        self.clock = clock
        self.options = options


class UrlStore:
    """A store class with ``from_url``, which then receives the whole URL."""

    def __init__(self, url: str, clock: Any) -> None:
        self.url = url
        self.clock = clock

    @classmethod
    def from_url(cls, url: str, *, clock: Any) -> UrlStore:
        """Keep the URL; refuse one without a host, quoting it as careless drivers do."""
        if "@" in url and url.endswith("@/"):
            raise ValueError(f"no host in {url}")
        return cls(url, clock)


@pytest.fixture(autouse=True)
def _isolated_registrations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test end with it."""
    for registry in backends._REGISTRIES:
        monkeypatch.setattr(registry, "registered", dict(registry.registered))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on ``sys.path`` where tests lay out installed distributions by hand."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.startswith("thirdparty_"):
            del sys.modules[name]


def _distribution(root: Path, name: str, entry_points: str, **modules: str) -> None:
    """Write what installing distribution ``name`` would: a .dist-info and its modules."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source))


def _problem(caught: pytest.ExceptionInfo[ConfigError]) -> str:
    """The single problem of a ConfigError, as ``location: reason``."""
    (problem,) = caught.value.problems
    return str(problem)


_THIRD_PARTY_STORE = """
    class FileStore:
        def __init__(self, *, clock, root="/tmp", shards=1):
            self.clock, self.root, self.shards = clock, root, shards
"""

# --- the built-ins --------------------------------------------------------------------------


def test_builtins_are_declared_as_entry_points() -> None:
    """The installed metadata declares memory, tfidf and hybrid, as pyproject.toml says."""
    stores = importlib.metadata.entry_points(group="govcore.stores")
    retrievers = importlib.metadata.entry_points(group="govcore.retrievers")
    assert {(e.name, e.value) for e in stores} >= {
        ("memory", "govcore.backends.memory:MemoryStore")
    }
    assert {(e.name, e.value) for e in retrievers} >= {
        ("tfidf", "govcore.backends.tfidf:TfidfRetriever"),
        ("hybrid", "govcore.backends.hybrid:HybridRetriever"),
    }


def test_memory_url_builds_a_memory_store_with_its_parameters() -> None:
    """``memory://?t_entries=2`` is a MemoryStore on the given clock holding at most 2 entries
    of the namespace ``t``."""
    clock = FakeClock()
    store = store_from_url("memory://?t_entries=2", clock=clock)
    assert isinstance(store, MemoryStore)
    keys = ["t:a", "t:b", "t:c"]
    for key in keys:
        store.set(key, b"v", expires_at=clock.now + 60)
    assert [store.get(key) for key in keys] == [None, b"v", b"v"]
    clock.advance(61)
    assert store.get("t:c") is None


def test_scheme_is_case_insensitive() -> None:
    """``MEMORY://`` names the same store as ``memory://`` (URL schemes ignore case)."""
    assert isinstance(store_from_url("MEMORY://", clock=FakeClock()), MemoryStore)


def test_tfidf_name_builds_the_tfidf_retriever_with_options() -> None:
    """``retriever_from_name("tfidf", ...)`` passes the options to TfidfRetriever."""
    retriever = retriever_from_name("tfidf", min_relevance=0.3)
    assert isinstance(retriever, TfidfRetriever)
    assert retriever.min_relevance == 0.3


def test_settings_name_the_default_backends_and_hide_the_store_url() -> None:
    """The settings default to memory:// and tfidf; a store URL's password is not in repr."""
    defaults = GovernanceSettings()
    assert (defaults.store, defaults.retriever) == ("memory://", "tfidf")
    chosen = GovernanceSettings.model_validate({"store": f"redis://u:{SECRET}@h/0"})
    assert chosen.store == f"redis://u:{SECRET}@h/0"
    assert SECRET not in repr(chosen)


# --- programmatic registration --------------------------------------------------------------


def test_registered_class_gets_clock_and_query_parameters() -> None:
    """Without ``from_url`` a class gets the clock and the query, digits as integers."""
    register_store("rec", RecordingStore)
    clock = FakeClock()
    store: Any = store_from_url("rec://?shards=4&name=a%20b&flag=", clock=clock)
    assert isinstance(store, RecordingStore)
    assert store.clock is clock
    assert store.options == {"shards": 4, "name": "a b", "flag": ""}


def test_registered_class_with_from_url_gets_the_whole_url() -> None:
    """A class with ``from_url`` is handed the URL as written, credentials included."""
    register_store("url", "tests.backends.test_registry:UrlStore")
    clock = FakeClock()
    store: Any = store_from_url(f"url://user:{SECRET}@host:1/2?a=b", clock=clock)
    assert isinstance(store, UrlStore)
    assert (store.url, store.clock) == (f"url://user:{SECRET}@host:1/2?a=b", clock)


def test_registration_wins_over_entry_points() -> None:
    """A store registered in code under ``memory`` replaces the built-in."""
    register_store("memory", RecordingStore)
    assert isinstance(store_from_url("memory://", clock=FakeClock()), RecordingStore)


def test_registered_retriever_is_built_by_name() -> None:
    """``register_retriever`` makes a name that ``retriever_from_name`` builds."""
    register_retriever("fixed", "govcore.backends.tfidf:TfidfRetriever")
    assert isinstance(retriever_from_name("fixed"), TfidfRetriever)


# --- third parties --------------------------------------------------------------------------


def test_third_party_store_plugs_in_through_an_entry_point(site: Path) -> None:
    """An installed distribution declaring a govcore.stores entry point is found by scheme."""
    _distribution(
        site,
        "govcore_filestore",
        "[govcore.stores]\nfile = thirdparty_filestore:FileStore\n",
        thirdparty_filestore=_THIRD_PARTY_STORE,
    )
    clock = FakeClock()
    store: Any = store_from_url("file://?root=/srv/state&shards=8", clock=clock)
    assert type(store).__module__ == "thirdparty_filestore"
    assert (store.clock, store.root, store.shards) == (clock, "/srv/state", 8)


def test_third_party_modules_are_imported_only_when_asked_for(site: Path) -> None:
    """Declared backends cost nothing until chosen: building another leaves them unimported."""
    _distribution(
        site,
        "govcore_filestore",
        "[govcore.stores]\nfile = thirdparty_filestore:FileStore\n",
        thirdparty_filestore=_THIRD_PARTY_STORE,
    )
    store_from_url("memory://", clock=FakeClock())
    assert "thirdparty_filestore" not in sys.modules
    store_from_url("file://", clock=FakeClock())
    assert "thirdparty_filestore" in sys.modules


def test_third_party_retriever_plugs_in_through_an_entry_point(site: Path) -> None:
    """A govcore.retrievers entry point makes its name a valid settings.retriever."""
    _distribution(
        site,
        "govcore_bm25",
        "[govcore.retrievers]\nbm25 = thirdparty_bm25:Bm25Retriever\n",
        thirdparty_bm25="""
            class Bm25Retriever:
                def __init__(self, k1=1.2):
                    self.k1 = k1
        """,
    )
    retriever: Any = retriever_from_name("bm25", k1=2.0)
    assert (type(retriever).__name__, retriever.k1) == ("Bm25Retriever", 2.0)


def test_the_same_scheme_from_two_distributions_is_refused(site: Path) -> None:
    """Two distributions claiming one scheme for different classes is an error naming both."""
    _distribution(site, "dist_one", "[govcore.stores]\ndup = thirdparty_one:Store\n")
    _distribution(site, "dist_two", "[govcore.stores]\ndup = thirdparty_two:Store\n")
    with pytest.raises(ConfigError) as caught:
        store_from_url("dup://", clock=FakeClock())
    problem = _problem(caught)
    assert problem.startswith("settings.store: ")
    assert "dist_one (thirdparty_one:Store)" in problem
    assert "dist_two (thirdparty_two:Store)" in problem
    register_store("dup", RecordingStore)
    assert isinstance(store_from_url("dup://", clock=FakeClock()), RecordingStore)


def test_one_declaration_seen_twice_is_not_a_conflict(site: Path) -> None:
    """The same scheme and class from two places (say, a stale copy) is one declaration."""
    declaration = "[govcore.stores]\nfile = thirdparty_filestore:FileStore\n"
    _distribution(site, "govcore_filestore", declaration, thirdparty_filestore=_THIRD_PARTY_STORE)
    _distribution(site, "govcore_filestore_copy", declaration)
    assert type(store_from_url("file://", clock=FakeClock())).__name__ == "FileStore"


def test_entry_point_schemes_ignore_case(site: Path) -> None:
    """A scheme declared in capitals matches URLs in any case, as URL schemes do."""
    _distribution(
        site,
        "govcore_filestore",
        "[govcore.stores]\nFile = thirdparty_filestore:FileStore\n",
        thirdparty_filestore=_THIRD_PARTY_STORE,
    )
    assert type(store_from_url("file://", clock=FakeClock())).__name__ == "FileStore"


@pytest.mark.slow
def test_a_built_and_installed_distribution_plugs_in(tmp_path: Path) -> None:
    """A real distribution, built and installed by pip, provides a store govcore can build."""
    project = tmp_path / "project"
    (project / "thirdparty_realstore").mkdir(parents=True)
    (project / "thirdparty_realstore" / "__init__.py").write_text(
        textwrap.dedent(_THIRD_PARTY_STORE)
    )
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "govcore-realstore"
            version = "0.0.1"

            [project.entry-points."govcore.stores"]
            real = "thirdparty_realstore:FileStore"

            [tool.setuptools]
            packages = ["thirdparty_realstore"]
            """
        )
    )
    target = tmp_path / "installed"
    subprocess.run(  # noqa: S603 - pip of this interpreter
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", target, project],
        check=True,
    )
    probe = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(target)!r})\n"
        "from govcore.backends import store_from_url\n"
        "store = store_from_url('real://?shards=3', clock=lambda: 0.0)\n"
        "print(json.dumps([type(store).__module__, store.shards]))\n"
    )
    completed = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert json.loads(completed.stdout) == ["thirdparty_realstore", 3]


# --- errors ---------------------------------------------------------------------------------


def test_unknown_scheme_names_the_setting_and_choices_without_credentials() -> None:
    """An unknown scheme is a settings.store error listing the known schemes, no user or password."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"mongodb://admin:{SECRET}@host:27017/0", clock=FakeClock())
    problem = _problem(caught)
    assert problem.startswith("settings.store: unknown scheme 'mongodb'")
    assert "known: memory://, redis://, redis+sentinel://, rediss://, rediss+sentinel://" in problem
    assert "host:27017/0" in problem
    assert SECRET not in str(caught.value)
    assert "admin" not in str(caught.value)


def test_unknown_retriever_names_the_setting_and_choices() -> None:
    """An unknown retriever name is a settings.retriever error listing the known names."""
    with pytest.raises(ConfigError) as caught:
        retriever_from_name("bm25")
    assert _problem(caught) == (
        "settings.retriever: unknown retriever 'bm25'; known: hybrid, tfidf"
    )


def test_credentials_for_a_store_that_takes_none_are_refused_unechoed() -> None:
    """``memory://:s3cret@/`` is refused (memory takes only parameters) without the password."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"memory://:{SECRET}@/", clock=FakeClock())
    problem = _problem(caught)
    assert problem.startswith("settings.store: store URL 'memory://***@/' is refused")
    assert SECRET not in str(caught.value)


def test_password_parameters_are_not_echoed() -> None:
    """A password-looking query parameter is shown as *** and scrubbed from the reason."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"memory://?maxsize=5&db_password={SECRET}", clock=FakeClock())
    problem = _problem(caught)
    assert "db_password=***" in problem
    assert "maxsize=5" in problem
    assert "db_password" in problem  # the reason: an unexpected keyword argument
    assert SECRET not in str(caught.value)


def test_backend_error_quoting_the_url_is_scrubbed() -> None:
    """A backend's own error that quotes the URL has the credentials taken out."""
    register_store("url", UrlStore)
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"url://user:{SECRET}@/", clock=FakeClock())
    problem = _problem(caught)
    assert problem.startswith("settings.store: store URL 'url://***@/' is refused: no host")
    assert SECRET not in problem
    assert "user" not in problem


@pytest.mark.parametrize(
    "url",
    [
        f"memory://user:{SECRET}@host:notaport/",
        f"memory://user:{SECRET}@host:99999/",
        f"memory://user:{SECRET}@[::1/",
    ],
)
def test_malformed_url_is_an_error_without_credentials(url: str) -> None:
    """A URL that does not parse (bad port, bad IPv6 host) is reported as malformed."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(url, clock=FakeClock())
    assert _problem(caught).startswith("settings.store: malformed store URL 'memory://***@")
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize("url", ["", "memory", "localhost:6379"])
def test_url_without_scheme_is_an_error(url: str) -> None:
    """A store setting that is not ``scheme://...`` says a scheme is missing."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(url, clock=FakeClock())
    assert "has no scheme" in _problem(caught)


def test_password_with_a_slash_is_still_hidden() -> None:
    """A password holding ``/`` (which parsers split on) is still not echoed."""
    with pytest.raises(ConfigError) as caught:
        store_from_url("nosuch://user:pa/ss@host/0", clock=FakeClock())
    assert "pa/ss" not in str(caught.value)
    assert "user:pa" not in str(caught.value)


def test_entry_point_whose_module_is_missing(site: Path) -> None:
    """A declared backend whose module is not installed names the module and distribution."""
    _distribution(site, "govcore_ghost", "[govcore.stores]\nghost = thirdparty_ghost:Store\n")
    with pytest.raises(ConfigError) as caught:
        store_from_url(f"ghost://u:{SECRET}@h/", clock=FakeClock())
    problem = _problem(caught)
    assert problem.startswith("settings.store: scheme 'ghost' (store URL 'ghost://***@h/')")
    assert "'thirdparty_ghost:Store' (from govcore_ghost)" in problem
    assert "module 'thirdparty_ghost', which cannot be imported" in problem
    assert SECRET not in problem


def test_entry_point_whose_class_is_missing(site: Path) -> None:
    """A declared backend whose module lacks the class is an error naming the target."""
    _distribution(
        site,
        "govcore_hollow",
        "[govcore.retrievers]\nhollow = thirdparty_hollow:Nothing\n",
        thirdparty_hollow="VALUE = 1\n",
    )
    with pytest.raises(ConfigError) as caught:
        retriever_from_name("hollow")
    assert _problem(caught) == (
        "settings.retriever: retriever 'hollow' is unavailable: 'thirdparty_hollow:Nothing' "
        "(from govcore_hollow) names nothing in its module"
    )


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("memory://?conv_mb=1&conv_mb=2", "parameter 'conv_mb' is given twice"),
        ("memory://?maxsize=1", "expected <namespace>_mb or <namespace>_entries"),
        ("memory://?conv_mb=x", "with a whole number"),
        ("memory://?conv_entries=0", "at least one byte and one entry"),
        ("memory://host/path", "only query parameters"),
    ],
)
def test_parameters_a_store_refuses(url: str, reason: str) -> None:
    """Bad query parameters are a settings.store error with the reason."""
    with pytest.raises(ConfigError) as caught:
        store_from_url(url, clock=FakeClock())
    assert reason in _problem(caught)


def test_options_a_retriever_refuses() -> None:
    """An option the retriever does not take is a settings.retriever error."""
    with pytest.raises(ConfigError) as caught:
        retriever_from_name("tfidf", nosuch=1)
    problem = _problem(caught)
    assert problem.startswith("settings.retriever: retriever 'tfidf' is refused")
    assert "nosuch" in problem


# --- decision logs --------------------------------------------------------------------------


class AuditSettings(SettingsSection):
    """A decision log's own settings: the key that chooses it, and one more."""

    decision_log_audit: str | None = None
    audit_level: int = 1


class AuditLog:
    """A decision log built from its own settings."""

    settings_model = AuditSettings

    def __init__(self, target: str, level: int) -> None:
        self.target, self.level = target, level

    @classmethod
    def from_settings(cls, settings: GovernanceSettings) -> AuditLog:
        own = settings.section(AuditSettings)
        if own.decision_log_audit is None or own.decision_log_audit.startswith("refuse"):
            raise ValueError(f"cannot write to {own.decision_log_audit}")
        return cls(own.decision_log_audit, own.audit_level)

    def record(self, decision: Any) -> None:
        pass


def test_builtin_decision_logs_are_declared_as_entry_points() -> None:
    """The installed metadata declares memory, path and stream in govcore.decision_logs."""
    logs = importlib.metadata.entry_points(group="govcore.decision_logs")
    assert {(e.name, e.value) for e in logs} >= {
        ("memory", "govcore.decision_log:MemoryDecisionLog"),
        ("path", "govcore.decision_log:JsonlDecisionLog"),
        ("stream", "govcore.backends.redis:RedisDecisionLog"),
    }


def test_the_setting_decision_log_n_chooses_the_decision_log_n(tmp_path: Path) -> None:
    """No ``decision_log_<name>`` setting: the memory log of ``decision_log_size``;
    ``decision_log_path``: the JSON-lines file; a registered log by its own setting, built
    from its own settings."""
    memory = decision_log_from_settings(load_settings({"decision_log_size": 3}))
    assert isinstance(memory, MemoryDecisionLog)
    assert memory._decisions.maxlen == 3
    path = str(tmp_path / "decisions.jsonl")
    jsonl = decision_log_from_settings(load_settings({"decision_log_path": path}))
    assert isinstance(jsonl, JsonlDecisionLog)
    assert str(jsonl.path) == path
    register_decision_log("audit", AuditLog)
    audit: Any = decision_log_from_settings(
        load_settings({"decision_log_audit": "siem", "audit_level": 3})
    )
    assert (type(audit), audit.target, audit.level) == (AuditLog, "siem", 3)


def test_two_chosen_decision_logs_are_refused() -> None:
    """Setting the keys of two decision logs is an error at the later key, naming both."""
    both = load_settings({"decision_log_path": "x.jsonl", "decision_log_stream": "redis://h/0"})
    with pytest.raises(ConfigError) as caught:
        decision_log_from_settings(both)
    assert _problem(caught) == (
        "settings.decision_log_stream: set either decision_log_path or decision_log_stream, "
        "not both"
    )


def test_a_decision_log_that_refuses_its_setting_is_refused_without_credentials() -> None:
    """A decision log's ValueError is a ConfigError at its setting, its value redacted."""
    register_decision_log("audit", AuditLog)
    with pytest.raises(ConfigError) as caught:
        decision_log_from_settings(load_settings({"decision_log_audit": f"refuse://u:{SECRET}@h"}))
    problem = _problem(caught)
    assert problem.startswith("settings.decision_log_audit: 'refuse://***@h' is refused: ")
    assert SECRET not in problem


def test_third_party_decision_log_plugs_in_through_an_entry_point(site: Path) -> None:
    """A govcore.decision_logs entry point named ``kafka`` is chosen by the setting
    ``decision_log_kafka``; its own keys are accepted and validated in ``settings:``."""
    _distribution(
        site,
        "govcore_kafka",
        "[govcore.decision_logs]\nkafka = thirdparty_kafka:KafkaLog\n",
        thirdparty_kafka="""
            from govcore.settings import SettingsSection

            class KafkaSettings(SettingsSection):
                decision_log_kafka: str | None = None
                kafka_acks: int = 1

            class KafkaLog:
                settings_model = KafkaSettings

                def __init__(self, brokers, acks):
                    self.brokers, self.acks = brokers, acks

                @classmethod
                def from_settings(cls, settings):
                    own = settings.section(KafkaSettings)
                    return cls(own.decision_log_kafka, own.kafka_acks)

                def record(self, decision):
                    pass
        """,
    )
    gov = govcore.Governance.from_config(config(decision_log_kafka="broker:9092", kafka_acks=2))
    sink: Any = gov.decision_log
    assert (type(sink).__name__, sink.brokers, sink.acks) == ("KafkaLog", "broker:9092", 2)
    with pytest.raises(
        ConfigError, match=r"settings: kafka_acks: expected a whole number, got 'all'"
    ):
        load_config(config(decision_log_kafka="broker:9092", kafka_acks="all"))


# --- the backends' own settings ------------------------------------------------------------


def test_a_backend_reads_its_own_settings_or_their_defaults() -> None:
    """``section`` gives the validated section, or the model's defaults when none was given."""
    assert GovernanceSettings().section(MemoryStoreSettings).max_conversations == 1_000_000
    loaded = load_settings({"max_conversations": 7, "retrieval_top_k": 4})
    assert loaded.section(MemoryStoreSettings).max_conversations == 7
    assert loaded.retrieval_top_k == 4
    assert loaded.backend_keys == {"max_conversations"}
    assert not hasattr(loaded, "max_conversations")  # not a shared field


def test_the_memory_store_takes_max_conversations_unless_its_url_sets_conv_entries() -> None:
    """The memory store built from settings limits conversations to ``max_conversations``;
    ``conv_entries`` in the URL wins; the asyncio store shares the rule."""
    clock = FakeClock()
    store = store_from_settings(load_settings({"max_conversations": 2}), clock=clock)
    assert isinstance(store, MemoryStore)
    for key in ("conv:a", "conv:b", "conv:c"):
        store.set(key, b"v", expires_at=clock.now + 60)
    assert [store.get(k) for k in ("conv:a", "conv:b", "conv:c")] == [None, b"v", b"v"]
    url = load_settings({"max_conversations": 2, "store": "memory://?conv_entries=3"})
    wide = store_from_settings(url, clock=clock)
    for key in ("conv:a", "conv:b", "conv:c"):
        wide.set(key, b"v", expires_at=clock.now + 60)
    assert [wide.get(k) for k in ("conv:a", "conv:b", "conv:c")] == [b"v", b"v", b"v"]
    asynchronous = AsyncMemoryStore.from_settings(
        load_settings({"max_conversations": 2}), clock=clock
    )
    assert asynchronous.store._capacities["conv"].max_entries == 2


def test_keys_of_a_backend_not_chosen_are_still_accepted_and_validated() -> None:
    """``max_conversations`` with a Redis store, or ``semantic_model`` with ``tfidf``, is
    accepted as before, and a bad value is still refused naming the field."""
    load_config(config(store="redis://h:1/0", max_conversations=5, semantic_model="m"))
    with pytest.raises(ConfigError) as caught:
        load_config(config(store="redis://h:1/0", max_conversations=0))
    (problem,) = caught.value.problems
    assert str(problem) == (
        "settings: max_conversations: expected a whole number of at least 1, got 0"
    )


def test_an_unknown_setting_suggests_a_backend_key() -> None:
    """A misspelt backend key is an unknown field naming the key probably meant."""
    with pytest.raises(ConfigError) as caught:
        load_config(config(max_conversation=5, decision_log_sise=3))
    problems = sorted(str(p) for p in caught.value.problems)
    assert problems == [
        "settings: decision_log_sise: unknown field (did you mean 'decision_log_size'?)",
        "settings: max_conversation: unknown field (did you mean 'max_conversations'?)",
    ]


_THIRD_PARTY_STORE_WITH_SETTINGS = """
    from govcore.settings import SettingsSection

    class ShardSettings(SettingsSection):
        shard_count: int = 1

    class ShardStore:
        settings_model = ShardSettings

        def __init__(self, *, clock):
            self.clock = clock
"""


def test_loading_imports_only_the_backends_that_may_own_the_keys(site: Path) -> None:
    """Keys the chosen backends own import no other backend; a key they do not own makes the
    others load, so that a key of an installed backend is accepted and validated."""
    _distribution(
        site,
        "govcore_shards",
        "[govcore.stores]\nshard = thirdparty_shards:ShardStore\n",
        thirdparty_shards=_THIRD_PARTY_STORE_WITH_SETTINGS,
    )
    load_config(config(max_conversations=3, decision_log_size=10))
    assert "thirdparty_shards" not in sys.modules
    owners = settings_models(["shard_count", "max_conversations"], GovernanceSettings())
    assert {model.__name__: keys for model, keys in owners.items()} == {
        "MemoryStoreSettings": ["max_conversations"],
        "ShardSettings": ["shard_count"],
    }
    with pytest.raises(
        ConfigError, match=r"settings: shard_count: expected a whole number, got 'many'"
    ):
        load_config(config(shard_count="many"))


def test_a_backend_that_cannot_be_imported_owns_no_key(site: Path) -> None:
    """A declared backend whose module is missing makes an unknown key unknown, not a crash."""
    _distribution(site, "govcore_ghost", "[govcore.stores]\nghost = thirdparty_ghost:Store\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config(ghost_mode=True))
    assert _problem(caught) == "settings: ghost_mode: unknown field"


# --- the one sync-to-async adapter ----------------------------------------------------------


def test_an_awaited_store_is_pipelined_exactly_when_its_store_is() -> None:
    """``awaited`` adds ``admit`` only for a store that has it: govcore detects the pipelined
    methods by their presence, so a wrapper that always had them would break a plain store."""
    plain = awaited(MemoryStore(clock=FakeClock()))
    assert type(plain) is AwaitedStore
    assert not isinstance(plain, AsyncPipelinedStore)

    class Pipelined(MemoryStore):
        def admit(self, key: str, **options: Any) -> Any:
            return options

    store = Pipelined(clock=FakeClock())
    assert isinstance(store, PipelinedStore)
    wrapped = awaited(store)
    assert type(wrapped) is AwaitedPipelinedStore
    assert isinstance(wrapped, AsyncPipelinedStore)
    assert isinstance(AsyncMemoryStore(), AwaitedStore)


def test_building_a_governance_reads_the_entry_points_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loader's owner lookup, the store, the retriever and the decision log of one
    ``from_config`` share one read of the installed distributions' metadata (each read costs
    milliseconds); the next ``from_config`` reads again, and so sees what was installed since."""
    reads: list[object] = []
    read = importlib.metadata.entry_points

    def counted(**params: Any) -> Any:
        group = params.get("group")
        if group is None or group.startswith("govcore."):  # not another library's plugins
            reads.append(group)
        return read(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    govcore.Governance.from_config(config(max_conversations=3, decision_log_size=5)).close()
    assert reads == [None]
    govcore.Governance.from_config(config()).close()
    assert reads == [None, None]


def test_an_empty_decision_log_path_keeps_the_default_log() -> None:
    """``decision_log_path: ""`` (a template whose variable was unset) counts as unset, as it
    always has: the decisions stay in memory."""
    gov = govcore.Governance.from_config(config(decision_log_path=""))
    assert isinstance(gov.decision_log, MemoryDecisionLog)


def test_a_backend_that_fails_to_import_owns_no_keys(site: Path) -> None:
    """An installed backend whose module raises at import cannot break loading a configuration
    that does not choose it, even when an unknown key makes every backend be asked."""
    _distribution(
        site,
        "govcore_broken",
        "[govcore.stores]\nbroken = thirdparty_broken:BrokenStore\n",
        thirdparty_broken="raise RuntimeError('this plugin is broken')\n",
    )
    with pytest.raises(ConfigError, match="maxx_conversations: unknown field"):
        load_settings({"maxx_conversations": 5})
    assert load_settings({"max_conversations": 5}).store == "memory://"
