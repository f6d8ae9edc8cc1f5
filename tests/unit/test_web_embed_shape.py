"""Embeds a course author shapes: ``cards=``, ``lock=1``, auto-height and "Back to the
author's setup" (embed.py, embed_view.py, the Share panel's snippet builder), on the real
index.html through the fake port."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fakedom import FakePort

from subwordlab_web import embed
from subwordlab_web.app import App
from subwordlab_web.embed import CARDS, HEIGHT_MESSAGE, LISTENER_JS, embed_url, parse_query, snippet

REPO = Path(__file__).resolve().parents[2]
INDEX_HTML = (REPO / "web" / "index.html").read_text(encoding="utf-8")
PAGE = "http://127.0.0.1:8000/index.html"
TRAIN_QUERY = "?embed=1&panel=train&preset=bpe&sample=seed000&merges=8&step=3"


def started(search: str) -> tuple[FakePort, App]:
    port = FakePort.from_html(INDEX_HTML)
    port.href = PAGE + search
    app = App(port, warm=False)
    app.start()
    port.settle()
    assert port.errors == []
    return port, app


def shown_cards(port: FakePort, panel: str) -> list[str]:
    section = port.query(f"section[data-panel={panel}]")
    return [port.get_attr(c, "data-card") for c in port.query_all("[data-card]", section)
            if port.get_attr(c, "data-card-off") is None]


# --- parameters ------------------------------------------------------------------------------
def test_cards_and_lock_are_parsed_for_the_panel():
    p = parse_query("?embed=1&panel=train&cards=player,%20candidates,player&lock=1")
    assert (p.cards, p.lock, p.problems) == (("player", "candidates"), True, ())
    assert parse_query("?embed=1&cards=form").cards == ("form",)  # no panel=: Train's cards
    assert parse_query("?embed=1&panel=compare&cards=columns,stats").cards == ("columns", "stats")
    assert parse_query("?embed=1&panel=inspect&cards=TOKENS").cards == ("tokens",)
    assert parse_query("?embed=1&lock=0").lock is False
    assert parse_query("?embed=1").cards is None


@pytest.mark.parametrize("query, problem", [
    ("?embed=1&panel=train&cards=player,chart", "cards= names 'chart', which the train panel does not have; "
                                                "its cards are lesson, form, player, candidates"),
    ("?embed=1&panel=inspect&cards=player", "'player', which the inspect panel does not have"),
    ("?embed=1&cards=,", "the parameter cards= names no card"),
])
def test_a_bad_cards_value_is_reported_by_name_and_every_card_shows(query, problem):
    p = parse_query(query)
    assert p.cards is None and len(p.problems) == 1 and problem in p.problems[0], p.problems
    assert "every card is shown" in p.problems[0]


def test_every_card_name_marks_one_card_of_its_panel_in_index_html():
    port = FakePort.from_html(INDEX_HTML)
    for panel, names in CARDS.items():
        section = port.query(f"section[data-panel={panel}]")
        marked = [port.get_attr(c, "data-card") for c in port.query_all("[data-card]", section)]
        assert marked == list(names), panel
        assert all(name in embed.CARD_TITLES for name in names)
    assert len(port.query_all("[data-card]")) == sum(len(v) for v in CARDS.values())


def test_embed_url_carries_cards_and_lock_readably():
    url = embed_url("https://x.org/lab/index.html?cards=x&lock=1", panel="train", fragment="v1.a",
                    cards=("player", "candidates"), lock=True)
    assert url == "https://x.org/lab/index.html?embed=1&panel=train&cards=player,candidates&lock=1#v1.a"
    p = parse_query(url.split("?", 1)[1].split("#", 1)[0])
    assert (p.panel, p.cards, p.lock) == ("train", ("player", "candidates"), True)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.data = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.data.append(data)


def test_the_auto_height_snippet_is_the_iframe_then_its_listener():
    html = snippet("https://x.org/?embed=1", title="T", auto_height=True)
    parser = _Tags()
    parser.feed(html)
    assert parser.tags == ["iframe", "script"]
    script = "".join(parser.data)
    assert script.strip() == LISTENER_JS.removeprefix("<script>").removesuffix("</script>").strip()
    # it listens to its own iframe only (the window that sent it, and that window's origin)
    assert "e.source !== frame.contentWindow" in script and "e.origin !== origin" in script
    assert f'd.type !== "{HEIGHT_MESSAGE}"' in script
    assert "document.currentScript.previousElementSibling" in script
    assert "innerHTML" not in script
    assert snippet("https://x.org/?embed=1").endswith("></iframe>")  # without: the iframe only


# --- cards and lock in the page ----------------------------------------------------------------
def test_cards_hide_the_others_and_lock_disables_the_settings_but_not_the_player():
    port, app = started(TRAIN_QUERY + "&cards=player,candidates&lock=1")
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert shown_cards(port, "train") == ["player", "candidates"]  # not the lesson card either
    # the two grids that lost cards give what is left the whole width
    assert port.get_attr(port.query(".grid-train-top"), "data-cards-trimmed") == ""
    assert port.get_attr(port.query(".grid-train"), "data-cards-trimmed") == ""
    scopes = port.query_all(".lock-scope")
    assert len(scopes) >= 4 and all(port.get_attr(s, "disabled") is not None for s in scopes)
    form_scope = port.query("#train-form .lock-scope")
    for field in ("#train-preset", "#train-size", "#train-target-vocab", "#train-options"):
        assert port.closest(port.query(field), ".lock-scope") is form_scope, field
    assert port.closest(port.query("#lesson-pick"), ".lock-scope") in scopes  # the lesson picker too
    assert not port.query("#embed-locked").hidden
    # the player is no setting: it steps
    for button in ("#train-step", "#train-back", "#train-play"):
        assert port.closest(port.query(button), ".lock-scope") is None
    port.click(port.query("#train-step"))
    port.settle()
    assert app.state.step == 4


def test_without_cards_or_lock_nothing_is_hidden_or_disabled():
    port, app = started(TRAIN_QUERY)
    assert shown_cards(port, "train") == list(CARDS["train"])
    assert all(port.get_attr(s, "disabled") is None for s in port.query_all(".lock-scope"))
    assert port.query("#embed-locked").hidden


def test_a_bad_card_name_is_shown_and_the_page_still_works():
    port, app = started(TRAIN_QUERY + "&cards=player,graph")
    assert "cards= names 'graph'" in port.text(port.query("#link-banner-text"))
    assert shown_cards(port, "train") == list(CARDS["train"]) and app.state.step == 3


# --- auto-height ---------------------------------------------------------------------------------
def test_the_page_posts_its_height_when_it_changes():
    port, app = started(TRAIN_QUERY)
    assert len(port.height_watchers) == 1
    port.resize(812)
    port.resize(812)  # unchanged: not posted again
    port.resize(640)
    # each height twice: ours, and Canvas's lti.frameResize (a JSON text, as LMS pages read it)
    assert port.posted == [{"type": HEIGHT_MESSAGE, "height": 812}, '{"subject": "lti.frameResize", "height": 812}',
                           {"type": HEIGHT_MESSAGE, "height": 640}, '{"subject": "lti.frameResize", "height": 640}']
    assert port.posted_to == ["*"] * 4


def test_the_full_page_posts_nothing():
    port, app = started("?sample=seed000")
    assert port.height_watchers == [] and port.posted == []


# --- back to the author's setup --------------------------------------------------------------------
def test_back_to_the_authors_setup_after_a_step_and_a_text():
    port, app = started(TRAIN_QUERY + "&text=lowest")
    st, button = app.state, port.query("#embed-restore")
    assert button.hidden
    recording = st.recording
    port.click(port.query("#train-step"))
    port.settle()
    assert st.step == 4 and not button.hidden
    st.set_inspect(text="newest widest")
    port.click(button)
    port.settle()
    assert (st.step, st.inspect.text) == (3, "lowest") and button.hidden
    assert st.recording is recording  # same corpus and algorithm: nothing was retrained


def test_back_to_the_authors_setup_after_other_settings_retrains_them():
    port, app = started(TRAIN_QUERY)
    st, button = app.state, port.query("#embed-restore")
    author_spec = st.spec
    port.input(port.query("#train-size"), "3", event="change")
    port.settle()
    assert st.spec != author_spec and not button.hidden
    port.click(button)
    port.settle()
    assert st.spec == author_spec and st.recording is not None and st.recording.done
    assert st.step == 3 and button.hidden


def test_an_edit_the_state_does_not_hold_counts_too():
    port, app = started("?embed=1&panel=compare&sample=seed000&vocab=40&text=lowest%20newest")
    cmp, button = app.panels["compare"], port.query("#embed-restore")
    assert port.value(cmp.text_box) == "lowest newest"
    assert cmp.run_state is not None and cmp.run_state.done  # a Compare embed runs its comparison
    assert port.value(cmp.vocab) == "40" and button.hidden
    port.input(cmp.text_box, "widest")
    assert not button.hidden
    port.click(button)
    port.settle()
    assert port.value(cmp.text_box) == "lowest newest" and button.hidden


# --- the snippet builder ---------------------------------------------------------------------------
def trained_share() -> tuple[FakePort, App]:
    port, app = started("?sample=seed000")
    app.panels["train"].start_training()
    port.settle()
    app.show_panel("share")
    return port, app


def test_the_builder_offers_the_cards_of_the_chosen_panel():
    port, app = trained_share()
    boxes = lambda: [port.get_attr(b, "value") for b in port.query_all("#share-embed-cards input")]
    assert boxes() == list(CARDS["train"])
    port.input(port.query("#share-embed-panel"), "compare", event="change")
    assert boxes() == list(CARDS["compare"])
    assert all(port.checked(b) for b in port.query_all("#share-embed-cards input"))


def test_the_builder_writes_cards_lock_and_the_auto_height_script():
    port, app = trained_share()
    for card in CARDS["train"]:
        if card not in ("player", "candidates"):
            port.set_checked(port.query(f"#share-embed-card-{card}"), False)
    port.set_checked(port.query("#share-embed-lock"), True)
    port.click(port.query("#share-embed-copy"))
    port.settle()
    code = port.value(port.query("#share-embed-code"))
    src = re.search(r'src="([^"]+)"', code).group(1).replace("&amp;", "&")
    assert src.startswith(PAGE + "?embed=1&panel=train&cards=player,candidates&lock=1&") and "#v1." in src
    assert code.endswith(LISTENER_JS) and "fits the iframe's height" in port.text(port.query("#share-embed-status"))
    # opened, it is the locked two-card Train view
    opened, _ = started("?" + src.split("?", 1)[1].split("#")[0] + "#" + src.split("#", 1)[1])
    assert shown_cards(opened, "train") == ["player", "candidates"]
    assert opened.get_attr(opened.query("body"), "data-locked") == "1"


def test_the_builder_without_auto_height_or_cards():
    port, app = trained_share()
    port.set_checked(port.query("#share-embed-auto"), False)
    port.click(port.query("#share-embed-copy"))
    port.settle()
    code = port.value(port.query("#share-embed-code"))
    assert code.endswith("></iframe>") and "<script" not in code and "cards=" not in code and "lock=" not in code
    for box in port.query_all("#share-embed-cards input"):
        port.set_checked(box, False)
    port.click(port.query("#share-embed-copy"))
    port.settle()
    assert "tick at least one card" in port.text(port.query("#share-embed-status"))


def test_the_documented_listener_is_the_one_the_builder_writes():
    """README's embed section and embed-example.html show the snippet's script as it is."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert LISTENER_JS in readme
    example = (REPO / "web" / "embed-example.html").read_text(encoding="utf-8")
    indented = "\n".join("    " + line if line else line for line in LISTENER_JS.splitlines())
    frames = re.findall(r"<iframe [^>]*>", example)
    assert len(frames) >= 2 and example.count(indented) == len(frames)  # one script after each iframe
    shown = LISTENER_JS.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert shown in example  # and in the page's "Make your own" snippet


def test_a_lesson_step_embed_with_cards_and_back_to_its_step():
    port, app = started("?embed=1&lesson=3&step=4&cards=lesson,player,candidates")
    st, button = app.state, port.query("#embed-restore")
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert shown_cards(port, "train") == ["lesson", "player", "candidates"]
    assert (st.lesson, st.step) == (3, 4) and button.hidden
    port.click(port.query("#lesson-next"))
    port.settle()
    assert st.step == 5 and not button.hidden
    port.click(button)
    port.settle()
    assert (st.lesson, st.step) == (3, 4) and button.hidden


def test_a_lesson_snippet_carries_the_lesson_step_cards_and_lock():
    port, app = started("?lesson=3&step=4")
    app.show_panel("share")
    for card in CARDS["train"]:
        port.set_checked(port.query(f"#share-embed-card-{card}"), card in ("lesson", "player"))
    port.set_checked(port.query("#share-embed-lock"), True)
    port.click(port.query("#share-embed-copy"))
    port.settle()
    src = re.search(r'src="([^"]+)"', port.value(port.query("#share-embed-code"))).group(1).replace("&amp;", "&")
    assert src == PAGE + "?embed=1&panel=train&cards=lesson,player&lock=1&lesson=3&step=4"


def test_a_failed_training_in_an_inspect_embed_says_why_in_the_embeds_terms():
    """Issue 29: the embed told the learner to "open Train and press Step" (it has no Train
    tab) and hid the reason ("use at least 14")."""
    port, app = started("?embed=1&panel=inspect&preset=unigram&vocab=5")
    assert app.state.training.phase == "failed"
    note = port.text(port.query("#inspect-note")) if port.query_all("#inspect-note") else ""
    section = port.text(port.query("section[data-panel=inspect]"))
    assert "open Train" not in section and "press Step" not in section
    assert "This embed could not train its tokenizer: vocab=5 cannot hold" in section
    assert "use at least 14" in section and "its author can change vocab= there" in section
    assert note == "" or "vocab=5" in note


def test_a_failed_training_outside_an_embed_says_why_and_where_to_change_it():
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start()
    port.settle()
    from subwordlab_web.state import TrainingStatus

    app.state.discard_recording()  # as a failed run leaves it
    app.state.training = TrainingStatus(
        phase="failed", message="vocab_size=5 cannot hold the 11 characters; use at least 14")
    tok, why = app.state.tokenizer_at_step()
    assert tok is None and why == ("Training failed: vocab_size=5 cannot hold the 11 characters; use at least 14. "
                                   "Change the settings on Train and run again.")
