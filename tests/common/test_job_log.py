"""The job log keeps a failed job's traceback and its messages."""

import logging

import pytest

from esmo.papers.common.job_log import job_log


@pytest.fixture
def restore_root_logger():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def test_failure_is_logged_with_traceback_and_propagates(tmp_path, restore_root_logger):
    path = tmp_path / "job.log"
    with pytest.raises(ValueError):
        with job_log(str(path), "dividing"):
            logging.info("about to divide")
            raise ValueError("no divisor")
    text = path.read_text()
    assert "INFO about to divide" in text
    assert "ERROR dividing failed" in text
    assert "Traceback" in text and "ValueError" in text


def test_success_logs_no_error(tmp_path, restore_root_logger):
    path = tmp_path / "job.log"
    with job_log(str(path), "adding"):
        logging.info("sum %d", 1 + 1)
    text = path.read_text()
    assert "sum 2" in text and "ERROR" not in text
