from typing import Any

from acp_tui.protocol.models import RequestPermissionResponse, to_wire
from acp_tui.protocol.permission_outcome import selected_option_id


def test_selected_option_id_reads_what_the_model_writes() -> None:
    assert selected_option_id(to_wire(RequestPermissionResponse.selected("yes"))) == "yes"
    assert selected_option_id(to_wire(RequestPermissionResponse.cancelled())) is None


def test_selected_option_id_of_malformed_answers_is_none() -> None:
    answers: list[Any] = [
        None,
        [],
        {},
        {"outcome": "selected"},
        {"outcome": {"outcome": "selected"}},
        {"outcome": {"outcome": "selected", "optionId": 3}},
        {"outcome": {"outcome": "chosen", "optionId": "yes"}},
    ]
    for answer in answers:
        assert selected_option_id(answer) is None
