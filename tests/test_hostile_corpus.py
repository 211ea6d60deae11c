"""The hostile corpus (tests/hostile_corpus.py) leaves nothing to count: no traceback, no
wrong accept, no hang, no user file changed and nothing left behind, in any class.

The whole corpus runs each case in its own process (several minutes), so it is ``slow``;
``make hostile`` prints its table. The classifier itself is checked here on cases built to
fail, so that a corpus run that finds nothing means something.
"""

import pytest
from hostile_corpus import CLASSES, Case, _classify, corpus, run_corpus, table


@pytest.mark.slow
def test_the_whole_corpus_finds_nothing():
    results = run_corpus(corpus(), jobs=2)
    failed = [f"{case.klass} | {case.name}: {', '.join(f)} -- {d}" for case, f, d in results if f]
    assert not failed, table(results) + "\n" + "\n".join(failed)


def test_every_class_has_cases():
    cases = corpus()
    assert {case.klass for case in cases} == set(CLASSES)
    assert len({(case.klass, case.name) for case in cases}) == len(cases)


BEFORE = {"notes.md": ("file", "a"), "linkdir": ("link", "/elsewhere")}


@pytest.mark.parametrize(
    ("status", "err", "after", "expect", "failure"),
    [
        (1, "Traceback (most recent call last):\n", BEFORE, "refuse", "traceback"),
        (-9, "", BEFORE, "refuse", "traceback"),
        (0, "", BEFORE, "refuse", "wrong accept"),
        (0, "", BEFORE, "damaged", "wrong accept"),
        (None, "", BEFORE, "refuse", "hang"),
        (0, "", {**BEFORE, "notes.md": ("file", "b")}, "ok", "user data lost"),
        (0, "", {**BEFORE, "linkdir": ("link", "/other")}, "ok", "user data lost"),
        (
            2,
            "simcore x: no\n",
            {**BEFORE, ".notes.md.tmp": ("file", "c")},
            "refuse",
            "left behind",
        ),  # fmt: skip
    ],
)
def test_the_classifier_sees_each_failure(status, err, after, expect, failure):
    case = Case("command line", "probe", argv=("x",), expect=expect)
    failures, _ = _classify(case, status, err, BEFORE, after)
    assert failure in failures


def test_the_classifier_passes_a_clean_refusal_and_an_unclear_python_error():
    case = Case("command line", "probe", argv=("x",))
    assert _classify(case, 2, "simcore x: --y: bad\n", BEFORE, BEFORE)[0] == []
    call = Case("Python API", "probe", code="f()", keyword="table")
    assert _classify(call, 2, "REFUSED TypeError table: 4 ints\n", BEFORE, BEFORE)[0] == []
    assert _classify(call, 2, "REFUSED TypeError string indices\n", BEFORE, BEFORE)[0] == [
        "traceback"
    ]
