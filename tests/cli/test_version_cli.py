"""`harn --version`: the package's version, the one the wheel's metadata carries (pyproject reads it from
harn_tui/__init__.py)."""

from __future__ import annotations

from importlib.metadata import version

from tests.conftest import Harn


def test_version_prints_the_installed_package_version(harn: Harn) -> None:
    result = harn("--version")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == f"harn {version('harn_tui')}\n"
