"""The real MovieLens 100K, from the RecBole 1.2.1 wheel, through load_movielens's download path on 127.0.0.1.

Pins what the capstone notebook's committed numbers rest on: the file's SHA-256, 100,000 ratings,
943 users and
1,682 items. Without the wheel the test is SKIPPED loudly (FAILS under CI=true); see tests/movielens_wheel.py.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from tests import movielens_wheel as real
from topkeval import datasets as data


@pytest.fixture(scope="module")
def wheel(require):
    found = real.find_wheel()
    require(real.COMPONENT, found, real.HOW_TO_GET)
    return found


def test_the_wheel_holds_the_pinned_file(wheel):
    inter = real.read_inter(wheel)  # raises if the SHA-256 differs
    assert hashlib.sha256(inter).hexdigest() == real.INTER_SHA256
    assert inter.startswith(real.HEADER) and inter.count(b"\n") == real.N_RATINGS + 1


def test_load_movielens_reads_the_real_ratings(wheel, tmp_path):
    folder = real.provision(tmp_path, wheel)
    assert folder == tmp_path / "ml-100k"
    ratings = data.load_movielens("ml-100k", tmp_path, download=False)  # from the cache: no server needed now
    assert ratings.shape == (real.N_RATINGS, 4)
    assert ratings["user"].nunique() == real.N_USERS and ratings["item"].nunique() == real.N_ITEMS
    assert ratings["user"].min() == 1 and ratings["user"].max() == real.N_USERS
    assert ratings["item"].min() == 1 and ratings["item"].max() == real.N_ITEMS
    assert sorted(ratings["rating"].unique().tolist()) == [1, 2, 3, 4, 5]
    assert ratings.iloc[0].tolist() == [196, 242, 3, 881250949]  # u.data's first line
    assert not ratings.duplicated(["user", "item"]).any()  # one rating per (user, item)
    assert (ratings["rating"] >= 4).sum() == 55_375  # the positives the capstone keeps
    assert ratings.dtypes.astype(str).tolist() == ["int64"] * 4


def test_a_tampered_file_is_refused(wheel, tmp_path):
    import zipfile

    changed = tmp_path / real.WHEEL
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(changed, "w") as target:
        content = source.read(real.MEMBER)
        target.writestr(real.MEMBER, content.replace(b"196\t242\t3", b"196\t242\t5", 1))
    with pytest.raises(ValueError, match="not the pinned"):
        real.read_inter(changed)
    assert not (tmp_path / "ml-100k").exists()


def test_the_header_is_checked():
    with pytest.raises(ValueError, match="does not start with the header"):
        real.as_u_data(b"196\t242\t3\t881250949\n")
    assert real.as_u_data(real.HEADER + b"1\t2\t3\t4\n") == b"1\t2\t3\t4\n"
    assert np.array_equal(np.frombuffer(real.as_u_data(real.HEADER), dtype=np.uint8), [])
