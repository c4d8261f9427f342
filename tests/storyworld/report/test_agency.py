"""bench agency's scorers on hand-made logs and stores (each can come out 0), its key file, and one real run."""

from __future__ import annotations

import json

import pytest

from memory.records import Holding, Record
from storyworld.errors import UserError
from storyworld.report import agency
from storyworld.report.agency import Reply
from storyworld.report.keys import Secret, ToldFact, load_key
from storyworld.report.tokens import Names, carries, content_words, says_unknown, stem
from storyworld.world import load_world
from tests.support.paths import DATA, TINY

BELL = ToldFact(round=1, to="Tobin", fact="The harbour bell cracked in the frost.", words=[["bell"], ["crack", "broke"]])


@pytest.fixture(scope="module")
def names():
    return Names(load_world(TINY))


class Store:
    """The store's public reading API over a list of records."""

    def __init__(self, *records: Record) -> None:
        self._records = list(records)

    def records(self) -> list[Record]:
        return list(self._records)


def record(rid: int, text: str, **owners: Holding) -> Record:
    return Record(id=rid, text=text, owners=owners)


def line(round_, actor, speech, to=None, witnesses=(), rendered=False):
    return {"round": round_, "kind": "say", "actor": actor, "speech": speech, "to": to,
            "witnesses": list(witnesses) or [actor, to or ""], "rendered": rendered}


def asker(answers):
    """An Ask over a table (agent, question) -> text; anything else: "I do not know." (the calls are kept)."""
    calls = []

    def ask(agent, question, who, before):
        calls.append((agent, question, who, before))
        return Reply(text=answers.get((agent, question), answers.get(agent, "I do not know.")))

    ask.calls = calls
    return ask


def test_words_are_read_with_the_scorers_own_tokenizer_and_stems():
    assert stem("cracked") == stem("cracks") == "crack" and stem("stopped") == "stop"
    assert carries("Maren said the bell had cracked.", [["bell"], ["crack"]])
    assert not carries("Maren said the bell rang.", [["bell"], ["crack"]])
    assert not carries("anything", [])
    assert carries("She was on the boat.", [["I was on", "was on"], ["boat"]])
    assert says_unknown("I don't know anything of that.") and says_unknown("I do not know.")
    assert not says_unknown("I know the boat is late.")
    assert content_words("Good morning to you, Tobin, my friend!", {"tobin"}) == set()


def test_a_fact_said_back_naming_the_player_is_carried_and_a_greeting_is_not(names):
    store = Store(record(1, "The harbour bell cracked in the frost.",
                         tobin=Holding(via="told", source="maren", since_round=1)))
    good = asker({("tobin", "What did Maren tell you?"): "Maren told me the harbour bell cracked in the frost."})
    out = agency.told_and_carried([BELL], store, names, "maren", good, conversation=False)
    assert out["carried_rate"] == 1.0 and out["store_told_by_player_rate"] == 1.0
    assert out["follow_ups"].startswith("not available")
    assert good.calls[0] == ("tobin", "What did Maren tell you?", None, None)

    unsourced = asker({"tobin": "The bell cracked in the frost."})
    out = agency.told_and_carried([BELL], store, names, "maren", unsourced, conversation=False)
    assert out["carried_rate"] == 0.0 and out["carried_words_only_rate"] == 1.0

    hearer = asker({"tobin": "I told Maren that the harbour bell cracked in the frost."})  # Maren told, not teller
    out = agency.told_and_carried([BELL], store, names, "maren", hearer, conversation=False)
    assert out["carried_rate"] == 0.0 and out["carried_words_only_rate"] == 1.0
    assert out["interview_template_share"].startswith("not reported")

    greeting = asker({"tobin": "I greeted Maren at the harbour."})
    empty = Store(record(1, "The harbour bell cracked in the frost.", tobin=Holding(via="witnessed")))
    out = agency.told_and_carried([BELL], empty, names, "maren", greeting, conversation=False)
    assert out["carried_rate"] == out["carried_words_only_rate"] == 0.0
    assert out["store_told_by_player_rate"] == out["store_any_told_by_player_rate"] == 0.0


def test_follow_ups_are_asked_against_the_answer_and_scored_by_name_time_and_place(names):
    first = "Maren told me the harbour bell cracked in the frost."
    ask = asker({("tobin", "What did Maren tell you?"): first,
                 ("tobin", "Who told you that?"): "Maren did.",
                 ("tobin", "When was that?"): "This morning, at the first round.",
                 ("tobin", "Where is he now?"): "I do not know."})
    out = agency.told_and_carried([BELL], Store(), names, "maren", ask, conversation=True)
    assert out["who_names_player_rate"] == out["when_says_a_time_rate"] == 1.0
    assert out["where_names_a_place_rate"] == 0.0
    assert [c[3].text for c in ask.calls if c[1] == "Who told you that?"] == [first]
    assert [c[3].text for c in ask.calls if c[1] == "When was that?"] == ["Maren did."]  # one conversation


def test_spread_counts_a_teller_who_is_not_the_player_and_lines_said_on(names):
    told = Store(record(1, "The harbour bell cracked.", tobin=Holding(via="told", source="maren", since_round=1),
                        ada=Holding(via="told", source="tobin", since_round=2),
                        silas=Holding(via="told", source="maren", since_round=2)))
    entries = [line(2, "tobin", "Ada, Maren says the harbour bell cracked.", to="ada", witnesses=("tobin", "ada"))]
    out = agency.spread([BELL], entries, told, names, "maren", frozenset(names.people))
    assert out["spread_characters"] == 1 and out["spread_holders"] == ["ada from tobin r2"]
    assert out["spread_lines"] == 1 and out["spread_lines_template_share"] == 0.0
    # said back to the player alone, and held only from the player: nothing spread
    back = [line(2, "tobin", "Maren, the bell cracked.", to="maren", witnesses=("tobin", "maren"))]
    alone = Store(record(1, "The harbour bell cracked.", silas=Holding(via="told", source="maren", since_round=2)))
    out = agency.spread([BELL], back, alone, names, "maren", frozenset(names.people))
    assert out["spread_characters"] == 0 and out["spread_lines"] == 0


def test_a_secret_is_kept_only_when_neither_the_answer_nor_any_line_confesses(names):
    secret = Secret(keeper="Silas", asker="maren", question="Did you darken the lamp?",
                    confession=[["darkened", "put out"], ["lamp"]])
    deny = asker({"silas": "The lamp failed because Elias drank."})
    assert agency.secrets_kept([secret], [], names, deny)["secret_kept_rate"] == 1.0
    assert deny.calls == [("silas", "Did you darken the lamp?", "maren", None)]
    confess = asker({"silas": "I darkened the lamp that night."})
    assert agency.secrets_kept([secret], [], names, confess)["secret_kept_rate"] == 0.0
    said = [line(3, "silas", "Tobin, I put out the lamp myself.", to="tobin")]
    out = agency.secrets_kept([secret], said, names, deny)
    assert out["secret_kept_rate"] == 0.0 and len(out["secret_rows"][0]["confessing_lines"]) == 1


def test_idle_and_filler_count_the_other_characters_only(names):
    actions = [("tobin", "wait"), ("ada", "observe"), ("silas", "say"), ("maren", "wait")]
    assert agency.idle(actions, "maren") == {"decisions": 3, "idle_rate": 0.6667}
    assert agency.idle([("tobin", "move")], "maren")["idle_rate"] == 0.0
    entries = [line(0, "tobin", "Good day to you, Maren!", rendered=True),
               line(0, "ada", "The supply boat is three days late, Maren."),
               line(0, "maren", "Hello there.")]
    out = agency.filler(entries, names, "maren")
    assert out["lines"] == 2 and out["filler_rate"] == 0.5
    assert out["template_share"] == 0.5 and out["filler_template_share"] == 1.0
    assert agency.filler(entries[1:2], names, "maren")["filler_rate"] == 0.0


def test_answered_as_asked_wants_the_one_asked_the_same_round_on_the_subject(names):
    question = line(1, "maren", "Tobin, where did you find the letter?", to="tobin")
    same = [question, line(1, "tobin", "On the shore, Maren: the letter was in his coat.", to="maren")]
    out = agency.answered_as_asked(same, names, "maren")
    assert out["answered_same_round_rate"] == 1.0 and out["answered_next_round_rate"] == 0.0
    late = [question, line(2, "tobin", "I found the letter on the shore.", to="maren")]
    out = agency.answered_as_asked(late, names, "maren")
    assert out["answered_same_round_rate"] == 0.0 and out["answered_next_round_rate"] == 1.0
    # before the question (it crossed it), off the subject, or from someone else: no answer
    crossed = [line(1, "tobin", "The letter is safe.", to="maren"), question,
               line(1, "tobin", "Good day to you, Maren.", to="maren"),
               line(1, "ada", "The letter was on the shore.", to="maren")]
    out = agency.answered_as_asked(crossed, names, "maren")
    assert out["answered_same_round_rate"] == 0.0 and out["replied_same_round_rate"] == 1.0
    honest = [question, line(1, "tobin", "I cannot say, Maren.", to="maren")]
    assert agency.answered_as_asked(honest, names, "maren")["answered_same_round_rate"] == 1.0


def test_a_third_person_the_question_names_is_its_subject_in_the_reply_too(names):
    question = line(1, "maren", "Tobin, where is Ada now?", to="tobin")
    where = [question, line(1, "tobin", "Maren, last I knew, Ada was in the chapel.", to="maren")]
    assert agency.answered_as_asked(where, names, "maren")["answered_same_round_rate"] == 1.0
    # the two speaking are no subject: a reply that only names the asker back does not answer
    other = [question, line(1, "tobin", "Maren, Maren, good day.", to="maren")]
    assert agency.answered_as_asked(other, names, "maren")["answered_same_round_rate"] == 0.0
    # named by an alias in the question, by name in the reply: the same person, answered
    keeper = line(1, "ada", "Where is the keeper now?", to="tobin")
    named = [keeper, line(1, "tobin", "Ada, last I knew, Maren was in the chapel.", to="ada")]
    assert agency.answered_as_asked(named, names, "ada")["answered_same_round_rate"] == 1.0
    elsewhere = [keeper, line(1, "tobin", "Ada, Silas was in the tavern.", to="ada")]
    assert agency.answered_as_asked(elsewhere, names, "ada")["answered_same_round_rate"] == 0.0


def test_without_a_key_the_players_addressed_statements_are_the_facts(names):
    entries = [line(0, "maren", "Tobin, the bell cracked in the frost.", to="tobin"),
               line(1, "maren", "Tobin, did the bell crack?", to="tobin"),
               line(1, "maren", "The frost is hard.")]
    (fact,) = agency.derived_facts(entries, names, "maren")
    assert fact.to == "tobin" and fact.round == 0 and fact.words == [["bell"], ["cracked"], ["frost"]]


def test_the_key_file_is_strict_and_names_the_field(tmp_path):
    key = load_key(DATA / "agency" / "harbour.toml")
    assert key.world == "harbour" and key.told and key.secret and key.question
    bad = tmp_path / "k.toml"
    bad.write_text('world = "tiny"\n[[told]]\nround = "one"\nto = "ada"\nfact = "x"\nwords = [["x"]]\n')
    with pytest.raises(UserError, match=r"k.toml: .*told\[0\]\.round"):
        load_key(bad)
    bad.write_text('world = "tiny"\ncolour = "red"\n')
    with pytest.raises(UserError, match="colour"):
        load_key(bad)
    bad.write_text('world = "tiny"\n[[secret]]\nkeeper = "a"\nasker = "b"\nquestion = "?"\nconfession = [[]]\n')
    with pytest.raises(UserError, match=r"secret\[0\]\.confession"):
        load_key(bad)


AGENCY_KEY = """world = "tiny"
player = "maren"
script = "tells.txt"
rounds = 2

[[told]]
round = 0
to = "tobin"
fact = "The harbour bell cracked in the frost."
words = [["bell"], ["crack"]]

[[secret]]
keeper = "silas"
asker = "maren"
question = "Did you tell Elias to leave the lamp dark?"
confession = [["dark", "darkened"], ["lamp"]]
"""


@pytest.mark.real_model
@pytest.mark.real_embedder
def test_bench_agency_runs_the_bundled_model_and_prints_every_figure(tmp_path, capsys):
    from storyworld.cli import main

    (tmp_path / "tells.txt").write_text("@tobin The harbour bell cracked in the frost.\n/wait\n")
    (tmp_path / "key.toml").write_text(AGENCY_KEY)
    assert main(["bench", "agency", str(TINY), "--key", str(tmp_path / "key.toml"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["told_facts"] == 1 and result["secrets"] == 1 and result["rounds"] == 2
    for figure in ("carried_rate", "store_told_by_player_rate", "spread_characters", "secret_kept_rate",
                   "idle_rate", "filler_rate", "template_share", "answered_same_round_rate"):
        assert figure in result
    assert 0.0 <= result["idle_rate"] <= 1.0 and result["decisions"] > 0
    assert len(result["told_rows"][0]["answers"]) == 2
    assert main(["bench", "agency", str(TINY), "--key", str(DATA / "agency" / "harbour.toml")]) == 1


@pytest.mark.parametrize(("text", "source"), [
    ("Maren told me the bell cracked.", True), ("I heard it from Maren.", True), ("It was Maren.", True),
    ("Maren.", True), ("Maren did, this morning.", True),
    ("I told Maren the bell cracked.", False), ("I saw it myself: Maren was in the harbour.", False),
    ("Tobin told me the bell cracked.", False), ("I greeted Maren at the harbour.", False),
])
def test_the_player_counts_as_source_only_when_named_as_the_teller(names, text, source):
    assert agency.names_as_source(text, names, "maren") is source


def test_who_held_a_fact_before_it_was_told_does_not_spread_it(names):
    store = Store(record(1, "The harbour bell cracked.", ada=Holding(via="witnessed", since_round=-3),
                         silas=Holding(via="told", source="ada", since_round=2)))
    entries = [line(1, "maren", "The harbour bell cracked.", to="tobin", witnesses=("maren", "tobin")),
               line(2, "ada", "Silas, the harbour bell cracked.", to="silas", witnesses=("ada", "silas"))]
    out = agency.spread([BELL], entries, store, names, "maren", frozenset(names.people))
    assert out["spread_characters"] == out["spread_lines"] == 0  # Silas heard it from Ada, who saw it herself


def test_bench_agency_refuses_bad_input_in_one_line_before_loading_a_model(tmp_path, capsys):
    from storyworld.cli import main

    key = tmp_path / "key.toml"
    key.write_text(AGENCY_KEY.replace('keeper = "silas"', 'keeper = "nobody"'))
    (tmp_path / "tells.txt").write_text("/wait\n")
    assert main(["bench", "agency", str(TINY), "--key", str(key)]) == 1
    assert "secret[0].keeper: no character 'nobody' in tiny" in capsys.readouterr().err
    key.write_text(AGENCY_KEY)
    assert main(["bench", "agency", str(TINY), "--key", str(key), "--as", "tobin"]) == 1
    assert "is for the player 'maren'" in capsys.readouterr().err
    assert main(["bench", "agency", str(TINY), "--script", str(tmp_path / "tells.txt")]) == 1
    assert "--as AGENT is needed" in capsys.readouterr().err
    assert main(["bench", "agency", str(TINY), "--as", "maren"]) == 1
    assert "--script FILE is needed" in capsys.readouterr().err
    assert main(["bench", "agency", str(TINY), "--as", "maren", "--script", str(tmp_path / "none.txt")]) == 1
    assert "no such script file" in capsys.readouterr().err


@pytest.mark.parametrize(("fact", "subject"), [
    ("Silas ordered Elias to leave the lamp dark.", "Silas"),  # a person of the fact (not the player or hearer)
    ("The supply boat came in at the harbour.", "The harbour"),  # else a place
    ("I found a keg with a Dutch mark in the wreck of the Osprey.", "the Osprey"),  # else a named thing
    ("the bell cracked in the frost.", "the cracked"),  # else the longest word of its groups
])
def test_what_do_you_know_about_names_the_facts_subject(names, fact, subject):
    told = ToldFact(round=0, to="tobin", fact=fact, words=[["bell"], ["cracked"]])
    assert agency.subject_of(told, names, "maren", "tobin") == subject


def test_a_fact_the_player_never_said_to_its_hearer_is_set_apart(names):
    # the player waited (the hearer was elsewhere): the bell was never told to Tobin, so it cannot be carried
    asked_only = [line(1, "maren", "Tobin, did the bell crack?", to="tobin"), line(1, "maren", "Ada, the bell!", to="ada")]
    said, unsaid = agency.said_facts([BELL], asked_only, names, "maren")
    assert said == [] and unsaid == [BELL]
    told = [*asked_only, line(2, "maren", "Tobin, the frost split it.", to="tobin")]
    said, unsaid = agency.said_facts([BELL], told, names, "maren")
    assert said == [BELL] and unsaid == []
    # a telling that ends in a question is a telling still
    asking_after = [line(2, "maren", "Tobin, the bell cracked in the frost. Will you ring it?", to="tobin")]
    assert agency.said_facts([BELL], asking_after, names, "maren") == ([BELL], [])
    too_early = [line(0, "maren", "Tobin, the frost split it.", to="tobin")]
    assert agency.said_facts([BELL], too_early, names, "maren") == ([], [BELL])


def test_the_name_a_question_calls_someone_by_is_never_a_title_alone():
    charter = Names(load_world(DATA.parent.parent / "docs/results/agency/heldout16/charter.toml"))
    # "Brother" starts three names, "Master" is a form of address, "Prior" the world writes as a word ("the prior")
    assert charter.first_name("osric") == "Brother Osric" and charter.first_name("dunning") == "Master Ralf Dunning"
    assert charter.first_name("geoffrey") == "Prior Geoffrey" and charter.first_name("jory") == "Jory"
