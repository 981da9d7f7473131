"""The PostgreSQL test helpers under pytest-xdist: each worker its own PostGIS template database on
the one server (``FIELDAPP_TEST_PG``), so no worker drops or copies another's."""

from __future__ import annotations

from tests.sync import pgcluster


def test_each_xdist_worker_has_its_own_template(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert pgcluster.template_db() == "fieldapp_test_template_gw1"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert pgcluster.template_db() == "fieldapp_test_template_gw0"


def test_a_run_without_workers_keeps_the_one_template(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert pgcluster.template_db() == "fieldapp_test_template"
    # a worker name that is not a bare identifier never reaches the SQL
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0; DROP DATABASE postgres")
    assert pgcluster.template_db() == "fieldapp_test_template"
