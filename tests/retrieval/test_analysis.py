"""The analyser's word cache under concurrent use."""

from __future__ import annotations

import threading

import pytest

from govcore.retrieval import analysis
from govcore.retrieval.analysis import Analyzer


def test_cache_renewal_is_safe_while_other_threads_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a cache small enough to be renewed all the time, four threads analysing texts with
    phrases get the same terms as one thread does, and nothing raises."""
    monkeypatch.setattr(analysis, "_CACHE_LIMIT", 8)
    analyzer = Analyzer(synonyms={"refund": ["money back", "give me my money back"]})
    texts = [f"word{i} please give me my money back for order {i} money back" for i in range(300)]
    expected = [
        Analyzer(synonyms={"refund": ["money back", "give me my money back"]}).term_counts(t)
        for t in texts
    ]
    failures: list[BaseException] = []
    results: dict[int, list[dict[str, int]]] = {}

    def work(number: int) -> None:
        try:
            results[number] = [analyzer.term_counts(text) for text in texts]
        except BaseException as exc:  # the assertion below reports it
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert all(result == expected for result in results.values())
