"""Counting on a Dask cluster (dask_counts.py): a LocalCluster of two worker processes counts
the files (the core's own counting mapped over partitions, merged in order), and the model
trained from the cluster's counts is the one-process model, byte for byte; so are the counts
file and the model of `subwordlab count --dask ADDRESS`."""

import json

import pytest

import subwordlab
from corpora import CORPORA, UDHR
from subwordlab import counts, train
from subwordlab.cli import main
from subwordlab.dask_counts import count_files_dask
from subwordlab.presets import counting_spec

pytestmark = pytest.mark.cpython_only  # a cluster of processes
distributed = pytest.importorskip("dask.distributed")  # optional, like regex (requirements-dev.txt installs it)

FILES = [CORPORA / "taylorswift.txt", *UDHR]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.mark.parametrize("preset, options, target", [
    ("byte_bpe", {"special_tokens": ["<|endoftext|>"]}, {"vocab_size": 500}),
    ("sentencepiece_bpe", {}, {"vocab_size": 1500}),
])
def test_the_clusters_counts_train_the_one_process_model(client, preset, options, target):
    spec = counting_spec(preset, options)
    for per_partition in (1, 3):
        counted = count_files_dask(client, FILES, spec, files_per_partition=per_partition)
        alone = counts.count_files(FILES, spec)
        assert counts.to_json(counted) == counts.to_json(alone)
    # the model: from the cluster's counts == from the text, in one process
    texts = [p.read_text(encoding="utf-8") for p in FILES]
    from_cluster = train(counted, preset, **options, **target)
    from_text = train(counts.count_files(FILES, spec), preset, **options, **target)
    assert subwordlab.to_json(from_cluster) == subwordlab.to_json(from_text)
    # (which is the model of the texts themselves, but for the provenance of several inputs)
    one_process = json.loads(subwordlab.to_json(train(texts, preset, **options, **target)))
    cluster = json.loads(subwordlab.to_json(from_cluster))
    assert cluster["spec"].pop("corpus")["kind"] == "texts" and one_process["spec"].pop("corpus")["kind"] == "text"
    assert cluster == one_process


def test_count_dask_on_the_command_line(client, tmp_path, capsys):
    address = client.scheduler.address
    common = ["--preset", "byte_bpe", "-q"]
    assert main(["count", *map(str, FILES), *common, "--dask", address, "-o", str(tmp_path / "d.json")]) == 0
    assert main(["count", *map(str, FILES), *common, "--workers", "1", "-o", str(tmp_path / "one.json")]) == 0
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "one.json").read_bytes()
    assert main(["train", "--counts", str(tmp_path / "d.json"), *common, "--vocab-size", "400", "-o", str(tmp_path / "m1.json")]) == 0
    assert main(["train", *map(str, FILES), *common, "--vocab-size", "400", "-o", str(tmp_path / "m2.json")]) == 0
    assert (tmp_path / "m1.json").read_bytes() == (tmp_path / "m2.json").read_bytes()
    capsys.readouterr()
    assert main(["count", "-", "--dask", address, "-o", str(tmp_path / "x.json")]) == 1
    assert "--dask counts files the workers can read" in capsys.readouterr().err
