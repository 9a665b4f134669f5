"""The pure diff model: hunks, line numbers, partial application, word spans."""

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.thread.diff import (
    DiffLine,
    FileDiff,
    apply_hunks,
    compute_diff,
    path_warning,
    revert_hunks,
    split_lines,
    split_rows,
    word_spans,
)


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def test_single_change_hunk_has_context_numbers_and_header() -> None:
    old = numbered(10)
    new = old.replace("line 5\n", "line five\n")
    diff = compute_diff("src/a.py", old, new)
    assert len(diff.hunks) == 1
    hunk = diff.hunks[0]
    assert hunk.header == "@@ -2,7 +2,7 @@"
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (2, 7, 2, 7)
    kinds = [line.kind for line in hunk.lines]
    assert kinds == ["context"] * 3 + ["remove", "add"] + ["context"] * 3
    assert hunk.lines[3] == DiffLine("remove", 5, None, "line 5", "\n")
    assert hunk.lines[4] == DiffLine("add", None, 5, "line five", "\n")
    assert hunk.lines[0] == DiffLine("context", 2, 2, "line 2", "\n")
    assert (diff.added, diff.removed) == (1, 1)
    assert not diff.is_new_file and not diff.is_deletion


def test_distant_changes_make_separate_hunks_and_close_ones_merge() -> None:
    old = numbered(40)
    far = old.replace("line 5\n", "x\n").replace("line 30\n", "y\n")
    assert len(compute_diff("a", old, far).hunks) == 2
    near = old.replace("line 5\n", "x\n").replace("line 11\n", "y\n")  # 5 equal lines between
    assert len(compute_diff("a", old, near).hunks) == 1
    assert [h.index for h in compute_diff("a", old, far).hunks] == [0, 1]


def test_headers_match_difflib_unified_ranges() -> None:
    old = numbered(50)
    new = old.replace("line 1\n", "").replace("line 25\n", "a\nb\n") + "tail\n"
    ours = [h.header for h in compute_diff("a", old, new).hunks]
    theirs = [
        line.strip()
        for line in difflib.unified_diff(split_lines(old), split_lines(new), n=3)
        if line.startswith("@@")
    ]

    # difflib omits ",1"; normalise its headers to always carry the count
    def full(header: str) -> str:
        parts = header.strip("@ ").split()
        return "@@ " + " ".join(p if "," in p else p + ",1" for p in parts) + " @@"

    assert ours == [full(h) for h in theirs]


def test_new_file_reads_as_all_additions() -> None:
    for old in (None, ""):
        diff = compute_diff("new.py", old, "a\nb\n")
        assert diff.is_new_file and not diff.is_deletion
        assert [h.header for h in diff.hunks] == ["@@ -0,0 +1,2 @@"]
        assert [(ln.kind, ln.old_no, ln.new_no) for ln in diff.hunks[0].lines] == [
            ("add", None, 1),
            ("add", None, 2),
        ]
        assert (diff.added, diff.removed) == (2, 0)
        assert apply_hunks(diff, set()) == (old or "")
        assert apply_hunks(diff, {0}) == "a\nb\n"


def test_deletion_reads_as_all_removals() -> None:
    diff = compute_diff("gone.py", "a\nb\nc", "")
    assert diff.is_deletion and not diff.is_new_file
    assert [h.header for h in diff.hunks] == ["@@ -1,3 +0,0 @@"]
    assert all(line.kind == "remove" for line in diff.hunks[0].lines)
    assert diff.hunks[0].lines[-1].eol == ""
    assert (diff.added, diff.removed) == (0, 3)
    assert apply_hunks(diff, {0}) == ""
    assert revert_hunks(diff, {0}) == "a\nb\nc"


def test_identical_texts_have_no_hunks() -> None:
    diff = compute_diff("same", "a\nb\n", "a\nb\n")
    assert diff.hunks == () and (diff.added, diff.removed) == (0, 0)
    assert apply_hunks(diff, set()) == "a\nb\n"
    empty = compute_diff("empty", None, "")
    assert empty.hunks == () and empty.is_new_file and not empty.is_deletion


def test_line_endings_and_missing_final_newline_round_trip() -> None:
    old = "a\r\nb\r\nc"
    new = "a\r\nB\r\nc\r\nd"
    diff = compute_diff("crlf.txt", old, new)
    assert apply_hunks(diff, {h.index for h in diff.hunks}) == new
    assert apply_hunks(diff, set()) == old
    removed = [ln for h in diff.hunks for ln in h.lines if ln.kind == "remove"]
    assert [(ln.text, ln.eol) for ln in removed] == [("b", "\r\n"), ("c", "")]
    only_eol = compute_diff("eol.txt", "x\ny", "x\ny\n")
    changed = [ln for h in only_eol.hunks for ln in h.lines if ln.kind != "context"]
    assert [(ln.kind, ln.text, ln.eol) for ln in changed] == [
        ("remove", "y", ""),
        ("add", "y", "\n"),
    ]


def test_apply_subset_keeps_other_regions_old() -> None:
    old = numbered(40)
    new = old.replace("line 5\n", "FIVE\n").replace("line 30\n", "THIRTY\n")
    diff = compute_diff("a", old, new)
    assert apply_hunks(diff, {0}) == old.replace("line 5\n", "FIVE\n")
    assert apply_hunks(diff, {1}) == old.replace("line 30\n", "THIRTY\n")
    assert revert_hunks(diff, {0}) == old.replace("line 30\n", "THIRTY\n")


def test_split_rows_pair_removals_with_additions() -> None:
    diff = compute_diff("a", "k\nx1\nx2\nx3\nk2\n", "k\ny1\nk2\n")
    rows = split_rows(diff.hunks[0])
    shape = [
        (o.kind if o else None, o.text if o else None, n.kind if n else None, n.text if n else None)
        for o, n in rows
    ]
    assert shape == [
        ("context", "k", "context", "k"),
        ("remove", "x1", "add", "y1"),
        ("remove", "x2", None, None),
        ("remove", "x3", None, None),
        ("context", "k2", "context", "k2"),
    ]


def test_word_spans_mark_only_changed_words() -> None:
    old_spans, new_spans = word_spans("total = price * qty", "total = cost * qty + tax")
    assert old_spans == [(8, 13)]
    assert new_spans == [(8, 12), (18, 24)]
    assert "total = price * qty"[8:13] == "price"
    assert word_spans("same", "same") == ([], [])
    assert word_spans("", "new") == ([], [(0, 3)])


def test_large_file_diff_is_complete() -> None:
    old = numbered(5000)
    new_lines = split_lines(old)
    for i in range(0, 5000, 97):
        new_lines[i] = f"changed {i}\n"
    diff = compute_diff("big.py", old, "".join(new_lines))
    assert diff.added == diff.removed == len(range(0, 5000, 97))
    assert apply_hunks(diff, {h.index for h in diff.hunks}) == "".join(new_lines)


# --- property tests -------------------------------------------------------------------------

LINE = st.sampled_from(["a", "b", "c", "", "}", "x y", "a"]).flatmap(
    lambda body: st.sampled_from([body + "\n", body + "\r\n"])
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(LINE, max_size=30))
    text = "".join(lines)
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")  # a file without a final newline
    return text


def reference_apply(diff: FileDiff, accepted: set[int]) -> str:
    """Rebuild the result from the hunk lines alone: accepted hunks contribute their context and
    added lines, rejected ones their context and removed lines; gaps come from old_text."""
    old = split_lines(diff.old_text)
    new = split_lines(diff.new_text)
    out: list[str] = []
    next_old = 1
    for hunk in diff.hunks:
        first_old = next(
            (ln.old_no for ln in hunk.lines if ln.old_no is not None), hunk.old_start + 1
        )
        out.extend(old[next_old - 1 : first_old - 1])
        for ln in hunk.lines:
            if ln.kind == "context" or (ln.kind == "add") == (hunk.index in accepted):
                if ln.new_no is not None:
                    out.append(new[ln.new_no - 1])
                else:
                    assert ln.old_no is not None
                    out.append(old[ln.old_no - 1])
        olds = [ln.old_no for ln in hunk.lines if ln.old_no is not None]
        next_old = (max(olds) + 1) if olds else first_old
    out.extend(old[next_old - 1 :])
    return "".join(out)


@settings(max_examples=120, deadline=None)
@given(old=texts(), new=texts(), context=st.integers(0, 3), data=st.data())
def test_apply_random_subsets_matches_reference(old, new, context, data) -> None:
    diff = compute_diff("p", old, new, context=context)
    indices = [h.index for h in diff.hunks]
    assert apply_hunks(diff, set(indices)) == new
    assert apply_hunks(diff, set()) == old
    assert revert_hunks(diff, set()) == new
    assert revert_hunks(diff, set(indices)) == old
    accepted = data.draw(st.sets(st.sampled_from(indices)) if indices else st.just(set()))
    assert apply_hunks(diff, accepted) == reference_apply(diff, accepted)
    assert revert_hunks(diff, set(indices) - accepted) == apply_hunks(diff, accepted)


@settings(max_examples=120, deadline=None)
@given(old=texts(), new=texts(), context=st.integers(0, 3))
def test_hunks_are_ordered_disjoint_and_counted(old, new, context) -> None:
    diff = compute_diff("p", old, new, context=context)
    previous_end = 0
    for hunk in diff.hunks:
        olds = [ln.old_no for ln in hunk.lines if ln.old_no is not None]
        news = [ln.new_no for ln in hunk.lines if ln.new_no is not None]
        assert len(olds) == hunk.old_count and len(news) == hunk.new_count
        assert olds == list(range(hunk.old_start, hunk.old_start + len(olds)))
        assert news == list(range(hunk.new_start, hunk.new_start + len(news)))
        if olds:
            assert olds[0] > previous_end
            previous_end = olds[-1]
        assert any(ln.kind != "context" for ln in hunk.lines)
        kinds = [ln.kind for ln in hunk.lines]
        first_change = next(k for k, kind in enumerate(kinds) if kind != "context")
        last_change = max(k for k, kind in enumerate(kinds) if kind != "context")
        assert first_change <= context and len(kinds) - 1 - last_change <= context
        assert "context" * (2 * context + 1) not in "".join(
            "context" if kind == "context" else "|" for kind in kinds
        )
    assert diff.added == sum(ln.kind == "add" for h in diff.hunks for ln in h.lines)


@settings(max_examples=100, deadline=None)
@given(a=st.text(alphabet="ab (),=\t", max_size=20), b=st.text(alphabet="ab (),=\t", max_size=20))
def test_word_spans_cover_exactly_the_differences(a, b) -> None:
    old_spans, new_spans = word_spans(a, b)
    for spans, line in ((old_spans, a), (new_spans, b)):
        assert all(0 <= s < e <= len(line) for s, e in spans)
        assert all(spans[i][1] < spans[i + 1][0] for i in range(len(spans) - 1))

    # removing the changed spans leaves the same unchanged text on both sides
    def kept(line: str, spans: list[tuple[int, int]]) -> str:
        return "".join(ch for i, ch in enumerate(line) if not any(s <= i < e for s, e in spans))

    assert kept(a, old_spans) == kept(b, new_spans)
    if a == b:
        assert (old_spans, new_spans) == ([], [])


def test_path_warning_flags_relative_and_missing_paths() -> None:
    assert path_warning("/abs/file.py") is None
    assert path_warning("src/file.py") == "⚠ relative path"
    assert path_warning("../escape.py") == "⚠ relative path"
    assert path_warning("") == "⚠ missing path"
    assert path_warning("   ") == "⚠ missing path"


@settings(max_examples=100, deadline=None)
@given(old=texts(), new=texts())
def test_split_rows_keep_every_line_once_in_order(old, new) -> None:
    for hunk in compute_diff("p", old, new).hunks:
        rows = split_rows(hunk)
        olds = [o for o, _ in rows if o is not None]
        news = [n for _, n in rows if n is not None]
        assert olds == [ln for ln in hunk.lines if ln.kind != "add"]
        assert news == [ln for ln in hunk.lines if ln.kind != "remove"]
        for o, n in rows:
            assert o is not None or n is not None
            if o is not None and n is not None and o.kind == "context":
                assert o is n
