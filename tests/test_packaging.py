"""The distribution: what a wheel and an editable install contain, and ruff (the layers are
checked in test_layers)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORT_PACKAGES = ("cuttle_net", "cuttle_protocol", "cuttle_client")


def test_wheel_contains_every_import_package(tmp_path: Path) -> None:
    # The build backend's PEP 517 hook, as pip calls it (without pip's own start-up, three
    # times the backend's); hatchling comes from the test extras, so no network is needed.
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, hatchling.build as backend; backend.build_wheel(sys.argv[1])",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    (wheel,) = tmp_path.glob("cuttle_net-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for package in IMPORT_PACKAGES:
        assert f"{package}/__init__.py" in names, f"{package} missing from {wheel.name}"
    assert not any(n.startswith(("tests/", "protocol/", "client/")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "cuttle = cuttle_client.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_packages_import_from_this_checkout() -> None:
    # Run in a neutral directory so the checkout is not on sys.path by accident.
    code = (
        "import importlib, sys\nfor p in sys.argv[1:]: print(importlib.import_module(p).__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *IMPORT_PACKAGES],
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
    ).stdout.split()
    assert len(out) == len(IMPORT_PACKAGES)
    for path in out:
        assert Path(path).resolve().is_relative_to(ROOT), path


def test_ruff_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
