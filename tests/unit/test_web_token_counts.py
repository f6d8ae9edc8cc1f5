"""The compute session's token counts (token_counts.py): what crosses is plain data (model
files' texts and the texts to count, joined); a broken model or text is said, the rest counted."""

import json

import subwordlab
from subwordlab.stats import token_count
from subwordlab_web.session import ComputeSession
from subwordlab_web.token_counts import count_request

CORPUS = "the lowest and the newest of the low and new words " * 20
TEXTS = ["the newest words", "ünïcödé never seen", "", "low " * 500]


def _ask(request: str, joined: str) -> list[dict]:
    return list(ComputeSession().replies(json.loads(request), joined))


def test_each_model_counts_the_texts_it_is_given_as_the_page_would():
    bpe = subwordlab.train(CORPUS, preset="bpe", vocab_size=60)
    byte = subwordlab.train(CORPUS, preset="byte_bpe", vocab_size=300)
    models = [("bpe.json", subwordlab.to_json(bpe).encode(), [0, 1, 3]), ("byte.json", subwordlab.to_json(byte), [0, 1, 2, 3])]
    replies = _ask(*count_request(models, TEXTS, ["a", "b", "c", "d"]))
    assert replies[-1] == {"done": 2} and [r["column"] for r in replies[:-1]] == [0, 1]
    for reply, tok, (_, _, todo) in zip(replies, (bpe, byte), models):
        want = [token_count(tok, TEXTS[k]) for k in todo]
        assert reply["tokens"] == [w["tokens"] for w in want] and reply["unknown"] == [w["unknown_rate"] for w in want]
        assert reply["errors"] == {}
    assert replies[0]["tokens"][1] is None  # (characters this BPE never saw, and no unk token)


def test_a_broken_model_is_said_and_the_others_counted():
    byte = subwordlab.to_json(subwordlab.train(CORPUS, preset="byte_bpe", vocab_size=280))
    replies = _ask(*count_request([("broken.json", '{"format": "subwordlab", "model"', [0]), ("ok.json", byte, [0])], TEXTS))
    assert "problem" in replies[0] and "broken.json" in replies[0]["problem"]
    assert replies[1]["tokens"] == [token_count(subwordlab.from_json(byte), TEXTS[0])["tokens"]]


def test_a_request_whose_lengths_do_not_add_up_gets_one_message():
    request, joined = count_request([("m.json", subwordlab.to_json(subwordlab.train(CORPUS, preset="bpe", vocab_size=50)), [0])],
                                    TEXTS)
    replies = _ask(request, joined[:-5])
    assert len(replies) == 1 and "do not add up" in replies[0]["error"]
    assert "error" in _ask(json.dumps({"op": "count_tokens"}), "")[0]


def test_a_session_reads_a_model_file_once():
    session = ComputeSession()
    request, joined = count_request([("m.json", subwordlab.to_json(subwordlab.train(CORPUS, preset="bpe", vocab_size=50)), [0])],
                                    TEXTS)
    first = list(session.replies(json.loads(request), joined))
    kept = dict(session._models)
    assert list(session.replies(json.loads(request), joined)) == first and len(kept) == 1
    assert all(a is b for a, b in zip(kept.values(), session._models.values()))
