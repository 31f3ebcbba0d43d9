"""The MDL paper's analysis: fig 3 and the sensitivity grids judged as claims (esmo.papers.mdl.analysis)."""

import pandas as pd
import pytest

from esmo.papers.mdl.analysis import E1_CLAIMS, e1_claims, fig3_claim, sensitivity_claims


def test_the_sensitivity_claims_fail_on_a_majority_class_pick():
    """Recall 0 (every test point benign) fails the claim; any malignant point found holds it."""
    rows = [
        ("wide_c", "cv", 2.0, 0.0158, 0.965, 0.952),
        ("wide_c", "mdl", 0.03125, 1.0, 0.632, 0.0),
        ("wide", "cv", 128.0, 0.0045, 0.947, 0.905),
        ("wide", "mdl", 4.0, 0.01, 0.95, 1 / 42),
    ]
    table = pd.DataFrame(rows, columns=["grid", "method", "C", "gamma", "accuracy", "recall"])
    claims = sensitivity_claims(table).set_index("claim")
    assert not claims.loc["sensitivity.wide_c.mdl_selects_a_working_classifier", "holds"]
    assert claims.loc["sensitivity.wide.mdl_selects_a_working_classifier", "holds"]
    assert (
        "recall 0.000"
        in claims.loc["sensitivity.wide_c.mdl_selects_a_working_classifier", "measure"]
    )
    with pytest.raises(ValueError, match="lacks the mdl or the cv row"):
        sensitivity_claims(table[table["method"] == "cv"])


@pytest.mark.parametrize("gap, holds", [(0.0, True), (0.0175, False)])
def test_fig_3s_claim_holds_only_for_a_pick_at_the_best_test_accuracy(gap, holds):
    selection = pd.DataFrame(
        {"method": ["cv", "mdl"], "test_rank": [3, 1 if holds else 1131],
         "gap_to_best": [0.009, gap], "accuracy": [0.96, 0.97]}
    )  # fmt: skip
    claim = fig3_claim(selection, 10_000).iloc[0]
    assert claim["claim"] == "fig3.mdl_pick_performs_best" and claim["holds"] == holds
    rank = 1 if holds else 1131
    assert f"ranks {rank} of 10000 grid points" in claim["measure"]


def test_the_e1_claims_hold_within_one_point_and_name_their_pairs():
    """-1.0 point holds, -1.1 and -25 fail; a selection the run lacks is not measured."""
    rows = [
        ("mdl", "rs_validation", -0.25, 0, 30, 1.7e-6),
        ("mdl_in_box", "rs_validation_in_box", -0.011, 10, 16, 0.03),
        ("mdl_feature_space_var_in_box", "rs_validation_in_box", -0.01, 12, 13, 0.9),
    ]
    table = pd.DataFrame(
        rows, columns=["method", "baseline", "mean_difference", "a_wins", "b_wins", "pvalue"]
    ).assign(n=30)
    claims = e1_claims(table).set_index("claim")
    assert list(claims.index) == list(E1_CLAIMS)
    assert claims["holds"].tolist() == [False, False, None]
    assert (
        "mdl - rs_validation: mean paired test accuracy -25.0 points over 30"
        in (claims.loc["e1.mdl_as_accurate_as_rs", "measure"])
    )
    assert claims.loc["e1.residual_reading_as_accurate_in_the_papers_box", "measure"] == (
        "not in this run"
    )
    table.loc[2, "method"] = "mdl_residual_var_in_box"
    assert e1_claims(table)["holds"].tolist() == [False, False, True]
