"""Issue 28, the page's side: what the command line made of a big corpus, opened in the page.

- a model trained by `subwordlab train` (our JSON) loaded on Files, stepped to merge 3 on
  Train, with the segmentation of the corpus in use (the textbook sample) at that step;
- a counts file made by `subwordlab count` dropped in the Corpus panel, trained there into
  the merges `subwordlab train --counts` learns.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

import subwordlab
from subwordlab import cli
from subwordlab.formats.our_json import load

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
BIG = (CORPORA / "udhr" / "udhr_eng.txt").read_text(encoding="utf-8")[:8000]
TEXTBOOK = ["newest", "low", "widest", "lower"]  # the seed000 sample's words, most frequent first


def merges(page) -> list[list[str]]:
    return page.eval_on_selector_all("#merges-rows tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def test_a_cli_trained_model_steps_to_merge_3_with_the_segmentation_of_the_corpus_in_use(app_page, tmp_path,
                                                                                      screenshots_dir):
    page = app_page
    corpus, model = tmp_path / "big.txt", tmp_path / "model.json"
    corpus.write_text(BIG, encoding="utf-8")
    assert cli.main(["train", str(corpus), "--preset", "bpe", "--num-merges", "30", "--workers", "1", "-q",
                     "-o", str(model)]) == 0
    three = subwordlab.train(BIG, "bpe", num_merges=3)  # the model after its first three merges
    page.click("#tab-corpus")
    page.select_option("#corpus-sample", "seed000")
    expect(page.locator("#corpus-sample")).to_have_value("seed000")

    page.click("#tab-files")
    page.set_input_files("#files-import", str(model))
    expect(page.locator("#files-status")).to_contain_text("Loaded model.json (Subword Lab JSON, BPE")
    expect(page.locator("#files-replay")).to_have_text("Step through its 30 merges on Train")
    page.click("#files-replay")
    expect(page.locator("#panel-train")).not_to_be_hidden()
    expect(page.locator("#context-step")).to_have_text("step 0 of 30")
    expect(page.locator("#train-status")).to_contain_text("30 merges replayed from model.json")

    for _ in range(3):
        page.click("#train-step")
    expect(page.locator("#train-step-now")).to_have_text("3")
    expect(page.locator("#merges-rows tr").first.locator("td").first).to_have_text("3")
    m = three.model
    learned = [(m.vocab[a], m.vocab[b], m.vocab[m.ranks[(a, b)][1]]) for a, b in m.merges]
    assert merges(page) == [[str(k), f"{a} + {b}", "–", new] for k, (a, b, new) in reversed(list(enumerate(learned, 1)))]
    expect(page.locator("#train-now-kicker")).to_contain_text("Merge 3 · count not in the file")
    expect(page.locator("#candidates-empty")).to_contain_text("Not in the model file")
    # the segmentation of the textbook's words by the model at merge 3
    rows = page.locator("#segmentation-rows tr")
    expect(rows.locator("td:first-child")).to_have_text(TEXTBOOK)
    for k, word in enumerate(TEXTBOOK):
        expect(rows.nth(k).locator(".mini-chip")).to_have_text(three.tokenize(word))
    expect(page.locator("#segmentation-help")).to_contain_text("not of the corpus it was trained on")
    page.screenshot(path=str(screenshots_dir / "replay-merge-3.png"), full_page=True)


def test_a_counts_file_trains_the_merges_train_counts_learns(app_page, tmp_path):
    page = app_page
    corpus, counts, model = tmp_path / "big.txt", tmp_path / "shard.counts", tmp_path / "model.json"
    corpus.write_text(BIG, encoding="utf-8")
    assert cli.main(["count", str(corpus), "--preset", "bpe", "--workers", "1", "-q", "-o", str(counts)]) == 0
    assert cli.main(["train", "--counts", str(counts), "--preset", "bpe", "--num-merges", "8", "-q", "-o", str(model)]) == 0
    tok = load(str(model))
    page.click("#tab-corpus")
    page.select_option("#corpus-sample", "seed000")  # (the textbook's settings: BPE, 8 merges)
    page.set_input_files("#corpus-file", str(counts))
    expect(page.locator("#corpus-status")).to_contain_text("as pre-token counts")
    expect(page.locator("#corpus-message")).to_be_hidden()
    page.click("#tab-train")
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#train-step-now")).to_have_text("8")
    m = tok.model
    want = [[str(k), f"{m.vocab[a]} + {m.vocab[b]}", new] for k, (a, b, new) in
            enumerate(((a, b, m.vocab[m.ranks[(a, b)][1]]) for a, b in m.merges), 1)]
    got = [[r[0], r[1], r[3]] for r in merges(page)]
    assert got == list(reversed(want))
