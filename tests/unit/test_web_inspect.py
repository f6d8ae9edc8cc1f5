"""The Inspect panel on the real index.html through the fake port: tokens of the
tokenizer at the current step, ids and offsets equal to the core's, visible white space,
the round-trip badge, the pipeline stages, special-token policy, sampling and n-best."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakePort
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import read
from subwordlab_web import inspect_panel
from subwordlab_web.app import App
from subwordlab_web.inspect_panel import MAX_TEXT, inspect_text, text_slices
from subwordlab_web.state import Corpus, TrainSpec
from subwordlab_web.tokens import excerpt, first_difference, round_trip_message, token_label, visible

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
SEED0 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def started():
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start()
    port.settle()
    app.show_panel("inspect")
    port.settle()
    return port, app


def chips(port):
    return port.query_all("#inspect-chips .chip")


def typed(port, text):
    port.input(port.query("#inspect-input"), text)
    port.settle()


def use(app, port, corpus, spec):
    app.state.set_spec(spec)
    app.state.set_corpus(corpus)
    port.settle()
    app.state.player.to_end()
    app.state.notify("step")
    port.settle()


def test_the_inspector_uses_the_tokenizer_at_the_current_step():
    port, app = started()
    assert port.value(port.query("#inspect-input")) == "lowest newer wider"
    at0 = [port.text(port.query(".chip-text", c)) for c in chips(port)]
    assert at0[:7] == ["l", "o", "w", "e", "s", "t", "</w>"]  # step 0: characters
    app.state.seek(3)
    port.settle()
    at3 = [port.text(port.query(".chip-text", c)) for c in chips(port)]
    assert at3[:4] == ["l", "o", "w", "est</w>"]
    assert port.text(port.query("#inspect-step-now")) == "3"
    port.input(port.query("#inspect-step"), "8")
    port.settle()
    assert app.state.step == 8
    assert [port.text(port.query(".chip-text", c)) for c in chips(port)][:2] == ["low", "est</w>"]


def test_a_loaded_tokenizer_is_inspected_without_the_step_slider():
    port, app = started()
    assert not port.query("#inspect-step-row").hidden
    loaded = subwordlab.train(SEED0, "bpe", num_merges=2)
    app.state.set_imported(loaded, "model.json")
    port.settle()
    assert port.query("#inspect-step-row").hidden
    assert port.text(port.query("#inspect-which")).startswith("Loaded from model.json")
    typed(port, "lowest")
    assert [port.text(port.query(".chip-text", c)) for c in chips(port)] == loaded.tokenize("lowest")
    app.state.set_imported(None, "")
    port.settle()
    assert not port.query("#inspect-step-row").hidden


def test_ids_and_offsets_match_the_core():
    port, app = started()
    text = "newest  lowest\twidest"
    typed(port, text)
    expected = subwordlab.train(SEED0, "bpe", num_merges=0).encode_full(text)  # step 0
    got = chips(port)
    assert [int(port.get_attr(c, "data-id")) for c in got] == expected.ids
    assert [(int(port.get_attr(c, "data-start")), int(port.get_attr(c, "data-end"))) for c in got] == expected.offsets
    assert [port.get_attr(c, "data-bytes") for c in got] == [f"{s}-{e}" for s, e in expected.byte_offsets]
    assert port.get_attr(got[0], "title") == f"id {expected.ids[0]} · chars 0–1 · bytes 0–1 · 'n'"
    assert port.get_attr(got[0], "tabindex") == "0" and port.get_attr(got[0], "aria-label").startswith(f"n {expected.ids[0]}: id {expected.ids[0]}")
    assert port.text(port.query("#inspect-count")) == str(len(expected.ids))
    colors = [port.get_attr(c, "data-color") for c in got]
    assert all(a != b for a, b in zip(colors, colors[1:]))
    # focusing a chip shows its details
    port.dispatch(port.query(".chip-id", got[1]), "focusin")
    assert port.text(port.query("#inspect-detail")) == port.get_attr(got[1], "title")


def test_byte_level_tokens_show_visible_white_space_and_byte_offsets():
    port, app = started()
    text = read("taylorswift.txt")[:20_000]
    use(app, port, Corpus(text), TrainSpec("byte_bpe", "vocab_size", 300))
    typed(port, "Swift's songs\n\té")
    tok = app.state.recording.tokenizer
    enc = tok.encode_full("Swift's songs\n\té")
    labels = [port.text(port.query(".chip-text", c)) for c in chips(port)]
    assert labels == [token_label(t, True) for t in enc.tokens]
    assert "·" in "".join(labels) and "↵" in "".join(labels)
    assert [port.get_attr(c, "data-bytes") for c in chips(port)] == [f"{s}-{e}" for s, e in enc.byte_offsets]
    assert port.text(port.query("#inspect-roundtrip")) == "✓ Round trip exact"
    stages = port.text(port.query("#stage-normalized"))
    assert stages == "Swift's·songs↵→é"
    assert port.text(port.query("#stage-ids")) == " ".join(map(str, enc.ids))
    assert port.text(port.query("#stage-decoded")) == "Swift's·songs↵→é"


def test_round_trip_differences_are_named():
    port, app = started()
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED0.items()), "word_counts"),
        TrainSpec("bpe", "num_merges", 8))
    typed(port, "low  low")  # two spaces: the </w> decoder puts back one, as the pipeline promises
    badge = port.query("#inspect-roundtrip")
    assert port.get_attr(badge, "data-ok") == "design" and port.text(badge).startswith("≈ Round trip as designed: ")
    assert "one space between" in port.text(badge)
    typed(port, "low low")
    assert port.get_attr(badge, "data-ok") == "yes" and port.text(badge) == "✓ Round trip exact"


def test_wordpiece_round_trip_is_lossy_by_design_in_neutral_words_and_a_real_loss_is_flagged():
    port, app = started()
    use(app, port, Corpus(read("udhr/udhr_eng.txt")), TrainSpec("wordpiece", "vocab_size", 300))
    badge = port.query("#inspect-roundtrip")
    typed(port, "Everyone has the right to life,  liberty and security.")
    assert port.get_attr(badge, "data-ok") == "design"
    assert port.text(badge) == ("≈ Round trip as designed: this pipeline puts a space around punctuation (each mark "
                                "is a word of its own) and keeps one space between words (runs of spaces, tabs and "
                                "newlines are not kept): decode gives “Everyone·has·the·right·to·life·,·liberty…” "
                                "by design")
    typed(port, "the right to ☃ life")  # ☃ is not in the vocabulary: [UNK] is a real loss
    assert port.get_attr(badge, "data-ok") == "no"
    assert port.text(badge) == "≠ Round trip differs at character 13: expected “☃·life”, decoded “[UNK]·life”"


def test_lower_casing_and_accent_stripping_are_by_design_with_the_reason():
    port, app = started()
    use(app, port, Corpus(read("udhr/udhr_eng.txt") + " café naïve"),
        TrainSpec("wordpiece", "vocab_size", 300, {"lowercase": True, "strip_accents": True}))
    badge = port.query("#inspect-roundtrip")
    typed(port, "Café Naïve")
    assert port.get_attr(badge, "data-ok") == "design"
    assert port.text(badge) == ("≈ Round trip as designed: the normalizer lower-cases, strips accents: decode gives "
                                "“cafe·naive” by design")
    typed(port, "cafe naive")
    assert port.get_attr(badge, "data-ok") == "yes" and port.text(badge) == "✓ Round trip exact"


def test_a_character_the_vocabulary_lacks_is_shown_as_itself_with_no_id():
    port, app = started()  # seed 000: char-level BPE, no unk token
    typed(port, "lowq")
    assert port.query("#inspect-error").hidden and port.errors == []
    last = chips(port)[-2]  # q, then </w>
    assert port.text(port.query(".chip-text", last)) == "q" and port.text(port.query(".chip-id", last)) == "no id"
    assert port.get_attr(last, "data-unk") == "" and "not in the vocabulary: no id" in port.get_attr(last, "title")
    more = port.query("#inspect-more")
    assert not more.hidden and "shown as themselves with no id: 'q'" in port.text(more)
    assert port.text(port.query("#stage-ids")).split()[-2] == "?"
    typed(port, "low")
    assert more.hidden


def test_special_token_policies():
    port, app = started()
    use(app, port, Corpus("hello world " * 30 + "<|endoftext|>"),
        TrainSpec("byte_bpe", "vocab_size", 280, {"special_tokens": ["<|endoftext|>"]}))
    typed(port, "hello <|endoftext|>")
    message = port.text(port.query("#inspect-error"))
    assert "special token" in message
    # in a learner's words: the token, where it is, and the control beside the text that decides
    assert "<|endoftext|> at character 7" in message and "“Special tokens”" in message
    options = [port.text(o) for o in port.query_all("option", port.query("#inspect-special"))]
    assert "Encode as special tokens" in options and "“Encode as special tokens”" in message
    assert "allowed_special" not in message and "disallowed_special" not in message
    port.input(port.query("#inspect-special"), "allowed", event="change")
    port.settle()
    last = chips(port)[-1]
    assert "data-special" in last.attrs and port.text(port.query(".chip-text", last)) == "<|endoftext|>"
    port.input(port.query("#inspect-special"), "plain", event="change")
    port.settle()
    assert not any("data-special" in c.attrs for c in chips(port)) and len(chips(port)) > 3


def test_bpe_dropout_sampling_is_seeded():
    port, app = started()
    app.state.seek(8)
    port.settle()
    typed(port, "lowest newest")
    assert not port.query("#inspect-sampling").hidden and port.text(port.query("#inspect-alpha-label")) == "Dropout"
    port.input(port.query("#inspect-alpha"), "0.5")
    port.input(port.query("#inspect-seed"), "7")
    port.click(port.query("#inspect-sample"))
    port.settle()
    tok = app.state.recording.tokenizer
    expected = tok.sample_encode("lowest newest", 0.5, seed=7)
    assert [int(port.get_attr(c, "data-id")) for c in chips(port)] == expected
    assert "sampled segmentation (seed 7)" in port.text(port.query("#inspect-mode"))
    port.click(port.query("#inspect-best"))
    port.settle()
    assert [int(port.get_attr(c, "data-id")) for c in chips(port)] == tok.encode("lowest newest")


def test_unigram_shows_the_n_best_and_samples():
    port, app = started()
    use(app, port, Corpus(read("udhr/udhr_eng.txt")), TrainSpec("unigram", "vocab_size", 300))
    typed(port, "rights")
    rows = [[port.text(td) for td in port.query_all("td", tr)] for tr in port.query_all("#nbest-rows tr")]
    tok = app.state.recording.tokenizer
    best = tok.encode_nbest("rights", 5)
    assert not port.query("#nbest-card").hidden and len(rows) == len(best)
    assert rows[0][1] == " | ".join(tok.model.vocab[i] for i in best[0][0]) and rows[0][2] == f"{best[0][1]:.3f}"
    assert sum(float(r[3].rstrip("%")) for r in rows) == pytest.approx(100, abs=0.5)
    assert port.text(port.query("#inspect-alpha-label")) == "Alpha"
    port.click(port.query("#inspect-sample"))
    port.settle()
    assert [int(port.get_attr(c, "data-id")) for c in chips(port)] == tok.sample_encode("rights", 0.1, seed=0)
    app.state.seek(2)  # an earlier step: the vocabulary of that round
    port.settle()
    assert port.query("#inspect-note").hidden and chips(port)


def test_user_text_is_text_never_markup():
    port, app = started()
    use(app, port, Corpus("<img src=x onerror=alert(1)> <b>bold</b> " * 5), TrainSpec("bpe", "num_merges", 10))
    typed(port, "<img src=x onerror=alert(1)>")
    assert port.text(port.query("#inspect-chips")).startswith("<")
    assert port.query_all("#panel-inspect img") == [] and port.query_all("#panel-inspect b") == []


def test_without_a_tokenizer_the_panel_says_why():
    port, app = started()
    app.state.discard_recording("Training cancelled.")  # (a cancelled run is not retrained by itself)
    port.settle()
    note = port.query("#inspect-note")
    assert not note.hidden and "Train a tokenizer first" in port.text(note) and chips(port) == []


def test_inspect_text_cuts_long_texts():
    tok = subwordlab.train("ab " * 50, "bpe", num_merges=2)
    result = inspect_text(tok, "ab " * (MAX_TEXT // 3 + 100))
    assert result.cut and len(result.text) == MAX_TEXT


def test_token_helpers():
    assert visible("a b\n\tc\u00a0") == "a·b↵→c␣"
    assert token_label("ä½", byte_level=True) == "\\xe4\\xbd"  # two bytes of 你, not a character yet
    assert first_difference("abc", "abd") == 2 and first_difference("ab", "abc") == 2 and first_difference("a", "a") is None
    assert round_trip_message("a b", "a b") == (True, "Round trip exact")
    ok, msg = round_trip_message("a  b", "a b")
    assert not ok and msg == "Round trip differs at character 2: expected “·b”, decoded “b”"
    assert round_trip_message("a b", "a b", "by_design", "why") == (True, "Round trip as designed: why: decode gives "
                                                                          "“a·b” by design")
    assert round_trip_message("ab", "ab", "exact", "", "the normalizer lower-cases") == (
        True, "Round trip as designed: the normalizer lower-cases: decode gives “ab” by design")
    # a cut never splits a marker such as <unk> (it read "<unk>galit<u" before)
    assert excerpt("<unk>galit<unk>é", 0, 12) == "<unk>galit<unk>…"
    assert excerpt("ab<unk>" + "c" * 30, 0, 4) == "ab<unk>…"
    assert excerpt("ab<" + "c" * 30, 0, 4) == "ab…"  # no closing ">" near: stop before it
    assert excerpt("a b", 1, 12) == "·b"
    ok, msg = round_trip_message("égalité égalité", "<unk>galit<unk> <unk>galit<unk>")
    assert not ok and msg == "Round trip differs at character 0: expected “égalité·égal…”, decoded “<unk>galit<unk>…”"


_TOKENIZERS = {}


def _trained(preset):
    if preset not in _TOKENIZERS:
        options = {"unk_token": "<unk>"} if preset == "bpe" else {}
        size = {"bpe": 120, "byte_bpe": 300, "wordpiece": 150, "unigram": 150}[preset]
        _TOKENIZERS[preset] = subwordlab.train(read("udhr/udhr_eng.txt")[:6000] + " é ß 你 Ａ", preset,
                                               vocab_size=size, **options)
    return _TOKENIZERS[preset]


@pytest.mark.parametrize("preset", ["bpe", "byte_bpe", "wordpiece", "unigram"])
@settings(max_examples=examples(40))
@given(text=st.lists(st.sampled_from(["the", "right", " ", "  ", "\n", "\t", "é", "ß", "你", "Ａ", ",", "12", "e\u0301", "\u00a0"]),
                     max_size=40).map("".join))
def test_encoding_a_long_text_in_slices_is_exact(preset, text):
    tok = _trained(preset)
    size = 5
    pieces = text_slices(tok, text, size=size)
    assert "".join(pieces) == text
    whole = inspect_text(tok, text, "plain")
    old = inspect_panel.SLICE_CHARS
    inspect_panel.SLICE_CHARS = size
    try:
        sliced = inspect_text(tok, text, "plain")
    finally:
        inspect_panel.SLICE_CHARS = old
    assert sliced.ids == whole.ids and sliced.chips == whole.chips
    assert sliced.normalized == whole.normalized and sliced.pre_tokens == whole.pre_tokens


def test_other_pipelines_are_not_sliced():
    tok = subwordlab.train("the cat sat on the mat " * 20, "sentencepiece_bpe", vocab_size=60)
    assert text_slices(tok, "the cat " * 100, size=10) == ["the cat " * 100]


def test_decode_ids_box_shows_tokens_and_text_or_what_to_type():
    from subwordlab_web.decode_box import parse_ids

    port, app = started()
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED0.items()), "word_counts"),
        TrainSpec("bpe", "num_merges", 8))
    tok = app.state.current_tokenizer()[0]
    ids = tok.encode("lowest newer")
    box = port.query("#decode-ids")
    port.input(box, ", ".join(map(str, ids)))
    assert port.text(port.query("#decode-output")) == "lowest·newer"
    assert port.text(port.query("#decode-tokens")) == " | ".join(token_label(tok.id_to_token(i), False) for i in ids)
    assert port.query("#decode-error").hidden
    port.input(box, f"{ids[0]} {tok.vocab_size}")
    error = port.query("#decode-error")
    assert not error.hidden and f"ids go from 0 to {tok.vocab_size - 1:,}" in port.text(error)
    assert port.text(port.query("#decode-output")) == ""
    port.input(box, "")
    assert port.query("#decode-error").hidden
    assert parse_ids(" [3; 4 ,5] ", 10) == [3, 4, 5] and parse_ids("", 10) == []
    with pytest.raises(ValueError, match="is not a token id"):
        parse_ids("3 -1", 10)


def test_chips_have_a_legend_for_white_space_and_bytes():
    port, app = started()
    for legend_id in ("#inspect-legend", "#cmp-legend-chips"):
        text = port.text(port.query(legend_id))
        for mark in ("·", "↵", "→", "\\xc3", "▁", "##", "</w>"):
            assert mark in text, (legend_id, mark)


def test_dropout_and_alpha_are_explained_on_the_page():
    from subwordlab_web.inspect_panel import SAMPLING_HELP

    port, app = started()
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED0.items()), "word_counts"),
        TrainSpec("bpe", "num_merges", 8))
    help_el = port.query("#inspect-sampling-help")
    assert not help_el.hidden and port.text(help_el) == SAMPLING_HELP["bpe"] and "Dropout" in port.text(help_el)
    assert "Alpha" in SAMPLING_HELP["unigram"]


def test_the_stages_say_how_many_characters_a_custom_pattern_left_unmatched():
    port, app = started()
    note = port.query("#stage-pretokens-unmatched")
    assert note.hidden
    use(app, port, Corpus("ab cd ab cd " * 10), TrainSpec("byte_bpe", "vocab_size", 260, {"pattern": r"[a-z]+"}))
    typed(port, "ab, cd!")
    assert not note.hidden and "left 3 characters unmatched" in port.text(note)
    pieces = [port.text(p) for p in port.query_all("#stage-pretokens .piece")]
    assert len(pieces) == 4 and port.text(port.query("#stage-pretokens-count")) == "4"
    assert port.text(port.query("#stage-decoded")) == visible("ab, cd!")
    typed(port, "abcd")
    assert note.hidden


def test_the_text_is_shown_as_coloured_spans_linked_to_their_chips():
    """Issue 26 item 0: the text itself, each token's characters in its chip's colour;
    hovering a span lights its chips, hovering a chip lights its span (bytes of one emoji:
    two chips, one span); spaces a pipeline drops are shown plain; user text stays text."""
    port, app = started()
    text = read("taylorswift.txt")[:20_000]
    use(app, port, Corpus(text), TrainSpec("byte_bpe", "vocab_size", 300))
    typed(port, "Swift's songs 🙂 <b>x</b>")
    tok = app.state.recording.tokenizer
    enc = tok.encode_full("Swift's songs 🙂 <b>x</b>")
    box = port.query("#inspect-spans")
    spans = port.query_all(".tok-span", box)
    assert not box.hidden and port.text(box) == "Swift's songs 🙂 <b>x</b>" and port.query_all("b", box) == []
    # one span per character range, naming every chip over it
    ranges = list(dict.fromkeys(enc.offsets))
    assert len(spans) == len(ranges)
    emoji = next(s for s in spans if port.text(s) == "🙂")
    over = [str(k) for k, o in enumerate(enc.offsets) if o == (14, 15)]
    assert port.get_attr(emoji, "data-chips").split() == over and len(over) > 1
    assert [port.get_attr(s, "data-color") for s in spans[:3]] == \
        [port.get_attr(chips(port)[int(port.get_attr(s, "data-chips").split()[0])], "data-color") for s in spans[:3]]
    # hover the emoji's span: its chips light, and the detail names them
    port.dispatch(emoji, "mouseover")
    lit = [c for c in chips(port) if "lit" in c.class_list]
    assert [port.get_attr(c, "data-index") for c in lit] == over and "lit" in emoji.class_list
    assert port.text(port.query("#inspect-detail")).count("id ") == len(over)
    # hover a chip: its span lights, the emoji's goes dark
    port.dispatch(port.query(".chip-text", chips(port)[0]), "mouseover")
    assert "lit" in spans[0].class_list and "lit" not in emoji.class_list


def test_span_segments_cover_the_text_in_order():
    port, app = started()
    typed(port, "  low  newest  ")
    box = port.query("#inspect-spans")
    assert port.text(box) == "  low  newest  "[:max(int(port.get_attr(c, "data-end")) for c in chips(port))]
    assert port.query_all(".tok-gap", box)  # the spaces the bpe pipeline drops


def test_a_long_text_is_drawn_in_parts_as_it_would_be_at_once():
    """2,000 chips, the coloured text and the stages of a long text are drawn in parts, a
    browser task each (`_show_parts` yields between them): the page ends up as it would
    drawn in one go, and no part draws more than PART_CHIPS chips."""
    port, app = started()
    panel = app.panels["inspect"]
    tok = _trained("byte_bpe")
    text = read("udhr/udhr_rus.txt")[:MAX_TEXT]
    r = inspect_text(tok, text, "plain")
    assert len(r.chips) > inspect_panel.MAX_CHIPS
    drawn = []
    parts = panel._show_parts(r)
    for _ in parts:
        drawn.append(len(chips(port)))
    assert len(drawn) >= inspect_panel.MAX_CHIPS // inspect_panel.PART_CHIPS + 1
    assert all(b - a <= inspect_panel.PART_CHIPS for a, b in zip([0, *drawn], drawn))

    def tree(node):
        return node if isinstance(node, str) else (node.tag, dict(node.attrs), [tree(c) for c in node.children])

    def page_html() -> list:
        return [tree(port.query(sel)) for sel in ("#inspect-chips", "#inspect-spans", "#stage-pretokens",
                                                  "#stage-ids", "#inspect-count", "#inspect-more")]

    in_parts = page_html()
    panel._show(None)
    assert not chips(port)
    panel._show(r)
    assert page_html() == in_parts and len(chips(port)) == inspect_panel.MAX_CHIPS
