"""What `pip install` reads and what the repository must hold to stand alone:
runtime dependencies without test tools, extras that name each other
instead of repeating bounds, a licence file that matches the metadata, the
schemas in the package data, and README and manual links that lead to files here.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

from welcometo_sim.schemas import OUTPUT_COMMANDS

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS = {name: [Requirement(r) for r in reqs] for name, reqs in PROJECT["optional-dependencies"].items()}
SELF = "welcometo-sim"
TEST_TOOLS = {"pytest", "hypothesis", "jsonschema"}


def self_extras(extra: str) -> set[str]:
    """The extras an extra takes in by naming the project itself."""
    return {name for r in EXTRAS[extra] if r.name == SELF for name in r.extras}


def test_runtime_dependencies_hold_no_test_tools():
    names = {Requirement(r).name for r in PROJECT["dependencies"]}
    assert names.isdisjoint(TEST_TOOLS)
    assert {"click", "numpy", "pandas", "joblib", "pyyaml", "tqdm", "scipy"} <= names


def test_test_and_all_name_the_other_extras_without_repeating_them():
    """`all` is every feature; `test` adds the docs tools, since the tests
    build the manual."""
    features = set(EXTRAS) - {"test", "all", "docs"}
    assert features == {"parquet", "plots", "dask", "rl"}
    assert self_extras("all") == features and len(EXTRAS["all"]) == 1
    assert features | {"docs"} == self_extras("test")
    assert {r.name for r in EXTRAS["docs"]} == {"mkdocs", "mkdocs-click"}
    feature_packages = {r.name for name in features for r in EXTRAS[name]}
    assert feature_packages.isdisjoint(r.name for r in EXTRAS["test"])
    assert TEST_TOOLS <= {r.name for r in EXTRAS["test"]}


def test_every_dependency_has_a_lower_bound():
    """The lowest-versions CI run installs these bounds: each must be one."""
    for requirement in [Requirement(r) for r in PROJECT["dependencies"]] + sum(EXTRAS.values(), []):
        if requirement.name != SELF:
            assert any(spec.operator == ">=" for spec in requirement.specifier), requirement


def test_cython_is_capped_below_its_next_major_version():
    [cython] = [Requirement(r) for r in PYPROJECT["build-system"]["requires"] if r.startswith("Cython")]
    assert "4.0" not in cython.specifier and "3.0" in cython.specifier and "3.99" in cython.specifier


def test_licence_file_matches_the_metadata():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} welcometo_sim contributors$", text, re.M)
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in text


def test_schemas_are_package_data():
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["welcometo_sim"]
    shipped = sorted(p.relative_to(ROOT / "welcometo_sim").as_posix()
                     for p in (ROOT / "welcometo_sim" / "schemas").glob("*.json"))
    outputs = [f"schemas/json-{command}.schema.json" for command in OUTPUT_COMMANDS]  # each --json document's
    assert shipped == sorted(["schemas/record.schema.json", "schemas/shake-that-city.record.schema.json", *outputs])
    assert all(any(fnmatch.fnmatch(path, pattern) for pattern in patterns) for path in shipped)


def test_native_sources_are_package_data():
    """The native modules' .pyx and .pxd files go into the sdist, which builds
    them, and the wheel: a module that cimports a .pxd is compiled with it."""
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["welcometo_sim"]
    folder = ROOT / "welcometo_sim" / "native"
    sources = [p.relative_to(ROOT / "welcometo_sim").as_posix() for p in [*folder.glob("*.pyx"), *folder.glob("*.pxd")]]
    assert {"native/sheet.pyx", "native/sheet.pxd", "native/game.pyx"} <= set(sources)
    assert all(any(fnmatch.fnmatch(path, pattern) for pattern in patterns) for path in sources)


def markdown_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)  # code spans show links, they hold none
    return re.findall(r"\]\(([^)\s]+)\)", text)


def heading_anchors(path: Path) -> set[str]:
    """The anchors a Markdown renderer gives the headings of a file."""
    anchors = set()
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_readme_and_docs_links_lead_to_files_and_headings_here():
    for document in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        for link in markdown_links(document):
            if re.match(r"[a-z]+:", link):
                continue
            target, _, anchor = link.partition("#")
            path = (document.parent / target).resolve() if target else document
            assert path.is_file() and ROOT in path.parents, (document.name, link)
            if anchor and path.suffix == ".md":
                assert anchor in heading_anchors(path), (document.name, link)
    readme_links = markdown_links(ROOT / "README.md")
    assert any(link.startswith("docs/RECORDS.md") for link in readme_links)
    assert any(link.startswith("docs/RULES.md") for link in readme_links)
    assert not re.search(r"(?<![/\[])\bRECORDS\.md\b(?!\]|\))", (ROOT / "README.md").read_text(encoding="utf-8"))


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter started in `cwd`, with nothing added to its path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_install_puts_no_top_level_strategies_package_into_site_packages():
    """`strategies/` is installed as `welcometo_sim.strategies`: the one
    top-level name is the project's own (a `strategies` package would collide
    with other projects')."""
    top_level = importlib.metadata.distribution(SELF).read_text("top_level.txt")
    assert top_level is not None and top_level.split() == ["welcometo_sim"]


def test_outside_the_repository_the_strategies_have_their_installed_name_only(tmp_path):
    """Where the repository is not on the path (any install), `strategies` is
    not importable, while the built-ins and configs naming them by their
    repository path (`strategies.greedy:GreedyStrategy`) still load."""
    done = run_python(
        "import importlib.util\n"
        "print(importlib.util.find_spec('strategies') is None)\n"
        "from welcometo_sim.strategy import builtin_strategies, load_strategy\n"
        "import welcometo_sim.strategies.greedy as greedy\n"
        "print(load_strategy('greedy') is greedy.GreedyStrategy is load_strategy('strategies.greedy:GreedyStrategy'))\n"
        "print(builtin_strategies()['random'])", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["True", "True", "welcometo_sim.strategies.random:RandomStrategy"]


def test_inside_the_repository_strategies_names_the_installed_modules_themselves():
    """`import strategies` (the folder's name) and the installed name give the
    same module objects, in either order, not two copies of each file."""
    code = ("import {first}, {second}\n"
            "import strategies.greedy, strategies.heuristic, welcometo_sim.strategies.greedy as installed\n"
            "assert strategies.greedy.GreedyStrategy is installed.GreedyStrategy\n"
            "assert strategies.heuristic is sys.modules['welcometo_sim.strategies.heuristic']\n"
            "assert strategies is sys.modules['welcometo_sim.strategies']\n"
            "assert strategies.greedy.__spec__.name == 'welcometo_sim.strategies.greedy'\n"
            "print(installed.GreedyStrategy.__module__)")
    for first, second in [("strategies", "welcometo_sim.strategies"), ("welcometo_sim.strategies", "strategies")]:
        done = run_python("import sys\n" + code.format(first=first, second=second), ROOT)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "welcometo_sim.strategies.greedy\n"
