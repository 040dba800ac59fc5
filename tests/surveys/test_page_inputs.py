"""`{% option_input %}` writes exactly what Django's radio widget template writes."""
import pytest
from django import forms

from annotation.kinds import get_kind
from surveys.templatetags.page_inputs import option_input
from tests.factories import RECAM_PAYLOAD


class Tricky(forms.Form):
    pick = forms.ChoiceField(choices=[("a", "A"), ('<"&\'>', "odd"), (3, "three")], widget=forms.RadioSelect)
    maybe = forms.ChoiceField(choices=[("x", "X"), ("y", "Y")], required=False,
                              widget=forms.RadioSelect(attrs={"class": "c", "data-x": "1 < 2", "disabled": True}))


@pytest.mark.parametrize("data", [None, {"pick": '<"&\'>', "maybe": "y"}, {"pick": "3"}])
def test_same_markup_as_the_widget_template(data):
    form = Tricky(data, auto_id="id_%s")
    options = [option for name in ("pick", "maybe") for option in form[name]]
    assert len(options) == 5
    for option in options:
        assert option_input(option) == option.tag()


def test_same_markup_on_every_radio_page_of_the_kinds():
    recam = get_kind("recam")
    checked = 0
    for page in recam.pages(RECAM_PAYLOAD):
        for answers in ({}, {"pre": {"choice": 1}}):
            form = page.form_class({"choice": "1", "relation": "summarize", "difficulty": "easy"},
                                   payload=RECAM_PAYLOAD, answers=answers)
            for field in form:
                if isinstance(field.field.widget, forms.RadioSelect):
                    for option in field:
                        assert option_input(option) == option.tag()
                        checked += 1
    assert checked >= 20
