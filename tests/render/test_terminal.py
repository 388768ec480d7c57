"""sizing.render.terminal: text tables within a width, columns left out by priority and named."""

from __future__ import annotations

from sizing.render.terminal import text_table


def test_a_table_fits_its_width_and_keeps_ids_whole():
    advice = "a long piece of advice that may wrap"
    rows = [[f"org/model-number-{i}", advice, f"{i * 1000:,}"] for i in range(5)]
    text = text_table(["Id", "Advice", "Tokens"], rows, [False, False, True], width=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert all(f"org/model-number-{i}" in text for i in range(5)) and "4,000" in text


def test_columns_are_left_out_in_the_order_given_and_named():
    headers = ["Id", *(f"Col{i}" for i in range(12))]
    rows = [["model", *(f"{i:>8}" for i in range(12))]]
    text = text_table(headers, rows, [False] + [True] * 12, width=50, drop_order=headers[1:])
    assert all(len(line) <= 50 for line in text.splitlines())
    assert "left out at this width: Col0" in " ".join(text.split())


def test_long_ids_fold_before_the_advice_is_crushed():
    """When even the kept columns are too wide, the id column folds and the advice keeps its words."""
    rows = [
        [f"SomeOrganisation/AVeryLongCheckpointName-{i}-Instruct-2507-FP8", "Needs 8 GPUs", "Fits", "214.23"]
        for i in range(3)
    ]
    text = text_table(
        ["Checkpoint", "Why this plan", "Verdict", "GiB"],
        rows,
        [False, False, False, True],
        width=60,
        fold_first=True,
    )
    assert all(len(line) <= 60 for line in text.splitlines())
    assert text.count("Needs 8 GPUs") == 3 and "Why this plan" in text
    assert text.count("SomeOrganisation/") == 3 and "Instruct-2507" in text


def test_whole_columns_are_never_broken() -> None:
    """Assert an id column flagged whole keeps its longest id on one line even when text columns must fold."""
    from sizing.render.terminal import text_table

    rows = [["org/a-very-long-checkpoint-name-that-is-long", "ref-2n-8x-h100-long-id", "advice " * 8, "12"]]
    out = text_table(
        ["Checkpoint", "Server", "Why", "Seqs"],
        rows,
        [False, False, False, True],
        width=90,
        whole=[True, True, False, False],
    )
    assert "org/a-very-long-checkpoint-name-that-is-long" in out and "ref-2n-8x-h100-long-id" in out
    assert all(len(line) <= 90 for line in out.splitlines())


def test_grouped_text_puts_each_group_name_on_its_own_line() -> None:
    """Assert grouped rows share one header and name their group above them, widths aligned."""
    from sizing.render.terminal import grouped_text

    out = grouped_text(
        "Checkpoint",
        [("org/one", [["srv-a", "3"], ["srv-bb", "12"]]), ("org/two", [["srv-a", "1"]])],
        ["Server", "Seqs"],
        [False, True],
        width=40,
    )
    lines = out.splitlines()
    assert lines[0] == "Checkpoint: org/one" and "Checkpoint: org/two" in lines
    assert sum("Server" in line for line in lines) == 1
    assert {len(line) for line in lines if line.startswith("srv-")} == {len(lines[2])}  # right edges aligned
