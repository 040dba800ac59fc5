"""factory_boy factories for the models tests build most often."""

import factory

from annotation.kinds import kind_of
from annotation.models import Annotator, Batch, Item, Project, Team

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


class TeamFactory(factory.django.DjangoModelFactory):
    """A research group; `TeamFactory(members=[user])` puts researchers in it."""

    class Meta:
        model = Team
        django_get_or_create = ("name",)
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Team {n}")

    @factory.post_generation
    def members(self, create: bool, extracted, **kwargs) -> None:
        if create and extracted:
            self.members.add(*extracted)


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    name = factory.Sequence(lambda n: f"Project {n}")
    team = factory.SubFactory(TeamFactory)
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
    """A Django account; `is_staff=True` makes a researcher, who also needs the model permissions (or `is_superuser=True`)."""

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


class ModelConnectionFactory(factory.django.DjangoModelFactory):
    """A team's model on an OpenAI-compatible server (the local endpoint's address: never called here)."""

    class Meta:
        model = "annotation.ModelConnection"

    team = factory.SubFactory(TeamFactory)
    name = factory.Sequence(lambda n: f"model-{n}")
    base_url = "http://127.0.0.1:8767/v1"
    model = "local-model"


class ModelCallFactory(factory.django.DjangoModelFactory):
    """A model's checked answer for one item: `labels` (label field -> value) as a run keeps them."""

    class Meta:
        model = "annotation.ModelCall"

    connection = factory.SubFactory(ModelConnectionFactory)
    item = factory.SubFactory(ItemFactory)
    prompt_hash = factory.Sequence(lambda n: f"{n:064x}")
    outcome = "labeled"
    labels = factory.LazyFunction(dict)


def save_answer(response_id: int, page: str, answer: dict, *, shown_at=None):
    """Save one page through the one save path, as the annotator's page does (tests' shortcut)."""
    from annotation.models import Response
    from annotation.services.responses import response_save_page

    response = Response.objects.select_related("item__project", "assignment__annotator").get(pk=response_id)
    return response_save_page(
        response=response, kind=kind_of(response.item.project), page_slug=page, answer=answer, shown_at=shown_at
    )
