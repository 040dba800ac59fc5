"""The paper's MTurk setup (§5.3) as a preset: workers from the USA or the UK with the Masters
designation and a HIT approval rate above 90 %, one passage per assignment. The paper gives
neither the reward nor the time allotted; the preset fills ours, which the researcher edits."""

from __future__ import annotations

from ..presets import ChannelPreset

#: the paper's mean time per passage (§5.3); the reward and time allotted below are set from it
PAPER_SECONDS_PER_PASSAGE = 624
#: ours: about $8.65 an hour at the paper's mean time, above the US federal minimum wage
REWARD = "1.50"
#: ours: about four times the paper's mean, so a careful reader is not cut off
ASSIGNMENT_DURATION_SECONDS = 45 * 60

MTURK_PRESET = ChannelPreset(
    name="paper",
    description=(
        "SCDE's human-performance study on MTurk (Kong et al. 2020, §5.3). From the paper: workers in the USA "
        "or the UK (locales US, GB), the Masters designation, a HIT approval rate above 90 %, one passage per "
        f"assignment. Ours, to edit: reward ${REWARD} per passage (about $8.65 an hour at the paper's mean of "
        f"{PAPER_SECONDS_PER_PASSAGE} s) and {ASSIGNMENT_DURATION_SECONDS // 60} minutes allotted per "
        "assignment; no minimum of approved HITs besides Masters (the paper names none)."
    ),
    channel_settings={
        "locales": ["US", "GB"],
        "masters": True,
        "min_approval_rate": 90,
        "min_hits_approved": None,
        "reward": REWARD,
        "assignment_duration_seconds": ASSIGNMENT_DURATION_SECONDS,
    },
    items_per_unit=1,
)
