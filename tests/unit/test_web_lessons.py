"""Guided lessons (subwordlab_web.lessons): the lessons' worked examples are acceptance tests.

Every lesson is trained with its own settings; every number its steps state is the
recording's, and equals what the lesson text in lessons/ prints. The lessons' sentences are
quoted verbatim. The lessons' own merge loop (written here from their code) reproduces
every recorded merge, so the explanations' "where the count comes from" adds up."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from subwordlab.recording import Recording
from subwordlab_web.embed import lesson_address, parse_query
from subwordlab_web.lessons import LESSONS, SOURCES, explain, label, lesson_by_number, lesson_for, words_at
from subwordlab_web.samples import SAMPLES

LESSON_DIR = Path(__file__).resolve().parents[2] / "lessons"


def flat(text: str) -> str:
    """White space runs as one space (the lesson files wrap and indent their printouts)."""
    return re.sub(r"\s+", " ", text).strip()


def source_text(key: str) -> str:
    return flat((LESSON_DIR / SOURCES[key].file).read_text(encoding="utf-8"))


def recorded(lesson):
    rec = Recording(lesson.training_input(), lesson.spec.preset, **lesson.spec.kwargs())
    rec.run()
    return rec


RECORDINGS = {le.number: recorded(le) for le in LESSONS}
TEXT_LESSONS = LESSONS[:6]  # the lessons of the lesson texts in lessons/ (7-12: test_web_lesson_files.py)
MERGE_LESSONS = [le for le in TEXT_LESSONS if not le.spec.is_unigram]  # the five worked examples that print merges
UNIGRAM = lesson_by_number(6)


def lesson_loop(lesson, step, rec):
    """The lessons' own loop: count every adjacent pair weighted by word counts, before merge `step`."""
    words = words_at(lesson, [tuple(s.pair) for s in rec.steps[: step - 1]])
    pairs: Counter = Counter()
    for word, symbols in words.items():
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] += lesson.words()[word]
    return pairs


def test_six_lessons_numbered_in_picker_order_from_the_bundled_worked_examples():
    assert [le.number for le in LESSONS] == list(range(1, 15))
    assert lesson_by_number(3) is LESSONS[2] and lesson_by_number(0) is None and lesson_by_number(15) is None
    assert [le.number for le in MERGE_LESSONS] == [1, 2, 3, 4, 5] and UNIGRAM.spec.is_unigram
    for le in TEXT_LESSONS:
        assert le.sample in SAMPLES and SAMPLES[le.sample].format == "word_counts"
        assert lesson_for(le.sample, le.spec) is le
    # the four BPE lessons use exactly their sample's settings (the textbook numbers)
    assert all(le.spec == SAMPLES[le.sample].config for le in LESSONS[:4])


def test_sources_are_the_lesson_files_and_their_titles_are_in_them():
    assert sorted(s.file for s in SOURCES.values()) == sorted(p.name for p in LESSON_DIR.glob("*.txt"))
    for key, src in SOURCES.items():
        assert src.title in source_text(key), key


@pytest.mark.parametrize("lesson", TEXT_LESSONS, ids=lambda le: f"lesson{le.number}")
def test_every_quote_is_the_lessons_own_words(lesson):
    quotes = list(lesson.intro) + [lesson.rule] + ([lesson.tie_rule] if lesson.tie_rule else []) + list(lesson.em_note)
    quotes += [q for qs in lesson.notes.values() for q in qs]
    for q in quotes:
        assert flat(q.text) in source_text(q.source), q.text
    for printed in lesson.printed.values():
        assert flat(printed.text) in source_text(lesson.source), printed.text


@pytest.mark.parametrize("lesson", MERGE_LESSONS, ids=lambda le: f"lesson{le.number}")
def test_the_recording_equals_what_the_lesson_prints(lesson):
    rec = RECORDINGS[lesson.number]
    assert len(rec.steps) == lesson.steps
    assert lesson.printed, "a lesson without a printed result is no acceptance test"
    for step, printed in lesson.printed.items():
        e = rec.steps[step - 1]
        assert tuple(e.pair) == printed.pair, (step, printed.text)
        if printed.count is not None:
            assert e.count == printed.count
        if printed.score is not None:
            assert round(e.score, 4) == printed.score
        # and the printed text really names that pair (and count) — not just a label of ours
        text = printed.text
        assert repr(printed.pair) in text or f"{printed.pair[0]} + {printed.pair[1]}" in text
        if printed.count is not None:
            assert re.search(rf"\bcount {printed.count}\b", text) or f"), {printed.count})" in text


@pytest.mark.parametrize("lesson", MERGE_LESSONS, ids=lambda le: f"lesson{le.number}")
def test_each_step_states_the_recorded_numbers(lesson):
    rec = RECORDINGS[lesson.number]
    wordpiece = lesson.spec.preset == "wordpiece"
    start = explain(lesson, rec, 0)
    assert start.heading == "Step 0: the starting vocabulary" and start.quotes == lesson.intro
    assert f"starts with {rec.alphabet.vocab_size} entries" in " ".join(start.facts)
    assert f"makes {len(rec.steps)} merges" in " ".join(start.facts)
    for k, e in enumerate(rec.steps, 1):
        card = explain(lesson, rec, k)
        said = " ".join(card.facts)
        assert card.heading == f"Merge {k}: {label(e.pair)} → {e.new_token}"
        assert f"{e.count} times" in said
        assert f"The vocabulary has {e.vocab_size} entries" in said
        pairs = lesson_loop(lesson, k, rec)
        assert pairs[tuple(e.pair)] == e.count  # the lessons' own count of the pair
        # the words the count comes from add up to it: "(newest ×6, widest ×3)"
        where = re.search(rf"{re.escape(str(e.count))} times \(([^)]*)\)", said).group(1)
        assert sum(int(n) for n in re.findall(r"×(\d+)", where)) == e.count
        if wordpiece:
            a, b = e.part_counts
            assert f"{e.count} / ({a} × {b}) = {e.score:.4f}" in said
            units: Counter = Counter()
            for word, symbols in words_at(lesson, [tuple(s.pair) for s in rec.steps[: k - 1]]).items():
                for s in symbols:
                    units[s] += lesson.words()[word]
            assert (units[e.pair[0]], units[e.pair[1]]) == (a, b)
        else:  # BPE: nothing counts more, by the lessons' own loop
            assert max(pairs.values()) == e.count
        if k in lesson.printed:
            assert card.printed is lesson.printed[k]


def test_ties_are_named_with_their_rule():
    # lesson 1, merge 1: three pairs tie at 9 and the first met wins (lesson 000's rule)
    one = explain(LESSONS[0], RECORDINGS[1], 1)
    assert "3 pairs tie at 9: e + s, s + t, t + </w>. The tie-break rule: the pair met first in the corpus wins, " \
           "so e + s is merged." in one.facts
    assert LESSONS[0].tie_rule in one.quotes
    # lesson 3, merge 1: (e, r) and (r, _) tie at 9; the alphabetically smaller wins — what the lesson says
    three = explain(LESSONS[2], RECORDINGS[3], 1)
    assert ("2 pairs tie at 9: e + r, r + _. The tie-break rule: the alphabetically smallest pair wins, "
            "so e + r is merged.") in three.facts
    # lesson 4, merge 1: four pairs tie at 15 (t o k e n)
    four = explain(LESSONS[3], RECORDINGS[4], 1)
    assert any(f.startswith("4 pairs tie at 15: t + o, o + k, k + e, e + n.") for f in four.facts)
    # no tie, no tie sentence and the lesson's general rule instead
    two = explain(LESSONS[1], RECORDINGS[2], 2)
    assert not any("tie" in f for f in two.facts) and two.quotes == (LESSONS[1].rule,)


def test_lesson_3_step_4_is_what_a_course_page_links_to():
    card = explain(lesson_by_number(3), RECORDINGS[3], 4)
    assert card.heading == "Merge 4: lo + w → low"
    assert card.facts[0] == ("lo + w is the most frequent adjacent pair: 7 times (low ×5, lowest ×2). "
                             "The next best count is 6 (e + w).")
    assert card.facts[-1] == "Now: low → low _; lowest → low e s t _. The vocabulary has 15 entries."
    assert card.printed.text == "(('lo', 'w'), 7)"


def test_wordpiece_lesson_compares_with_the_most_frequent_pair():
    card = explain(LESSONS[4], RECORDINGS[5], 1)
    # lesson 004 prints: best WordPiece pair ('##i', '##z') count 5 score 0.1429; most frequent ('t', '##o') 15, 0.0667
    assert card.facts[0].startswith("##i + ##z has the highest score: 5 / (7 × 5) = 0.1429.")
    assert "The most frequent pair, t + ##o (15 times), scores only 0.0667" in card.facts[1]
    last = explain(LESSONS[4], RECORDINGS[5], 5)
    assert last.heading == "Merge 5: t + ##o → to" and last.printed.count == 15


def test_the_last_steps_claims_hold_for_the_trained_tokenizers():
    """What the quoted sentences at the last steps say the tokenizer does, it does."""
    assert RECORDINGS[1].tokenizer.tokenize("lowest") == ["low", "est</w>"]
    assert RECORDINGS[2].tokenizer.tokenize("bugs") == ["b", "ug", "s"]
    assert RECORDINGS[2].tokenizer.tokenize("mug") == ["<unk>", "ug"]
    assert RECORDINGS[3].tokenizer.tokenize("lower") == ["low", "er_"]
    assert RECORDINGS[4].tokenizer.tokenize("stemmed") == ["stem", "m", "e", "d", "</w>"]
    assert RECORDINGS[4].tokenizer.tokenize("tokenizers") == ["tokeni", "z", "e", "r", "s</w>"]


# --- lesson 6: Unigram pruning, every number recomputed from the recorded events ---------------
def best_split(word, pieces):
    """The most probable split of `word` into `pieces` ({piece: log prob}), by trying every
    split (the words are short): a check of the tokenizer's Viterbi that shares no code with it."""
    if not word:
        return (), 0.0
    best = None
    for end in range(1, len(word) + 1):
        head = word[:end]
        if head in pieces:
            rest, score = best_split(word[end:], pieces)
            if rest is not None and (best is None or pieces[head] + score > best[1]):
                best = ((head,) + rest, pieces[head] + score)
    return best if best is not None else (None, 0.0)


def test_the_unigram_lesson_prunes_the_hug_corpus_in_a_few_rounds():
    rec = RECORDINGS[6]
    assert UNIGRAM.sample == "seed002" and UNIGRAM.words() == LESSONS[1].words()  # the hug corpus of lesson 2
    kinds = [e.kind for e in rec.steps]
    assert kinds.count("prune") >= 2 and set(kinds) == {"em", "prune"}
    assert rec.steps[-1].vocab_size == UNIGRAM.spec.size == len(rec.tokenizer.model.vocab)
    # no lesson text prints a Unigram run: the card says where its numbers come from instead
    assert not UNIGRAM.printed and "come from this training" in UNIGRAM.numbers_note
    assert all(le.numbers_note == "" and le.printed for le in MERGE_LESSONS)


def test_each_unigram_step_states_what_the_events_recorded():
    rec = RECORDINGS[6]
    words = UNIGRAM.words()
    start = explain(UNIGRAM, rec, 0)
    said = " ".join(start.facts)
    assert start.quotes == UNIGRAM.intro
    assert f"starts with {len(rec.alphabet.pieces)} entries" in said
    assert f"prunes it to {UNIGRAM.spec.size} in {len(rec.steps)} steps" in said
    assert f"({sum(e.kind == 'prune' for e in rec.steps)} pruning rounds)" in said
    snapshots = [rec.alphabet.pieces] + [e.pieces for e in rec.steps]
    for k, e in enumerate(rec.steps, 1):
        card = explain(UNIGRAM, rec, k)
        said = " ".join(card.facts)
        before, after = [p for p, _ in snapshots[k - 1]], [p for p, _ in snapshots[k]]
        # the vocabulary before -> after, counted from the snapshots (not the events' own sizes)
        assert f"The vocabulary: {len(before)} → {len(after)} entries." in card.facts
        removed = [p for p in before if p not in after]
        assert len(after) == len(before) - len(removed)
        if e.kind == "prune":
            assert card.heading == f"Pruning round {e.round + 1}: {len(removed)} piece{'s' if len(removed) != 1 else ''} removed"
            assert sorted(p for p, _ in e.dropped) == sorted(removed)
            # named least useful first, each with its loss, as the card lists them
            listed = re.findall(r"(\S+) \(loss (\d+\.\d{4})\)", said)
            assert [p for p, _ in listed] == [p for p, _ in e.dropped][: len(listed)] and listed
            assert [float(x) for _, x in listed] == [round(loss, 4) for _, loss in e.dropped][: len(listed)]
            assert [float(x) for _, x in listed] == sorted(float(x) for _, x in listed)
            assert card.quotes == (UNIGRAM.rule,)
        else:
            assert card.heading == f"EM round {e.round + 1}: probabilities re-estimated"
            assert f"log-likelihood is now {e.log_likelihood:.3f}" in said
            if removed:
                assert f"dropped {len(removed)} piece" in said and removed[0] in said
            else:
                assert "dropped" not in said
            assert card.quotes == UNIGRAM.em_note
        # how the words split now: the best split over this step's pieces, found by brute force
        pieces = dict(snapshots[k])
        now = card.facts[-1]
        for word in words:
            split, _score = best_split("▁" + word, pieces)
            assert f"{word} → {' '.join(split)}" in now, (k, word, now)
    # pruning really changed the splits: the last round removed the whole-word pieces but ▁pun
    last = explain(UNIGRAM, rec, len(rec.steps)).facts[-1]
    assert last == "Now: " + "; ".join(f"{w} → {' '.join(rec.tokenizer.tokenize(w))}" for w in words) + "."


def test_the_unigram_lesson_in_the_page():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=6&step=2")
    st = app.state
    assert (st.lesson, st.step, st.corpus.sample, st.spec) == (6, 2, "seed002", UNIGRAM.spec)
    card = card_text(port)
    steps = len(st.recording.steps)
    assert card["where"] == f"Lesson 6 · step 2 of {steps}"
    assert card["facts"] == list(explain(UNIGRAM, st.recording, 2).facts)
    assert card["heading"].startswith("Pruning round 1:")
    assert port.query("#lesson-printed-line").hidden
    source = port.text(port.query("#lesson-source"))
    assert SOURCES["002"].title in source and source.endswith(UNIGRAM.numbers_note)
    port.click(port.query("#lesson-next"))
    port.settle()
    assert st.step == 3 and st.lesson == 6 and port.href.endswith("?lesson=6&step=3")
    options = [port.text(o) for o in port.query_all("#lesson-pick option")]
    assert options[6] == "6. Unigram: pruning the hug corpus"


# --- the address: ?lesson=3&step=4 -------------------------------------------------------------
def test_lesson_and_step_parameters():
    p = parse_query("?lesson=3&step=4")
    assert (p.lesson, p.step, p.embed, p.problems) == (3, 4, False, ())
    assert p.picks_experiment
    p = parse_query("?embed=1&panel=train&lesson=5")
    assert (p.embed, p.panel, p.lesson, p.step) == (True, "train", 5, None)


@pytest.mark.parametrize("query, problem", [
    ("lesson=0", "the parameter lesson=0 must be between 1 and 14"),
    ("lesson=15&step=1", "the parameter lesson=15 must be between 1 and 14"),
    ("lesson=-2", "the parameter lesson='-2' must be a whole number"),
])
def test_a_bad_lesson_is_reported_by_name_and_dropped(query, problem):
    p = parse_query(query)
    assert p.lesson is None and len(p.problems) == 1 and problem in p.problems[0]


def test_a_lesson_sets_corpus_and_algorithm_so_those_parameters_are_ignored_and_said():
    p = parse_query("?lesson=2&sample=udhr_eng&merges=40&step=1")
    assert (p.lesson, p.sample, p.num_merges, p.step) == (2, None, None, 1)
    assert p.problems == ("lesson= sets the corpus and the algorithm; sample= was ignored",
                          "lesson= sets the corpus and the algorithm; merges= was ignored")


def test_lesson_address_keeps_other_parameters_and_drops_the_fragment():
    url = "https://x.org/lab/index.html?embed=1&panel=train&lesson=2&step=1&utm=c#v1.abc"
    assert lesson_address(url, 3, 4) == "https://x.org/lab/index.html?embed=1&panel=train&utm=c&lesson=3&step=4"
    assert lesson_address(url, None) == "https://x.org/lab/index.html?embed=1&panel=train&utm=c#v1.abc"
    assert parse_query(urlsplit(lesson_address("http://h/?x=1", 5, 0)).query).lesson == 5


# --- the lesson card on the real index.html, through the fake port ---------------------------
INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")


def page(href="http://127.0.0.1:8000/index.html"):
    from fakedom import FakePort

    from subwordlab_web.app import App

    port = FakePort.from_html(INDEX_HTML)
    port.href = href
    app = App(port, warm=False)
    app.start()
    port.settle()
    return port, app


def card_text(port):
    q = port.query
    return {"where": port.text(q("#lesson-where")), "heading": port.text(q("#lesson-heading")),
            "facts": [port.text(li) for li in port.query_all("#lesson-facts li")],
            "quotes": [port.text(p) for p in port.query_all("#lesson-quotes p")],
            "printed": port.text(q("#lesson-printed")), "step": port.text(q("#train-step-now"))}


def test_the_address_opens_lesson_3_at_step_4_and_the_player_follows():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=3&step=4")
    st = app.state
    assert (st.lesson, st.step, st.corpus.sample, st.spec) == (3, 4, "seed003", LESSONS[2].spec)
    card = card_text(port)
    assert card["where"] == "Lesson 3 · step 4 of 6" and card["step"] == "4"
    assert card["heading"] == "Merge 4: lo + w → low"
    assert card["facts"] == list(explain(LESSONS[2], st.recording, 4).facts)
    assert card["printed"] == "(('lo', 'w'), 7)"
    assert port.get_attr(port.query("#lesson-card"), "data-lesson") == "3"
    assert port.value(port.query("#lesson-pick")) == "3"
    assert not port.query("#lesson-body").hidden and port.query("#lesson-intro").hidden
    # the merges table and the candidates chart are at merge 4 too
    assert port.text(port.query("#merges-rows tr.current td")) == "4"
    assert port.text(port.query("#candidates-title")).startswith("Merge 4")
    # the address keeps the lesson and the step, not a fragment
    assert port.href == "http://127.0.0.1:8000/index.html?lesson=3&step=4"


def test_next_previous_and_replay_move_the_player_and_the_address():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=3&step=4")
    port.click(port.query("#lesson-next"))
    port.settle()
    assert app.state.step == 5 and card_text(port)["where"] == "Lesson 3 · step 5 of 6"
    assert port.href.endswith("?lesson=3&step=5")
    port.click(port.query("#lesson-next"))
    port.settle()
    assert app.state.step == 6 and port.query("#lesson-next").attrs.get("disabled") is not None
    assert port.focused is port.query("#lesson-replay")  # not lost with the disabled button
    port.click(port.query("#lesson-prev"))
    port.settle()
    assert app.state.step == 5 and port.href.endswith("?lesson=3&step=5")
    # the player's own Step button moves the lesson too
    port.click(port.query("#train-back"))
    port.settle()
    assert card_text(port)["heading"] == "Merge 4: lo + w → low"
    port.click(port.query("#lesson-replay"))
    assert app.state.player.playing and app.state.step == 0
    port.settle()  # plays to the end
    assert app.state.step == 6 and not app.state.player.playing
    assert card_text(port)["where"] == "Lesson 3 · step 6 of 6"


def test_picking_a_lesson_then_changing_the_settings_leaves_it():
    port, app = page()
    assert port.query("#lesson-body").hidden and app.state.lesson is None
    options = [port.text(o) for o in port.query_all("#lesson-pick option")]
    assert options[0] == "Choose a lesson…" and options[1:] == [f"{le.number}. {le.title}" for le in LESSONS]
    port.input(port.query("#lesson-pick"), "5", event="change")
    port.settle()
    st = app.state
    assert (st.lesson, st.step, st.spec.preset) == (5, 0, "wordpiece")
    assert card_text(port)["where"] == "Lesson 5 · step 0 of 5"
    assert port.href.endswith("index.html?lesson=5&step=0")
    port.click(port.query("#lesson-next"))
    port.settle()
    card = card_text(port)
    assert card["heading"] == "Merge 1: ##i + ##z → ##iz"
    assert card["printed"] == "best WordPiece pair: ('##i', '##z') count 5 score 0.1429"
    assert any("##z never appears without ##i before it" in q for q in card["quotes"])
    # the learner changes the algorithm: the lesson is left, said, and the address is a share fragment again
    app.panels["train"].state.set_spec(LESSONS[3].spec.with_preset("bpe"))
    port.settle()
    assert st.lesson is None and port.query("#lesson-body").hidden
    assert "lesson 5 was left" in port.text(port.query("#lesson-intro"))
    assert "lesson=" not in port.href and "#v1." in port.href


def test_a_bad_lesson_in_the_address_is_reported_by_name():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=19&step=2")
    assert app.state.lesson is None
    assert "lesson=19 must be between 1 and 14" in port.text(port.query("#link-banner-text"))


def test_an_embed_of_a_lesson_step():
    port, app = page("http://127.0.0.1:8000/index.html?embed=1&lesson=1&step=3")
    assert port.get_attr(port.query("body"), "data-embed") == "1"
    assert (app.state.lesson, app.state.step) == (1, 3) and app.current == "train"
    assert card_text(port)["heading"] == "Merge 3: est + </w> → est</w>"
    assert port.href.endswith("?embed=1&lesson=1&step=3")
    assert port.get_attr(port.query("#embed-open"), "href").endswith("?lesson=1&step=3")


def test_share_link_and_embed_snippet_of_a_lesson_step_are_its_address():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=2&step=1")
    share = app.panels["share"]
    url, _ref = share.make_link()
    assert url == "http://127.0.0.1:8000/index.html?lesson=2&step=1"
    code = share.embed_snippet()
    assert 'src="http://127.0.0.1:8000/index.html?embed=1&amp;panel=train&amp;lesson=2&amp;step=1"' in code
    assert 'title="Subword Lab: lesson 2, step 1"' in code


def test_a_step_beyond_the_lesson_shows_its_last_step_and_says_so():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=2&step=99")
    assert (app.state.lesson, app.state.step) == (2, 3)
    assert card_text(port)["where"] == "Lesson 2 · step 3 of 3"
    assert "asks for step 99, but this run has 3 steps" in port.text(port.query("#link-banner-text"))
    assert port.href.endswith("?lesson=2&step=3")
