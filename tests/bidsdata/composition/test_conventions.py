"""HED's conventions come from hedtools and the schema; the English words that point to them are general.

Examples are made up: no study here has a heat pulse, a chirp or a squeezed ball.
"""

from hed.tools.analysis.event_checker import EventChecker

from agents import conventions
from agents.offline import events as offline_events
from bidsdata.composition import cues, tags
from bidsdata.markers import number_tags
from bidsdata.value_templates import propose_value_template


def test_event_types_and_roles_are_hedtools_own_for_the_composer_and_the_offline_annotator():
    assert {t.lower() for t in EventChecker.EVENT_TAGS} == tags.EVENT_TYPES
    assert {t.lower() for t in EventChecker.STIMULUS_ROLES} == tags.STIMULUS_ROLES
    assert offline_events.TASK_ROLES == EventChecker.TASK_ROLES
    assert offline_events.STIMULUS_ROLES == EventChecker.STIMULUS_ROLES  # Planned, Timed... too
    assert EventChecker.EVENT_TAGS - {"Event"} == offline_events.EVENT_TYPES


def test_every_sense_of_the_schema_has_words_and_its_own_words_point_to_it():
    senses = conventions.sense_words()
    assert set(senses) == {"Visual-presentation", "Auditory-presentation", "Tactile-presentation",
                           "Somatic-presentation", "Olfactory-presentation", "Gustatory-presentation",
                           "Vestibular-presentation"}
    assert cues.modality(cues.words("heat_pulse", "A brief painful heat on the forearm.")) == "Somatic-presentation"
    assert cues.modality(cues.words("odor_puff")) == "Olfactory-presentation"
    # The schema's names of sounds, inflected: "chirping" is a Chirping, so it is heard.
    assert cues.modality(cues.words("chirps_far", "Birds chirping far away.")) == "Auditory-presentation"
    assert cues.modality(cues.words("show_star")) == "Visual-presentation"


def test_a_response_is_told_by_its_base_form_and_its_action_is_the_schemas():
    squeezed = cues.words("squeezed_ball", "The participant squeezed the ball.")
    assert cues.is_response(squeezed) and cues.action(squeezed) == "Make-fist"
    released = cues.words("key_up", "The key was released.")
    assert cues.action(released) == "Release"  # the action named, not the device's usual press
    assert cues.action(cues.words("answer_given")) == "Press"
    assert not cues.is_response(cues.words("tone_high", "A high tone is played."))


def test_no_word_taken_from_a_particular_study_decides_a_role():
    # Column-role and event words must be general English; these came from particular datasets once.
    fitted = {"balloon", "pump", "pumps", "cash", "explode", "explodes", "accept", "reject", "bet", "raise",
              "raised", "gid", "lag", "vibro", "focus", "attention", "status", "stage"}
    lists = [conventions.CONDITION, conventions.CONTROL, conventions.RESPONSE, conventions.CUE, conventions.FEEDBACK,
             conventions.IDENTIFIER, conventions.INTERVAL, set(conventions.ABBREVIATIONS),
             set(conventions.action_words()), *conventions.sense_words().values()]
    assert all(not fitted & set(words) for words in lists)


def test_units_are_the_schemas_with_common_abbreviations_spelled_as_the_schema_does():
    assert conventions.unit("msecs") == ("ms", "timeUnits")
    assert conventions.unit("kilohertz") == ("kilohertz", "frequencyUnits")
    assert conventions.unit("us") is None and conventions.unit("as") is None  # English words, not units here
    assert "Time-interval/40 ms" in number_tags("wait 40 msecs", None)
    assert propose_value_template("gap", units="msec", sample_values=["250", "500"]) == "Time-interval/# ms"


def test_an_identifier_or_an_item_count_is_read_from_the_description_not_from_a_name_list():
    assert propose_value_template("tid", description="ID of the target picture.",
                                  sample_values=["12", "40"]) == "(Parameter-label/tid, ID/#)"
    back = "How many pictures before this one the same picture was shown."
    assert propose_value_template("repeat_gap", description=back, sample_values=["1", "3"]) == "Item-interval/#"
    # Whole numbers without that description are no item count.
    assert propose_value_template("wait", sample_values=["4", "6"]) != "Item-interval/#"
