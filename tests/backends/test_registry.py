"""Backends chosen by name: the entry-point registry behind settings.store and .retriever."""

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

from govcore import ConfigError, backends
from govcore.backends import (
    register_retriever,
    register_store,
    retriever_from_name,
    store_from_url,
)
from govcore.backends.memory import MemoryStore
from govcore.backends.tfidf import TfidfRetriever
from govcore.config import GovernanceSettings
from govcore.testing import FakeClock

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
    monkeypatch.setattr(backends._STORES, "registered", dict(backends._STORES.registered))
    monkeypatch.setattr(backends._RETRIEVERS, "registered", dict(backends._RETRIEVERS.registered))


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
    assert "known: memory://, redis://, rediss://" in problem
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
