"""Annotator endpoints: an annotator reads their own work and nothing else.

Answers and timings are returned, the item only by its external id: the passage must never
reach a browser through the API before the flow has revealed it.
"""

from __future__ import annotations

from django.db.models import Count, F, Q, QuerySet
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse

from annotation.models import Response

from .auth import AnnotatorKeyAuthentication
from .permissions import IsAnnotator


class MyResponseSerializer(serializers.ModelSerializer):
    item_external_id = serializers.CharField(read_only=True, help_text="The item's released id (no item text).")
    batch = serializers.IntegerField(read_only=True)
    assignment_status = serializers.CharField(read_only=True)
    completed = serializers.SerializerMethodField()

    class Meta:
        model = Response
        fields = [
            "id",
            "assignment",
            "assignment_status",
            "batch",
            "item_external_id",
            "position",
            "answers",
            "timings",
            "completed",
            "completed_at",
        ]
        read_only_fields = fields

    def get_completed(self, response: Response) -> bool:
        return response.completed_at is not None


class MeSerializer(serializers.Serializer):
    external_id = serializers.CharField()
    channel = serializers.CharField()
    project = serializers.CharField(help_text="Project name.")
    batch = serializers.IntegerField(allow_null=True)
    responses = serializers.IntegerField(help_text="Items handed to you so far.")
    completed = serializers.IntegerField(help_text="Items you have finished.")


class AnnotatorView(generics.GenericAPIView):
    authentication_classes = [AnnotatorKeyAuthentication]
    permission_classes = [IsAnnotator]

    def own_responses(self) -> QuerySet[Response]:
        """Filtered by the key's annotator first, so no parameter can widen it."""
        if getattr(self, "swagger_fake_view", False):
            return Response.objects.none()
        annotator = self.request.user.annotator
        return Response.objects.filter(assignment__annotator=annotator)


class MeView(AnnotatorView):
    """Who the key belongs to and how far they are."""

    serializer_class = MeSerializer

    def get(self, request: Request) -> ApiResponse:
        annotator = request.user.annotator
        counts = self.own_responses().aggregate(
            responses=Count("id"), completed=Count("id", filter=Q(completed_at__isnull=False))
        )
        data = {
            "external_id": annotator.external_id,
            "channel": annotator.channel,
            "project": annotator.project.name,
            "batch": annotator.batch_id,
            **counts,
        }
        return ApiResponse(self.get_serializer(data).data)


class MyResponsesView(AnnotatorView, generics.ListAPIView):
    """The key holder's own responses: answers per page, time per page, completion."""

    serializer_class = MyResponseSerializer

    def get_queryset(self) -> QuerySet[Response]:
        return (
            self.own_responses()
            .annotate(
                item_external_id=F("item__external_id"),
                batch=F("assignment__unit__batch_id"),
                assignment_status=F("assignment__status"),
            )
            .order_by("assignment_id", "position")
        )
