"""factory_boy factories for the models tests build most often."""
import factory

from annotation.models import Annotator, Batch, Item, Project

RECAM_PAYLOAD = {
    "article": "The cat sat on the mat. It was a sunny day in the small town of Hengoed.",
    "question": "A cat enjoyed the @placeholder weather .",
    "option_0": "rainy",
    "option_1": "sunny",
    "option_2": "cold",
    "option_3": "foggy",
    "option_4": "windy",
    "label": 1,
}


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    name = factory.Sequence(lambda n: f"Project {n}")
    kind = "recam"


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Item

    project = factory.SubFactory(ProjectFactory)
    external_id = factory.Sequence(lambda n: f"item-{n}")
    payload = factory.LazyFunction(lambda: dict(RECAM_PAYLOAD))


class BatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Batch

    project = factory.SubFactory(ProjectFactory)
    name = factory.Sequence(lambda n: f"Batch {n}")


class AnnotatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Annotator

    project = factory.SubFactory(ProjectFactory)
    channel = "invite"
    external_id = factory.Sequence(lambda n: f"person-{n}")


class UserFactory(factory.django.DjangoModelFactory):
    """A Django account; `is_staff=True` makes a researcher (the API's IsAdminUser)."""

    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests")
    is_staff = False


class InviteLinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "annotation.InviteLink"

    batch = factory.SubFactory(BatchFactory)
    label = factory.Sequence(lambda n: f"link {n}")
