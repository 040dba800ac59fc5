from .adaptive import AnnotatorEstimate, ItemEstimate, ModelEstimate
from .adjudication import AdjudicationSetup, AdjudicationTask, FinalLabel, Role
from .llm import ModelCall, ModelConnection, ModelRun
from .projects import Item, Project
from .recruitment import BulkPayment, ChannelCall, Payment, Posting, PublishJob, Submission
from .study import Participation
from .teams import Team
from .work import Annotator, Assignment, Batch, InviteLink, Response, Unit, UnitItem

__all__ = [
    "Team",
    "Project",
    "Item",
    "Batch",
    "Unit",
    "UnitItem",
    "Annotator",
    "InviteLink",
    "Assignment",
    "Response",
    "Participation",
    "PublishJob",
    "Posting",
    "Submission",
    "Payment",
    "BulkPayment",
    "ChannelCall",
    "AdjudicationSetup",
    "AdjudicationTask",
    "FinalLabel",
    "Role",
    "ItemEstimate",
    "ModelEstimate",
    "AnnotatorEstimate",
    "ModelConnection",
    "ModelRun",
    "ModelCall",
]
