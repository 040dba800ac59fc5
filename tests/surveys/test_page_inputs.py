"""surveys.page_inputs writes exactly what Django's widget templates write: `option_input` a radio
option's <input>, `field_input` a whole text input, checkbox or textarea (`str(bound_field)`)."""
import pytest
from django import forms
from django.utils.functional import lazy
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from annotation.kinds import get_kind
from annotation.kinds.cosimlex import InspiredWordsForm
from annotation.kinds.recam import SpanForm
from surveys.page_inputs import escape_html, field_input, option_input
from tests.factories import RECAM_PAYLOAD

TRICKY = '<b>"bold" & \'quoted\'</b> >_<'


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


class Inputs(forms.Form):
    """Every widget type `field_input` writes itself, with the attributes Django adds."""

    word = forms.CharField(max_length=60, min_length=2, strip=True, label="Word")
    optional = forms.CharField(required=False, initial=TRICKY, widget=forms.TextInput(attrs={"placeholder": TRICKY}))
    text = forms.CharField(required=False, max_length=5000,
                           widget=forms.Textarea(attrs={"rows": 3, "data-span-target": "1", "class": '"x"'}))
    notes = forms.CharField(widget=forms.Textarea, help_text="Some help")
    tick = forms.BooleanField(required=False)
    must_tick = forms.BooleanField()
    email = forms.EmailField(required=False)
    url = forms.URLField(required=False, assume_scheme="https")
    number = forms.IntegerField(min_value=0, max_value=6, required=False)
    secret = forms.CharField(widget=forms.PasswordInput(render_value=True), required=False)
    hidden = forms.CharField(widget=forms.HiddenInput, required=False, initial="h&i")
    locked = forms.CharField(disabled=True, required=False, initial=TRICKY)


BOUND = [
    {},  # every required field missing: errors (aria-invalid) on them
    {"word": TRICKY, "optional": TRICKY, "text": TRICKY + "\n  second line\n", "notes": TRICKY, "tick": "on",
     "must_tick": "on", "email": TRICKY, "url": TRICKY, "number": "9", "secret": TRICKY, "hidden": TRICKY},
    {"word": "x", "text": "", "notes": "   ", "tick": "", "number": "3", "email": "a@example.org", "url": "example.org"},
    {"word": "ok", "notes": "fine", "must_tick": "true", "tick": "false", "optional": "0"},
]


def written(field, monkeypatch) -> str:
    """field_input(field), checked to be written here and not rendered by Django's templates."""
    with monkeypatch.context() as patch:
        patch.setattr(forms.BoundField, "as_widget", lambda *a, **k: pytest.fail("rendered by Django"))
        return field_input(field)


@pytest.mark.parametrize("prefix", [None, "p"])
@pytest.mark.parametrize("auto_id", ["id_%s", False, "field-%s"])
def test_field_input_is_str_of_the_bound_field(auto_id, prefix, monkeypatch):
    forms_to_check = [Inputs(auto_id=auto_id, prefix=prefix),  # unbound, with initial values
                      Inputs(initial={"word": TRICKY, "tick": True, "text": TRICKY}, auto_id=auto_id, prefix=prefix)]
    for data in BOUND:
        prefixed = {(f"{prefix}-{k}" if prefix else k): v for k, v in data.items()}
        bound = Inputs(prefixed, auto_id=auto_id, prefix=prefix)
        bound.is_valid()
        forms_to_check.append(bound)
        forms_to_check.append(Inputs(prefixed, auto_id=auto_id, prefix=prefix))  # not validated yet
    assert any(form.is_bound and form.errors for form in forms_to_check)
    seen = set()
    for form in forms_to_check:
        for field in form:
            html = written(field, monkeypatch)
            assert html == str(field), (field.name, form.data)
            seen.update(attr for attr in ("aria-invalid", "aria-describedby", "checked", "required", "disabled",
                                          "maxlength", "&quot;", "&#x27;", "&lt;b&gt;") if attr in html)
    assert len(seen) == (9 if auto_id else 8), seen  # no ids: no aria-describedby


@pytest.mark.parametrize("data", [
    None,
    {"text": TRICKY},  # not in the passage: an error on the field
    {"text": "", "none_found": "on"},
    {"text": RECAM_PAYLOAD["article"][:20], "none_found": "on"},  # both: a non-field error
    {"text": ""},
])
def test_field_input_on_the_span_page(data, monkeypatch):
    form = SpanForm(data, payload=RECAM_PAYLOAD, answers={})
    if data is not None:
        assert not form.is_valid() or data.get("none_found")
    for name in ("text", "none_found"):
        assert written(form[name], monkeypatch) == str(form[name])


@pytest.mark.parametrize("data", [None, {}, {"word_1": TRICKY, "word_2": "x" * 61}, {"word_1": "river", "word_2": "bank"}])
def test_field_input_on_the_inspired_page(data, monkeypatch):
    form = InspiredWordsForm(data, payload={}, answers={})
    for field in form:
        assert written(field, monkeypatch) == str(field)
        assert 'maxlength="60"' in field_input(field)


def test_other_widgets_render_through_django():
    class Other(forms.Form):
        choice = forms.ChoiceField(choices=[("a", "<A>")])
        when = forms.DateField(required=False)
        shown = forms.CharField(show_hidden_initial=True, initial="x")

    form = Other({"choice": "a"})
    for field in form:
        assert field_input(field) == str(field)


def test_escape_html_is_djangos_conditional_escape():
    lazy_text = lazy(lambda: TRICKY, str)()
    lazy_safe = lazy(lambda: mark_safe("<i>safe</i>"), str, type(mark_safe("")))()
    for value in [TRICKY, "plain", "", 0, 5000, None, 1.5, mark_safe("<b>kept</b>"), lazy_text, lazy_safe,
                  forms.utils.ErrorList(["<bad> & \"worse\""])]:
        assert escape_html(value) == conditional_escape(value), value
