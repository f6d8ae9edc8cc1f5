"""Counting a corpus of many files on a Dask cluster (``dask.distributed``), the step of
training that scales out: each partition of files is counted by the core's own counting
(``counts.count_files``, the function one process and ``--workers`` run) on a worker, and
the counts come back in the files' order and are merged (``counts.merge_counted``), so the
model trained from them is the one trained on the files in one process, byte for byte.

Dask is optional, like ``regex``: it is imported only by these functions, never by the rest of
the core (``pip install "dask[distributed]"``). The workers must be able to read the files
at the paths given (shared storage) and run the same subwordlab version.

>>> count_partition.__qualname__  # a top-level function: Dask can ship it to the workers
'count_partition'

Example (a cluster)::

    import glob
    from dask.distributed import Client
    from subwordlab.dask_counts import count_files_dask
    from subwordlab.presets import counting_spec
    from subwordlab import counts, train

    client = Client("tcp://scheduler:8786")
    spec = counting_spec("byte_bpe", {"special_tokens": ["<|endoftext|>"]})
    counted = count_files_dask(client, sorted(glob.glob("/shared/corpus/*.txt")), spec)
    open("counts.json", "w").write(counts.to_json(counted))     # or train at once:
    tok = train(counted, "byte_bpe", vocab_size=32000, special_tokens=["<|endoftext|>"])
"""

from .counts import count_files, merge_counted


def count_partition(paths, spec):
    """The counts of one partition (a list of file paths, each one document), counted in the
    worker that runs it: ``counts.count_files``. A plain top-level function (Dask ships it).
    Example: count_partition(["/shared/a.txt"], spec) -> Counted(...)."""
    return count_files(paths, spec)


def count_files_dask(client, paths, spec, files_per_partition=1):
    """Count ``paths`` on the cluster behind ``client`` (a ``dask.distributed.Client``):
    ``files_per_partition`` files per task, ``count_partition`` mapped over the partitions
    (``client.map``), the results gathered in the files' order and merged. Returns a
    ``corpus.Counted`` equal to ``counts.count_files(paths, spec)``.
    Example: count_files_dask(Client("tcp://scheduler:8786"), ["/shared/a.txt"], spec) -> Counted(...)."""
    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("give the files to count (paths the workers can read)")
    if files_per_partition < 1:
        raise ValueError(f"files_per_partition must be at least 1, not {files_per_partition!r}")
    # step 1: the partitions, in the files' order
    parts = [paths[i:i + files_per_partition] for i in range(0, len(paths), files_per_partition)]
    # step 2: one task per partition on the workers (pure=False: a file may change between runs)
    futures = client.map(count_partition, parts, spec=spec, pure=False)
    # step 3: the results in the partitions' order (gather keeps it), merged in that order
    return merge_counted(client.gather(futures))
