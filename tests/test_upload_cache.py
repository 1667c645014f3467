"""The upload cache (``trace_explorer.read.upload_cache``): a set of files comes back under its
digest, byte for byte; the size cap and the age limit remove the sets used longest ago first;
only a digest of 64 hex digits ever becomes a path."""

from __future__ import annotations

import hashlib
import json

import pytest

from trace_explorer.read.upload_cache import (DAY_S, InvalidDigest, UploadCache, UploadsGone, UploadsTooLarge,
                                              cache_from_settings, set_digest)


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def files(tag: str, size: int) -> list[tuple[str, bytes]]:
    return [(f"{tag}.ttl", (tag.encode() * size)[:size])]


def stored_bytes(cache: UploadCache) -> int:
    return sum(p.stat().st_size for p in cache.root.rglob("*") if p.is_file() and p.name != ".lock")


def test_a_set_comes_back_byte_for_byte_under_the_digest_of_its_names_and_contents(tmp_path):
    cache = UploadCache(tmp_path, 10_000, DAY_S)
    batch = [("a.ttl", b"<urn:a> <urn:p> <urn:b> ."), ("a.documents.json", b'{"urn:d": "text"}')]
    digest = cache.put(batch)
    expected = set_digest([(n, hashlib.sha256(d).hexdigest()) for n, d in batch])
    assert digest == expected and len(digest) == 64
    assert cache.open(digest) == sorted(batch)  # by name
    assert cache.put(list(reversed(batch))) == digest  # the same files, the same link
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == sorted(hashlib.sha256(d).hexdigest() for _, d in batch)
    assert UploadCache(tmp_path, 10_000, DAY_S).open(digest) == sorted(batch)  # another process, the same folder


def test_the_cap_removes_the_sets_used_longest_ago_first(tmp_path):
    clock = Clock()
    cache = UploadCache(tmp_path, 3_400, 30 * DAY_S, clock)  # three sets of 900 bytes and a manifest each
    digests = []
    for tag in "abc":
        digests.append(cache.put(files(tag, 900)))
        clock.now += 60
    a, b, c = digests
    cache.open(a)  # a used again: b is now the one used longest ago
    clock.now += 60
    d = cache.put(files("d", 900))
    with pytest.raises(UploadsGone):
        cache.open(b)
    assert [cache.open(x)[0][0] for x in (a, c, d)] == ["a.ttl", "c.ttl", "d.ttl"]
    assert stored_bytes(cache) <= 3_400
    assert hashlib.sha256(files("b", 900)[0][1]).hexdigest() not in {p.name for p in (tmp_path / "files").iterdir()}


def test_a_file_two_sets_share_is_kept_while_one_of_them_is(tmp_path):
    clock = Clock()
    cache = UploadCache(tmp_path, 2_500, 30 * DAY_S, clock)
    shared = files("s", 1000)
    first = cache.put(shared + files("x", 100))
    clock.now += 1
    second = cache.put(shared + files("y", 100))
    clock.now += 1
    cache.put(files("z", 1000))  # over the cap with both: the first set goes, the shared file stays
    with pytest.raises(UploadsGone):
        cache.open(first)
    assert cache.open(second)[0] == shared[0]


def test_a_set_unused_past_the_age_limit_is_gone_and_a_use_renews_it(tmp_path):
    clock = Clock()
    cache = UploadCache(tmp_path, 1_000_000, 7 * DAY_S, clock)
    old, used = cache.put(files("old", 10)), cache.put(files("used", 10))
    clock.now += 6 * DAY_S
    cache.open(used)
    clock.now += 2 * DAY_S  # 8 days after both were uploaded; 2 since "used" was opened
    with pytest.raises(UploadsGone) as gone:
        cache.open(old)
    assert gone.value.digest == old
    assert cache.open(used) == files("used", 10)
    assert not any(p.name == hashlib.sha256(files("old", 10)[0][1]).hexdigest() for p in (tmp_path / "files").iterdir())
    late = cache.put(files("late", 10))
    clock.now += 7 * DAY_S - 30
    cache.put(files("other", 10))  # the folder pruned: "late" is still young
    clock.now += 31  # past its age a moment after that prune: gone all the same
    with pytest.raises(UploadsGone):
        cache.open(late)


def test_a_set_over_the_whole_cap_is_refused_and_nothing_is_written(tmp_path):
    cache = UploadCache(tmp_path, 500, DAY_S)
    with pytest.raises(UploadsTooLarge):
        cache.put(files("big", 501))
    assert not (tmp_path / "files").exists() and not (tmp_path / "sets").exists()


@pytest.mark.parametrize("value", ["../../etc/passwd", "a" * 63, "a" * 65, "A" * 64, "g" * 64, "", "0" * 63 + "/",
                                   "0" * 64 + "\n", "0" * 64 + ".json", "..", "/" + "0" * 63])
def test_only_a_digest_reaches_the_filesystem(tmp_path, monkeypatch, value):
    secret = tmp_path / "outside.json"
    secret.write_text('{"files": [{"name": "x", "digest": "%s", "size": 1}]}' % ("0" * 64))
    cache = UploadCache(tmp_path / "cache", 10_000, DAY_S)
    cache.put(files("a", 10))
    touched = []
    for method in ("read_bytes", "stat", "exists"):
        original = getattr(type(tmp_path), method)
        monkeypatch.setattr(type(tmp_path), method,
                            lambda self, *a, _o=original, **k: touched.append(str(self)) or _o(self, *a, **k))
    with pytest.raises(InvalidDigest):
        cache.open(value)
    assert touched == []  # refused before any path was made of it


def test_a_manifest_naming_a_bad_digest_is_gone_not_followed(tmp_path):
    cache = UploadCache(tmp_path, 10_000, DAY_S)
    digest = cache.put(files("a", 10))
    (tmp_path / "sets" / f"{digest}.json").write_text('{"files": [{"name": "x", "digest": "../../x", "size": 1}]}')
    with pytest.raises(UploadsGone):
        cache.open(digest)


def test_the_environment_overrides_the_config_files_uploads_table(tmp_path):
    settings = {"folder": str(tmp_path / "from-file"), "max_mb": 10, "max_age_days": 2}
    from_file = cache_from_settings(settings, environ={})
    assert (from_file.root, from_file.max_bytes, from_file.max_age_s) == (tmp_path / "from-file", 10 * 1024 * 1024, 2 * DAY_S)
    environ = {"TRACE_EXPLORER_UPLOAD_CACHE": str(tmp_path / "env"), "TRACE_EXPLORER_UPLOAD_CACHE_MB": "1.5",
               "TRACE_EXPLORER_UPLOAD_CACHE_DAYS": "0.5"}
    from_env = cache_from_settings(settings, environ=environ)
    assert (from_env.root, from_env.max_bytes, from_env.max_age_s) == (tmp_path / "env", int(1.5 * 1024 * 1024), DAY_S / 2)
    defaults = cache_from_settings({"max_mb": "lots", "max_age_days": -1}, environ={"XDG_CACHE_HOME": str(tmp_path)})
    assert (defaults.root, defaults.max_bytes, defaults.max_age_s) == (tmp_path / "trace-explorer" / "uploads",
                                                                       2048 * 1024 * 1024, 7 * DAY_S)


def test_one_visitors_uploads_never_push_out_anothers_within_their_quota(tmp_path):
    # the adversary's four uploads at an 8 MiB cap made another visitor's link "gone": each
    # visitor now has a quota (a quarter of the cap by default), and past it their own sets go
    clock = Clock()
    cache = UploadCache(tmp_path, 4_000, 30 * DAY_S, clock, max_owner_bytes=1_200)
    theirs = cache.put(files("theirs", 900), owner="b")
    mine = []
    for tag in "wxyz":
        clock.now += 60
        mine.append(cache.put(files(tag, 900), owner="a"))
    assert cache.open(theirs) == files("theirs", 900)
    assert cache.open(mine[-1]) == files("z", 900)
    for gone in mine[:-1]:  # one set of 900 bytes (and its manifest) fits in the quota of 1,200
        with pytest.raises(UploadsGone):
            cache.open(gone)
    with pytest.raises(UploadsTooLarge, match=r"for one person \(1,200 bytes\)"):
        cache.put(files("big", 1_101), owner="a")


def test_over_the_cap_the_putting_visitors_own_sets_go_before_older_ones_of_others(tmp_path):
    clock = Clock()
    cache = UploadCache(tmp_path, 3_400, 30 * DAY_S, clock)  # three sets of 900 bytes and a manifest each
    theirs = cache.put(files("theirs", 900), owner="b")  # used longest ago, yet kept
    sets = {}
    for tag in ("first", "second", "third"):
        clock.now += 60
        sets[tag] = cache.put(files(tag, 900), owner="a")
    with pytest.raises(UploadsGone):  # over the cap: a's own oldest went, not b's older set
        cache.open(sets["first"])
    clock.now += 60
    cache.put(files("new", 900), owner="c")  # a visitor with nothing kept: the least recently used set goes
    with pytest.raises(UploadsGone):
        cache.open(theirs)
    assert [cache.open(sets[x])[0][0] for x in ("second", "third")] == ["second.ttl", "third.ttl"]


def test_the_quota_is_a_quarter_of_the_cap_unless_set(tmp_path):
    cache = cache_from_settings({"folder": str(tmp_path), "max_mb": 8}, environ={})
    assert (cache.max_bytes, cache.quota) == (8 * 1024 * 1024, 2 * 1024 * 1024)
    cache = cache_from_settings({"folder": str(tmp_path), "max_mb": 8}, environ={"TRACE_EXPLORER_UPLOAD_QUOTA_MB": "3"})
    assert cache.quota == 3 * 1024 * 1024
    assert cache_from_settings({"folder": str(tmp_path), "max_mb": 8, "quota_mb": 20}, environ={}).quota == 8 * 1024 * 1024


def test_a_link_opened_by_another_visitor_stays_its_uploaders(tmp_path):
    # the app keeps a reopened link's files again as the opener's; the set keeps its first owner,
    # so the opener's own uploads never push it out as theirs
    clock = Clock()
    cache = UploadCache(tmp_path, 4_000, 30 * DAY_S, clock, max_owner_bytes=1_200)
    theirs = cache.put(files("theirs", 900), owner="b")
    clock.now += 60
    assert cache.put(files("theirs", 900), owner="a") == theirs  # a opens b's link
    clock.now += 60
    cache.put(files("mine", 900), owner="a")  # a's quota holds one set: not b's
    assert cache.open(theirs) == files("theirs", 900)
    assert json.loads((tmp_path / "sets" / f"{theirs}.json").read_text())["owner"] == "b"
