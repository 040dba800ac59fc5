"""FixedChoices: a choice field given them renders and validates as with a plain list."""
import copy

import pytest
from django import forms
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from annotation.kinds.base import FixedChoices

PAIRS = [("0", "plain <b>word</b>"), ("1", _("Easy")), ("none", _("No Other Answer"))]


class Plain(forms.Form):
    choice = forms.ChoiceField(widget=forms.RadioSelect, choices=PAIRS)


class Fixed(forms.Form):
    choice = forms.ChoiceField(widget=forms.RadioSelect, choices=FixedChoices(PAIRS))


@pytest.mark.parametrize("language", ["en", "hr"])
def test_fixed_choices_render_as_a_plain_list_does(language):
    with translation.override(language):
        assert str(Fixed()["choice"]) == str(Plain()["choice"])
        assert [r.choice_label for r in Fixed()["choice"]] == [r.choice_label for r in Plain()["choice"]]
        assert str(Fixed(data={"choice": "1"})["choice"]) == str(Plain(data={"choice": "1"})["choice"])


def test_fixed_choices_validate_as_a_plain_list_does():
    for value in ["0", "1", "none", "2", "", "None"]:
        fixed, plain = Fixed(data={"choice": value}), Plain(data={"choice": value})
        assert fixed.is_valid() == plain.is_valid(), value
        assert fixed.errors == plain.errors


def test_fixed_choices_are_shared_not_copied_and_read_like_a_list():
    choices = FixedChoices(PAIRS)
    assert copy.deepcopy(choices) is choices and copy.copy(choices) is choices
    assert Fixed().fields["choice"].choices is Fixed.base_fields["choice"].choices
    assert len(choices) == 3 and choices[1] == PAIRS[1] and list(choices) == PAIRS and choices == PAIRS
    with pytest.raises(IndexError):
        choices[3]
