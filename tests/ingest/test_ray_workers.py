"""The workers of a Ray the pipeline starts are prepared as the local pool's are."""

from __future__ import annotations

import gc

import pytest

from pipeline.ingest.cluster import connected_to_ray

ray = pytest.importorskip("ray", reason="Ray is the [ray] extra (in [test] too): pip install -e '.[test]'")

# Starting a Ray of its own costs seconds.
pytestmark = pytest.mark.slow


def test_a_worker_of_a_ray_the_pipeline_starts_collects_garbage_as_a_pool_worker_does():
    if ray.is_initialized():
        pytest.skip("a Ray is running already, and the pipeline uses it as it is")
    with connected_to_ray(None, 1):
        # A lambda, which Ray ships by value: its workers cannot import the tests.
        young_threshold, frozen = ray.get(ray.remote(lambda: (gc.get_threshold()[0], gc.get_freeze_count())).remote())
    assert young_threshold == 10_000
    assert frozen > 0
