"""Retellings only a pair shows, and rewordings of times, gifts and failures: each rule on its own table, with the
near misses beside them that must stay apart (a time of the other half of the day, two people compared the same
way round with opposite words, two deeds in the other order, a deed denied and the same deed done)."""

from __future__ import annotations

import pytest

from memory import canonical, guard, retelling, wordnet


def _one_wording(a: str, b: str) -> bool:
    """Whether the pair comes out in one wording and the guard lets it merge."""
    said_a, said_b = retelling.pair(a, b)
    return said_a.rstrip(".") == said_b.rstrip(".") and guard.check(a, b).ok


@pytest.mark.parametrize("text, form", [
    ("The snowplough reached the summit at a quarter past four.", "The snowplough reached the summit at 4:15."),
    ("The snowplough reached the summit at 4.15.", "The snowplough reached the summit at 4:15."),
    ("The bell rang at a quarter to eight.", "The bell rang at 7:45."),
    ("The bell rang at twenty minutes past nine.", "The bell rang at 9:20."),
    ("The harvest started at 6 a.m.", "The harvest started at 6:00 morning."),
    ("The harvest started at six in the morning.", "The harvest started at 6:00 morning."),
    ("The edition went to press at twelve o'clock at night.", "The edition went to press at midnight."),
    ("She paid 3 shillings at the gate.", "She paid 36 pence at the gate."),  # a count is no time
    ("He left after 3 hours.", "He left after 180 minutes."),  # a span, not a time (said in minutes: amounts)
])
def test_a_time_of_day_has_one_wording(text, form):
    assert canonical.canonical(text) == form


def test_times_of_the_other_half_of_the_day_stay_apart():
    assert not guard.check("The harvest started at 6 a.m.", "The harvest started at 6 p.m.").ok
    assert not guard.check("Fergus fed the lion at noon.", "Fergus fed the lion at twelve o'clock at night.").ok


@pytest.mark.parametrize("text, form", [
    ("Greta sold Father Dray a return ticket.", "Greta sold a return ticket to Father Dray."),
    ("She gave him the key.", "She gave the key to him."),
    ("She gave the old woman a loaf.", "She gave a loaf to the old woman."),  # a kind of person, then the thing
    ("She gave the boy to the nuns.", "She gave the boy to the nuns."),
    ("She gave the dog a bone.", "She gave the dog a bone."),  # no person: which is given is not clear
    ("Tobias borrowed Mirela Costa's lantern from her.", "Mirela Costa lent her lantern to Tobias."),
    ("Ann bought the cart from him.", "He sold the cart to Ann."),
    ("Bram learned to juggle from Lucia.", "Lucia taught Bram to juggle."),
    ("Felix failed to meet the deadline.", "Felix did not meet the deadline."),
    ("Ivo arrived at the station after Nadia.", "Nadia arrived at the station before Ivo."),
    ("Ivo arrived after Sunday.", "Ivo arrived after Sunday."),  # a day is no one who came first
    # amounts said one way: shares of a counted whole, spans in one unit, dozens
    ("Damp ruined two-thirds of the 18 plates.", "Damp ruined 12 of the 18 plates."),
    ("Half of the 40 hives died.", "20 of the 40 hives died."),
    ("Three quarters of the 20 sacks were wet.", "15 of the 20 sacks were wet."),
    ("She waited for half an hour.", "She waited for 30 minutes."),
    ("She waited for an hour and a half.", "She waited for 90 minutes."),
    ("He was away for a fortnight.", "He was away for 20160 minutes."),
    ("He was away for two weeks.", "He was away for 20160 minutes."),
    ("He was away for a month.", "He was away for 1 month."),  # so that "7 days" differs by its number
    ("He came once a week.", "He came once a week."),  # a rate
    ("She bought a dozen eggs.", "She bought 12 eggs."),
    ("Half the village came.", "Half the village came."),  # no count to take the share of
    # durations, sums of old money and clock times told in parts, in one wording
    ("The crossing took two and a half hours.", "The crossing took 150 minutes."),
    ("The crossing took two hours and ten minutes.", "The crossing took 130 minutes."),
    ("He was granted a fortnight's leave.", "He was granted 20160 minutes' leave."),
    ("The refit lasted a year and a half.", "The refit lasted 18 months."),
    ("She was 12 years old.", "She was 12 years old."),
    ("The ferry cost one and sixpence.", "The ferry cost 18 pence."),
    ("The ferry cost half a crown.", "The ferry cost 30 pence."),
    ("The ferry cost a florin and sixpence.", "The ferry cost 30 pence."),
    ("The ferry cost 3 shillings.", "The ferry cost 36 pence."),
    ("The ferry cost a florin.", "The ferry cost 24 pence."),
    ("The ferry cost 3 pounds.", "The ferry cost 3 pounds."),  # pounds alone stay (a weight, or any realm's)
    ("The prince won 20 crowns.", "The prince won 20 crowns."),  # another realm's coin may be meant
    ("The mill sold 4,500 sacks.", "The mill sold 4500 sacks."),
    ("The ferry left at a quarter to midnight.", "The ferry left at 11:45 evening."),
    ("The ferry left at ten past midnight.", "The ferry left at 12:10 morning."),
    ("Ann is still owed 30 pence by the miller.", "The miller still owes 30 pence to Ann."),
    # a reporting frame whose "that" comes after where it was said, or after a hearer with words of their own
    ("Ann said at the inquest on Monday that the ferry had sunk.", "The ferry had sunk."),
    ("Ann told the boatmen waiting on the quay that the ferry had sunk.", "The ferry had sunk."),
    ("Ann told the man that owned the ferry to leave.", "Ann told the man that owned the ferry to leave."),
    ("On the night of the gale 40 boats were lost.", "40 boats were lost on the night of the gale."),
    # a noun of doing said as its deed by its doer (WordNet's derivation pointers)
    ("The decision to close the quarry was Edwin Tallack's.", "Edwin Tallack decided to close the quarry."),
    ("The surveyor's inspection of the bridge took place on Monday.", "The surveyor inspected the bridge on Monday."),
    ("The sale of the mill received the bailiff's approval.", "The bailiff approved the sale of the mill."),
    ("The repair of the sluice was carried out by Ann Voss.", "Ann Voss repaired the sluice."),
    ("The house of the miller was old.", "The house of the miller was old."),  # no deed
])
def test_gifts_lessons_failures_and_order_have_one_wording(text, form):
    assert canonical.canonical(text) == form


@pytest.mark.parametrize("a, b, same", [
    ("Jonah is younger than Rosa.", "Rosa is older than Jonah.", True),
    ("Ann was more careful than Bob.", "Bob was less careful than Ann.", True),
    ("Rosa is younger than Jonah.", "Rosa is older than Jonah.", False),
    ("Dr Voss left the mill after she bandaged Tobias's arm.", "Dr Voss bandaged Tobias's arm before she left the mill.", True),
    ("The horses went out before Bram painted his face.", "Bram painted his face after the horses went out.", True),
    ("Dr Voss left the mill before she bandaged Tobias's arm.", "Dr Voss bandaged Tobias's arm before she left the mill.", False),
    ("Dr Arden stayed in the cellar throughout the storm.", "Dr Arden never left the cellar throughout the storm.", True),
    ("Lena remained in carriage 3 all night.", "Lena did not leave carriage 3 all night.", True),
    ("Aurelie would not allow Dr Salt to leave the hospice.", "Aurelie forbade Dr Salt to leave the hospice.", True),
    ("Ann left the mill.", "Ann did not leave the mill.", False),
    ("Mirela said that the bridge had washed away.", "Mirela told Sergeant Pike that the bridge had washed away.", True),
    # who heard it is the holding's: one fact told to two people
    ("Mirela told Sergeant Pike that the bridge had washed away.", "Mirela told Tobias that the bridge had washed away.", True),
    # a tie told from the other end: each word says the sex of its own end only; age words turn round with it
    ("Petra Lind is Judge Ashcombe's niece.", "Judge Ashcombe is Petra Lind's aunt.", True),
    ("Petra Lind is Judge Ashcombe's niece.", "Judge Ashcombe is Petra Lind's uncle.", True),
    ("Mara Dale is the younger sister of Hollis Grange.", "Hollis Grange is Mara Dale's older brother.", True),
    ("Ann Voss is the niece of Dr Salt.", "Ann Voss is Dr Salt's niece.", True),
    ("Petra Lind is Judge Ashcombe's niece.", "Judge Ashcombe is Petra Lind's niece.", False),
    ("Mara Dale is the younger sister of Hollis Grange.", "Hollis Grange is Mara Dale's younger brother.", False),
    ("Ann Voss is the niece of Dr Salt.", "Ann Voss is Dr Salt's daughter.", False),
    ("Ann Voss is Dr Salt's tenant.", "Dr Salt is Ann Voss's landlady.", True),
    # a post and the name whose title it is ("the chief archivist" / "Chief Archivist Hollis Grange")
    ("The chief archivist shut the reading room at noon.", "Chief Archivist Hollis Grange shut the reading room at noon.", True),
    ("Aurelie forbade the doctor to leave the hospice.", "Aurelie forbade Dr Salt to leave the hospice.", True),
    ("The warden's dog bit Ann.", "Warden Edith Marrow bit Ann.", False),
    ("The archivist shut the reading room.", "Chief Archivist Hollis Grange shut the reading room.", False),
    # one person said by their post against one name: a statement alone cannot say who holds the post
    ("The harbourmaster raised the storm cone at dusk.", "Edwin Tallack raised the storm cone at dusk.", True),
    ("Edwin Tallack's clerk logged the schooner.", "The harbourmaster's clerk logged the schooner.", True),
    ("The bailiff escorted Ann Voss out.", "Hugo Marsh escorted Ann Voss out.", True),
    # two posts against two names could pair either way; a group is no one person; a verb is no post
    ("The pilot met the harbourmaster before Ann Voss arrived.", "Edwin Tallack met Joss Penrose before Ann Voss arrived.", False),
    ("The pilots raised the storm cone.", "Edwin Tallack raised the storm cone.", False),
    # quoted speech in the first person is its speaker's deed
    ("'I rang the bell at noon,' said Joss Penrose.", "Joss Penrose rang the bell at noon.", True),
    ("Joss Penrose told the coroner, 'I rang the bell at noon.'", "Joss Penrose rang the bell at noon.", True),
    ("'I rang the bell myself,' Joss Penrose told the inquest.", "Joss Penrose rang the bell.", True),
    ("'I rang the bell at noon,' said Joss Penrose.", "Ann Voss rang the bell at noon.", False),
    # one relation told from its other end: a deed done together, or a place by the opposite word
    ("Ann Voss dined with Joss Penrose at the inn.", "Joss Penrose dined with Ann Voss at the inn.", True),
    ("The forge stands north of the mill.", "The mill stands north of the forge.", False),
    ("The forge lies below the chapel.", "The chapel lies above the forge.", True),
    ("Ann Voss paid Joss Penrose at the inn.", "Joss Penrose paid Ann Voss at the inn.", False),
    ("Ann Voss is the mother-in-law of Joss Penrose.", "Joss Penrose is Ann Voss's son-in-law.", True),
    # two deeds in order from the other end, the later one's clause with a person word and a pluperfect
    ("The ferry sailed after the pilot had taken his place.", "The pilot took his place before the ferry sailed.", True),
    ("The ferry sailed after the pilot had taken his place.", "The pilot took his place after the ferry sailed.", False),
])
def test_what_only_the_pair_shows(a, b, same):
    assert _one_wording(a, b) is same


@pytest.mark.parametrize("a, b", [
    # a doer no one names is no swap; a count heads its phrase; a person named or said by what they are
    ("The keel was laid on 3 March 1887.", "They laid the keel on 3 March 1887."),
    ("Warden Marrow said that three hives had died over the winter.", "Three of the hives died during the winter."),
    ("Ambrose found a purse under Tobiah's bunk.", "A purse was found by the ringmaster beneath the clown's bunk."),
    ("There are 24 beds on Lister Ward.", "Lister Ward has twenty-four beds."),
])
def test_the_guard_lets_retellings_pass(a, b):
    assert guard.check(a, b).ok and guard.check(b, a).ok, (guard.check(a, b), guard.check(b, a))


@pytest.mark.parametrize("text, form", [
    ("It was at 2:15 that Senna caught sight of the comet.", "Senna spotted the comet at 2:15."),
    ("It was Senna who spotted the comet.", "Senna spotted the comet."),
    ("It is true that Ann left.", "It is true that Ann left."),  # no cleft: nothing stressed
    ("Senna borrowed Dr. Mirela Vance's atlas from her.", "Dr Mirela Vance lent her atlas to Senna."),
    # relations told from their other end, and wordings of one fact that name no one new
    ("Benedikt Sorrel works for Lucius Penhallow.", "Lucius Penhallow employs Benedikt Sorrel."),
    ("Kit worked for a week at the mill.", "Kit worked for 10080 minutes at the mill."),  # a span, no employer
    ("Agnes Pole took over from Clem Hartigan at eight.", "Clem Hartigan handed over to Agnes Pole at 8:00."),
    ("The yard bought forty knees off Farah Doyle.", "Farah Doyle sold 40 knees to the yard."),
    ("Kit learned from Perdita how to fall.", "Perdita taught Kit how to fall."),
    ("Tobias let the hall to the Players.", "Tobias rented the hall to the Players."),
    ("Hamlet let Horatio go.", "Hamlet let Horatio go."),
    ("The Miller's Widow is by Horace Quaile.", "Horace Quaile wrote The Miller's Widow."),
    ("The one who missed the train was Kit Morrow.", "Kit Morrow missed the train."),
    ("Because the roof leaked, the company moved.", "The company moved because the roof leaked."),
    ("The barge went aground, and that's why the timber was late.", "The timber was late because the barge ran aground."),
    ("If the arch is unsound, the county will shut the bridge.", "The county will shut the bridge if the arch is unsound."),
    ("Mrs Colley spent three weeks on the ward.", "Mrs Colley stayed on the ward for 30240 minutes."),
    ("The bakery has belonged to Odile for two decades.", "Odile has owned the bakery for 20 years."),
    ("The bakery had not yet opened when Agatha delivered the flour.", "Agatha delivered the flour before the bakery opened."),
    ("Dario went out of the fort and came back at night.", "Dario left the fort and returned at night."),
    ("Mrs Colley wouldn't take the beef tea.", "Mrs Colley refused the beef tea."),
    ("The timber got in two days late.", "The timber arrived 2880 minutes late."),
    ("He got in the car.", "He got in the car."),
    ("The doctor called at the inn twice.", "The doctor visited the inn 2 times."),
    ("She called at 7:00.", "She called at 7:00."),
    ("Brand was taken into custody by Constable Flint.", "Constable Flint arrested Brand."),
    ("Maud was told by Oswin Tully that the well was dry.", "The well was dry."),
    ("Agnes gave the draught at 02:00.", "Agnes gave the draught at 2:00 morning."),
    ("The ship was launched at 16:15.", "The ship was launched at 4:15 evening."),
    ("Lydia spoke to him once the operation was over.", "Lydia spoke to him after the operation was over."),
    # a telling between others passes on what it tells, from either side
    ("Mayor Denholm heard from Rufus Kell that the bell had cracked.", "The bell had cracked."),
    # the deed done to a thing where it was; what a place holds as what is in it
    ("The missing ram turned up in Mara Quill's barn, where Constable Flint found it.",
     "Constable Flint found the missing ram in Mara Quill's barn."),
    ("The boys swam in the river, where the ferryman saw them.", "The ferryman saw the boys in the river."),
    ("The lower orchard held 40 hives.", "There were 40 hives in the lower orchard."),
    ("The crate held a pistol.", "There was a pistol in the crate."),
    ("The miller had 40 hives.", "The miller had 40 hives."),  # a person's, not in him
    ("The recipe has never left its box.", "The recipe has never left its box."),  # a perfect
])
def test_stress_titles_and_tellings_read_through(text, form):
    assert canonical.canonical(text) == form


@pytest.mark.parametrize("a, b", [
    ("Nobody voted for the new honey price.", "Nobody voted against the new honey price."),
    ("Marguerite rebound 48 volumes this year.", "Marguerite rebound 48 volumes last year."),
    ("The lamp oil was all gone.", "The lamp oil was almost gone."),
    ("Marguerite charged the archive 3 crowns in all for the rebinding.", "Marguerite charged the archive 3 crowns for each rebinding."),
    ("Owen carries the honey to Carrow every other Friday.", "Owen carries the honey to Carrow every Friday."),
])
def test_the_other_side_another_year_and_almost_stay_apart(a, b):
    assert not guard.check(a, b).ok
    assert guard.check("The lamp oil was nearly used up.", "The lamp oil was almost used up.").ok


@pytest.mark.parametrize("a, b, opposed", [
    ("stay", "leave", True), ("remain", "leave", True), ("allow", "forbid", True), ("attend", "miss", True),
    ("leave", "leave", False), ("stay", "remain", False), ("take", "steal", False), ("tell", "say", False),
    ("sell", "give", False),
])
def test_wordnet_says_which_verbs_are_opposites(a, b, opposed):
    assert wordnet.opposed(a, b, "verb", 5) is opposed


@pytest.mark.parametrize("verb, double", [("give", True), ("sell", True), ("show", True), ("steal", False), ("put", False)])
def test_wordnet_says_which_verbs_take_two_objects(verb, double):
    assert wordnet.takes_frame(verb, wordnet.DOUBLE_OBJECT, 3) is double


@pytest.mark.parametrize("text, subject", [
    ("3 hives had died over the winter.", {"hives"}),
    ("21 days ago, well past midnight, Yusuf Demirel lay awake over the gate.", {"yusuf", "demirel"}),  # a span is no doer
    ("There are 24 beds on Lister Ward.", {"lister", "ward"}),
])
def test_a_count_heads_its_phrase_but_a_span_of_time_takes_no_part(text, subject):
    assert guard.features(text).subject == subject


@pytest.mark.parametrize("a, b, same", [
    # spans of days and hours in one unit; old money in its signs, and pounds or a crown where the other says pence
    ("The fair lasted three days.", "The fair lasted seventy-two hours.", True),
    ("The fair lasted three days.", "The fair lasted sixty hours.", False),
    ("The smith charged the carter 3s. 4d. for the shoes.", "The smith charged the carter forty pence for the shoes.", True),
    ("The reeve paid each reaper a crown.", "The reeve paid each reaper five shillings.", True),
    ("The reeve paid each reaper a crown.", "The reeve paid each reaper four shillings.", False),
    ("Bram sold the heifer for two and a half pounds.", "Bram sold the heifer for two pounds ten shillings.", True),
    # a relation that holds both ways, told from the other end; a place that does not stays apart
    ("The forge stands beside the chapel.", "The chapel stands beside the forge.", True),
    ("Nell Pry met Bram Tull at the ford.", "Bram Tull met Nell Pry at the ford.", True),
    ("The forge stands behind the chapel.", "The chapel stands behind the forge.", False),
    # one outdoing another from the outdone side
    ("Nell Pry lost to Bram Tull at draughts.", "Bram Tull beat Nell Pry at draughts.", True),
    ("Nell Pry lost to Bram Tull at draughts.", "Nell Pry beat Bram Tull at draughts.", False),
    ("The sexton ranks below the verger.", "The verger outranks the sexton.", True),
    ("Ivo Marsh preceded Bram Tull as reeve of Kettleby.", "Bram Tull succeeded Ivo Marsh as reeve of Kettleby.", True),
    ("Ivo Marsh preceded Bram Tull as reeve of Kettleby.", "Ivo Marsh succeeded Bram Tull as reeve of Kettleby.", False),
    ("Nell Pry and Bram Tull were married at Candlemas.", "Bram Tull married Nell Pry at Candlemas.", True),
    ("Nell Pry and Bram Tull were married at Candlemas.", "Bram Tull married Nell Pry at Lammas.", False),
    # being somewhere or not said by an adjective
    ("Ivo Marsh was absent from the tithe meeting.", "Ivo Marsh did not attend the tithe meeting.", True),
    ("Ivo Marsh was absent from the tithe meeting.", "Ivo Marsh attended the tithe meeting.", False),
    ("Nell Pry was away from the mill when the cart came.", "Nell Pry was not at the mill when the cart came.", True),
    # what was done to one's own, where it went told before who did it
    ("Nell Pry had her cart mended at the forge by Bram Tull.", "Bram Tull mended Nell Pry's cart at the forge.", True),
    ("Nell Pry had her cart mended at the forge by Bram Tull.", "Bram Tull mended Nell Pry's cart at the mill.", False),
    # a bare hour after "at" ends its phrase before "by" as before a full stop
    ("Ivo Marsh locked the tithe barn at eight.", "The tithe barn was locked at eight by Ivo Marsh.", True),
    ("Ivo Marsh locked the tithe barn at eight.", "The tithe barn was locked at nine by Ivo Marsh.", False),
    # won against / lost to; belongs to / owns in its tense; "stayed on the farm" is staying; turned down / refused
    ("Nell Pry won the ploughing match against Bram Tull.", "Bram Tull lost the ploughing match to Nell Pry.", True),
    ("Nell Pry won the ploughing match against Bram Tull.", "Nell Pry lost the ploughing match to Bram Tull.", False),
    ("The black ram belongs to the shepherd.", "The shepherd owns the black ram.", True),
    ("Ivo Marsh never left the farm that winter.", "Ivo Marsh stayed on the farm that winter.", True),
    # a tie said first and its holder after; a deed done together by two named; an attempt in other words
    ("Nell Pry's cousin is Bram Tull.", "Bram Tull is a cousin of Nell Pry.", True),
    ("Ivo Marsh and Bram Tull quarrelled at the fair.", "Bram Tull quarrelled with Ivo Marsh at the fair.", True),
    ("Ivo Marsh and Bram Tull quarrelled at the fair.", "Bram Tull quarrelled with Nell Pry at the fair.", False),
    ("Ivo Marsh attempted to stop the runaway cart.", "Ivo Marsh stopped the runaway cart.", False),
    # a long subject's passive made active
    ("The iron gate of the lower sheep fold was shut by Bram Tull.", "Bram Tull shut the iron gate of the lower sheep fold.", True),
    # a light verb with its noun of doing, and a phrasal verb WordNet lists
    ("The warden made an examination of the locks.", "The warden examined the locks.", True),
    ("Bram Tull offered an apology to Nell Pry.", "Bram Tull apologised to Nell Pry.", True),
    # a present verb and a denied one that WordNet makes opposites; the bare opposite stays apart
    ("The abbess forbids singing in the cloister.", "The abbess does not allow singing in the cloister.", True),
    # quoted words told on: "will" is "would", the hearer is "you"
    ("'I will not sign the lease,' said Ivo Marsh.", "Ivo Marsh said that he would not sign the lease.", True),
    ("'I mended your cart myself,' the wheelwright told Nell Pry.", "The wheelwright mended Nell Pry's cart.", True),
])
def test_spans_signs_reciprocals_and_light_verbs_have_one_wording(a, b, same):
    assert _one_wording(a, b) is same, retelling.pair(a, b)


@pytest.mark.parametrize("a, b", [
    ("The vicar put off the wedding until June.", "The vicar postponed the wedding until June."),
    ("Bram wrote to the chaplain about the bell.", "Bram wrote to Mr Absalom Reed about the bell."),
    ("The reeve turned down Bram Tull's request.", "The reeve refused Bram Tull's request."),
    ("Ivo Marsh tried to stop the runaway cart.", "Ivo Marsh attempted to stop the runaway cart."),
])
def test_phrasal_verbs_and_titled_names_after_a_preposition_pass(a, b):
    from memory import equivalence
    from memory.settings import MemorySettings

    assert guard.check(a, b).ok
    assert equivalence.structural_rule(a, b, 0.8, MemorySettings()) is not None


@pytest.mark.parametrize("a, b, reason", [
    ("The barge went from the lock to the wharf.", "The barge went from the wharf to the lock.", "role"),
    ("The choir sang the psalm first and the carol second.", "The choir sang the carol first and the psalm second.", "role"),
    ("The abbess forbids singing in the cloister.", "The abbess allows singing in the cloister.", "any"),
    ("The reeve turned down Bram Tull's request.", "The reeve accepted Bram Tull's request.", "any"),
    ("Ivo Marsh said that he signed the lease.", "Ivo Marsh signed the lease.", None),
])
def test_traded_parts_and_opposite_verbs_stay_apart(a, b, reason):
    verdict = guard.check(a, b)
    if reason is None:  # his word against the deed: one only when he is quoted
        assert retelling.pair(a, b)[0] != retelling.pair(a, b)[1]
    else:
        assert not verdict.ok and reason in ("any", verdict.reason), verdict
