"""Pagination whose `limit` and `offset` mean what the schema says: a bad value is a 400 naming
it, not silently replaced by the default (DRF's LimitOffsetPagination ignores what it cannot
read), and both are bounded so no value can overflow a database's LIMIT/OFFSET."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from .params import MAX_ID, int_param, int_schema

#: the most rows one page may hold (the default page size is PAGE_SIZE)
MAX_LIMIT = 1000


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_limit(self, request: Request) -> int:
        limit = int_param(request, self.limit_query_param, minimum=1, maximum=self.max_limit)
        return self.default_limit if limit is None else limit

    def get_offset(self, request: Request) -> int:
        return int_param(request, self.offset_query_param, minimum=0, maximum=MAX_ID) or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """DRF's parameters with the bounds `get_limit` and `get_offset` enforce."""
        bounds = {
            self.limit_query_param: int_schema(minimum=1, maximum=self.max_limit) | {"default": self.default_limit},
            self.offset_query_param: int_schema(minimum=0, maximum=MAX_ID) | {"default": 0},
        }
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"] = bounds[parameter["name"]]
        return parameters
