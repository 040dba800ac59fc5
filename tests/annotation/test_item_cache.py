"""The per-process copies of items that let a save skip reading its item."""
import pytest

from annotation import item_cache
from annotation.models import Item
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty():
    item_cache.forget_all()
    yield
    item_cache.forget_all()


def test_a_remembered_item_comes_back_equal_and_as_a_new_instance():
    item = Item.objects.get(pk=ItemFactory().pk)
    assert item_cache.recall(item.pk) is None
    item_cache.remember(item)
    copy = item_cache.recall(item.pk)
    assert copy is not item and copy.pk == item.pk and not copy._state.adding and copy._state.db == "default"
    assert {f.attname: getattr(copy, f.attname) for f in Item._meta.concrete_fields} == \
        {f.attname: getattr(item, f.attname) for f in Item._meta.concrete_fields}


def test_unsaved_and_partly_loaded_items_are_not_remembered():
    saved = ItemFactory()
    item_cache.remember(Item(payload={"x": 1}, project=saved.project))
    item_cache.remember(Item.objects.only("id", "project").get(pk=saved.pk))
    assert item_cache.recall(saved.pk) is None


def test_the_oldest_copy_goes_when_the_cache_is_full(monkeypatch):
    monkeypatch.setattr(item_cache, "MAX_ITEMS", 3)
    items = [Item.objects.get(pk=ItemFactory().pk) for _ in range(5)]
    for item in items:
        item_cache.remember(item)
    assert [item_cache.recall(i.pk) is not None for i in items] == [False, False, True, True, True]
    item_cache.remember(items[2])  # known already: nothing goes
    assert [item_cache.recall(i.pk) is not None for i in items] == [False, False, True, True, True]
