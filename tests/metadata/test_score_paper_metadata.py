"""The metadata scorer compares a first author as cataloguers file it: where JATS puts a particle
(given names or surname), and letters that carry no accent to strip, are no mistake of ours."""

from __future__ import annotations

from conftest import project_script

score = project_script("scripts/score_paper_metadata.py")
PARTICLES = frozenset({"dos", "al", "van", "der"})


def _gold(surname: str, given: str | None = None):
    return score.Gold(title=None, first_author=surname, years=frozenset(), doi=None, first_author_given=given)


def test_a_particle_filed_with_the_given_names_may_be_read_into_the_surname():
    gold = _gold("Santos", "Laura Lavínia Sabino dos")
    assert score.right("first_author", "dossantos", gold, PARTICLES) and score.right("first_author", "santos", gold, PARTICLES)


def test_a_particle_filed_with_the_surname_may_be_left_out():
    gold = _gold("Al Khatib", "Ahmad")
    assert score.right("first_author", "khatib", gold, PARTICLES) and score.right("first_author", "alkhatib", gold, PARTICLES)


def test_a_given_name_is_no_particle():
    assert not score.right("first_author", "lauralaviniasabinodossantos", _gold("Santos", "Laura Lavínia Sabino dos"), PARTICLES)


def test_letters_without_a_strippable_accent_are_filed_as_their_base_letters():
    assert score.right("first_author", "moller", _gold("Møller", "Anna"), PARTICLES)


def test_a_groups_leading_the_is_left_out():
    assert score.right("first_author", "atlascollaboration", _gold("The ATLAS Collaboration"), PARTICLES)
