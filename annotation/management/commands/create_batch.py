"""manage.py create_batch <project_id> --name N --items-per-unit K --annotators-per-item M [--consistency-set 20]
[--handout overlap|spread] [--pilot-items N] [--preset NAME [--channel-settings JSON]]"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.channels import ChannelSettingsError
from annotation.kinds import PresetError, kind_of, preset_fill, preset_named
from annotation.models import Batch
from annotation.selectors.batches import invite_url
from annotation.services.batches import BatchError, batch_create, channel_settings_check, invite_link_create
from annotation.services.projects import consistency_set_choose
from annotation.studies import StudyFileError

from ._common import add_base_url_argument, base_url, project_or_error

DEFAULT_ITEMS_PER_UNIT = 5


class Command(BaseCommand):
    help = (
        "Make a batch of all of a project's items, split into units, each to be done by the "
        "given number of distinct annotators, and print an invite link to share."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project_id", type=int)
        parser.add_argument("--name", required=True)
        parser.add_argument(
            "--items-per-unit",
            type=int,
            help=f"Items one annotator gets at a time (default: the preset's, else {DEFAULT_ITEMS_PER_UNIT}).",
        )
        parser.add_argument(
            "--annotators-per-item",
            type=int,
            help="Distinct annotators per item (default: the number the kind's paper used for the project's language).",
        )
        parser.add_argument(
            "--release-after-minutes", type=int, default=60, help="Idle work is released to others after this."
        )
        parser.add_argument(
            "--handout",
            choices=Batch.Handout.values,
            default=Batch.Handout.OVERLAP,
            help="Which free unit a new annotator gets: overlap (the one others hold, so people share items early; "
            "the default) or spread (the one fewest hold).",
        )
        parser.add_argument(
            "--pilot-items",
            type=int,
            default=0,
            metavar="N",
            help="The first N items go to every annotator first; the quality report shows their agreement apart.",
        )
        parser.add_argument(
            "--consistency-set",
            type=int,
            metavar="N",
            help="First choose N random groups (items tied by their group key) as the project's consistency set, which every "
            "annotator rates first, for calibration (SimLex-999 used 20). Without it, an existing set is used.",
        )
        parser.add_argument("--seed", type=int, help="Random seed for --consistency-set (reproducible choice).")
        parser.add_argument(
            "--preset",
            metavar="NAME",
            help="A preset of the project's kind (e.g. a paper's MTurk setup): it sets the channel, the channel "
            "settings and items per unit; values given here win.",
        )
        parser.add_argument(
            "--channel-settings",
            metavar="JSON",
            type=json.loads,
            default={},
            help='Channel settings over the preset\'s, e.g. \'{"reward": "2.00"}\'.',
        )
        parser.add_argument(
            "--study",
            metavar="FILE",
            type=Path,
            help="A study file (YAML or JSON, docs/study-checks.md): consent, comprehension check, training, "
            "check items, live quality, exit survey.",
        )
        adaptive = parser.add_argument_group(
            "adaptive redundancy", "hand an item out only until its label is sure enough (docs/adaptive-redundancy.md)"
        )
        adaptive.add_argument("--adaptive", action="store_true", help="Turn adaptive redundancy on.")
        adaptive.add_argument("--min-annotators", type=int, help="Labels an item gets before it may settle (2).")
        adaptive.add_argument("--max-annotators", type=int, help="Labels an item gets at most (5).")
        adaptive.add_argument("--target-confidence", type=float, help="The posterior that settles an item (0.98).")
        adaptive.add_argument("--min-competence", type=float, help="Stop annotators estimated below this competence.")
        add_base_url_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_or_error(options["project_id"])
        if options["consistency_set"]:
            try:
                chosen = consistency_set_choose(project=project, size=options["consistency_set"], seed=options["seed"])
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"Consistency set: {', '.join(chosen)}")
        channel, settings, items_per_unit = self._channel(project, options)
        study = options["study"].read_text(encoding="utf-8") if options["study"] else ""
        try:
            batch = batch_create(
                project=project,
                name=options["name"],
                items_per_unit=items_per_unit,
                assignments_per_unit=options["annotators_per_item"]
                or kind_of(project).suggested_annotators_per_item(project.language),
                release_after_minutes=options["release_after_minutes"],
                handout=options["handout"],
                pilot_items=options["pilot_items"],
                channel=channel,
                channel_settings=settings,
                study=study,
                adaptive=self._adaptive(options),
            )
        except (BatchError, StudyFileError) as exc:
            raise CommandError(str(exc)) from None
        invite = invite_link_create(batch=batch, label="default")
        self.stdout.write(self.style.SUCCESS(f"Created batch {batch.pk} ({batch.units.count()} units)."))
        self.stdout.write(f"Invite link: {invite_url(invite.token, base_url=base_url(options['base_url']))}")

    @staticmethod
    def _adaptive(options: dict[str, Any]) -> dict[str, Any]:
        """The adaptive settings given (the model's defaults for the others); none without --adaptive."""
        names = ("min_annotators", "max_annotators", "target_confidence", "min_competence")
        given = {name: options[name] for name in names if options[name] is not None}
        if given and not options["adaptive"]:
            raise CommandError(f"--{next(iter(given)).replace('_', '-')} needs --adaptive")
        return {"adaptive": True, **given} if options["adaptive"] else {}

    @staticmethod
    def _channel(project: Any, options: dict[str, Any]) -> tuple[str, dict[str, Any], int]:
        """Channel, channel settings and items per unit: the preset's under the options given."""
        channel, settings, items_per_unit = "invite", options["channel_settings"], options["items_per_unit"]
        if options["preset"]:
            try:
                channel, preset = preset_named(kind_of(project), options["preset"])
            except PresetError as exc:
                raise CommandError(str(exc)) from None
            settings, items_per_unit = preset_fill(preset, channel_settings=settings, items_per_unit=items_per_unit)
        try:
            channel_settings_check(project=project, channel=channel, channel_settings=settings)
        except ChannelSettingsError as exc:
            raise CommandError(f"channel settings: {exc}") from None
        return channel, settings, items_per_unit or DEFAULT_ITEMS_PER_UNIT
