"""The manual builds as a site with warnings as errors, every page in it.

`mkdocs build --strict` fails on a broken link or anchor between pages, a
page missing from the navigation and a command the generated reference cannot
document, so a page moved or renamed without its links fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from welcometo_sim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def nav_pages(entries) -> list[str]:
    """Every page file named in an mkdocs `nav`, nested sections included."""
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def mkdocs_config() -> dict:
    """mkdocs.yml, read as data (it uses no Python tags)."""
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_the_manual_builds_with_warnings_as_errors(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr
    reference = (site / "cli-reference" / "index.html").read_text(encoding="utf-8")
    for name in cli.commands:
        assert f'id="{name}"' in reference, f"the generated reference lacks `wtsim {name}`"
    assert (site / "viewer.png").is_file()


def test_every_page_is_in_the_navigation():
    pages = nav_pages(mkdocs_config()["nav"])
    assert len(pages) == len(set(pages))
    assert sorted(pages) == sorted(path.name for path in DOCS.glob("*.md"))


def test_the_site_is_strict_and_generates_the_command_reference():
    config = mkdocs_config()
    assert config["strict"] is True
    assert "mkdocs-click" in config["markdown_extensions"]
    assert "::: mkdocs-click" in (DOCS / "cli-reference.md").read_text(encoding="utf-8")


def test_the_readme_is_a_front_door():
    """At most 250 lines, with the two set-up commands as .ci/run runs them,
    and a link to every page of the manual."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "pip install -e . && wtsim run\n" in readme
    assert "pip install -e '.[test]' && python -m pytest\n" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'\npython -m pytest\n" in ci
    for page in DOCS.glob("*.md"):
        if page.name != "index.md":
            assert f"](docs/{page.name}" in readme, f"the README does not link docs/{page.name}"
