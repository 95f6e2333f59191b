"""The public namespace."""

from __future__ import annotations

import govcore


def test_all_is_sorted_and_complete() -> None:
    """__all__ is sorted, and every public name of the package is in it."""
    assert govcore.__all__ == sorted(govcore.__all__)
    # `annotations` is the __future__ feature every module imports, not an API name.
    public = {name for name in vars(govcore) if not name.startswith("_")} - {"annotations"}
    modules = {name for name, value in vars(govcore).items() if type(value).__name__ == "module"}
    assert public - modules - set(govcore.__all__) == set()
    for name in govcore.__all__:
        assert hasattr(govcore, name), name


def test_errors_carry_status_and_code() -> None:
    """Each error class has the status and code of the contract's table."""
    expected = {
        govcore.InvalidRequestError: (400, "invalid_request"),
        govcore.AuthenticationError: (401, "unauthenticated"),
        govcore.PermissionDeniedError: (403, "forbidden"),
        govcore.NotFoundError: (404, "not_found"),
        govcore.RateLimitedError: (429, "rate_limited"),
        govcore.BackendError: (503, "backend_unavailable"),
    }
    for cls, (status, code) in expected.items():
        assert issubclass(cls, govcore.GovcoreError)
        assert (cls.status, cls.code) == (status, code)
    assert issubclass(govcore.ConfigError, govcore.GovcoreError)
