"""nginxgen/knowledge/releases.json is what scripts/build_releases.py makes of the committed tag
lists (tests/data/releases/, refreshed from clones with --refresh), and it knows every release
the provisioned builds run."""

from __future__ import annotations

import sys

import pytest

from nginxgen.knowledge.target import resolve
from tests.builds import ALL_BUILD_NAMES, Build
from tests.conftest import require_build
from tests.paths import REPO

sys.path.insert(0, str(REPO / "scripts"))
import build_releases


def _lists() -> dict[str, build_releases.RepoList]:
    return {repo: build_releases.read_list(repo) for repo in build_releases.REPOS}


def test_releases_json_is_what_the_script_makes_of_the_committed_lists() -> None:
    fresh = build_releases.build(_lists(), build_releases.read_extra())
    stored = build_releases.OUT.read_text(encoding="utf-8")
    assert stored == fresh, "run: python scripts/build_releases.py"


def test_a_new_tag_in_a_list_changes_the_table() -> None:
    """The comparison above sees the lists: one more AWS-LC tag is one more branch."""
    lists = _lists()
    aws = lists["aws/aws-lc"]
    lists["aws/aws-lc"] = build_releases.RepoList(
        aws.repo, aws.commit, aws.date, (*aws.lines, "v99.1.0")
    )
    fresh = build_releases.build(lists, build_releases.read_extra())
    assert '"99.1": 0' in fresh and fresh != build_releases.OUT.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("product", "tag", "version"),
    [
        ("openssl", "OpenSSL_1_1_1w", (1, 1, 1)),  # letter releases count as their number
        ("openssl", "openssl-3.3.2", (3, 3, 2)),
        ("openssl", "OpenSSL_1_0_0-beta1", None),
        ("openssl", "OpenSSL-fips-2_0_16", None),
        ("openssl", "openssl-3.1.5-quic1", None),  # QuicTLS's, not OpenSSL's
        ("quictls", "openssl-3.1.5-quic1", (3, 1, 5)),
        ("quictls", "OpenSSL_1_1_1o+quic1", (1, 1, 1)),
        ("quictls", "opernssl-3.1.5-quic1", None),  # a misspelt tag in the repository
        ("aws-lc", "v5.5.0", (5, 5, 0)),
        ("aws-lc", "AWS-LC-FIPS-3.0.0", None),  # the FIPS module's numbering
        ("nginx", "release-1.31.4", (1, 31, 4)),
    ],
)
def test_which_tags_are_releases(
    product: str, tag: str, version: tuple[int, int, int] | None
) -> None:
    spec = next(p for p in build_releases.PRODUCTS if p.key == product)
    found = build_releases.tag_versions(spec, [tag])
    assert list(found) == ([version] if version else [])


def test_every_extra_release_is_one_the_lists_do_not_show() -> None:
    """An extra that a refreshed list came to show is a second source of one fact: drop it."""
    lists = _lists()
    for extra in build_releases.read_extra():
        spec = next(p for p in build_releases.PRODUCTS if p.key == extra.product)
        assert extra.version not in build_releases.tag_versions(spec, lists[spec.repo].lines)


@pytest.mark.parametrize("name", ALL_BUILD_NAMES)
def test_each_provisioned_build_is_a_known_release(
    name: str,
    provisioned: tuple[dict[str, Build], dict[str, str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The builds' own target flags resolve without a warning: their versions are releases
    nginxgen knows, so no run of the live tests assumes another release's facts."""
    build = require_build(provisioned, name)
    target = resolve(build.nginx_version, build.tls_library)
    assert target.assumed == (), target.assumed
    assert "warning" not in capsys.readouterr().err
