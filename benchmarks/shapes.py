"""The synthetic tree sizes S, M and L, and how one goal's work is split into generations."""

from __future__ import annotations

from dataclasses import dataclass

PLANS_PER_GOAL = 5
EVENTS_PER_ITEM = 10
MAX_ITEMS_PER_PLAN = 8  # the SPEC's default `max_work_items_per_plan`


@dataclass(frozen=True)
class TreeShape:
    """`goals` goals of `items_per_goal` work items (10 events each) and 5 plans per goal.

    The work of one goal is the original graph plus four applied plans of `per_plan` items each (a fifth of
    the goal's items, at most the SPEC's default plan bound of 8); the fifth plan is the latest one and is
    left pending (proposing `per_plan` items), in attention, rejected, failed or retried.
    """

    name: str
    goals: int
    items_per_goal: int

    @property
    def applied_plans(self) -> int:
        return PLANS_PER_GOAL - 1

    @property
    def per_plan(self) -> int:
        return min(MAX_ITEMS_PER_PLAN, self.items_per_goal // PLANS_PER_GOAL)

    @property
    def original_items(self) -> int:
        return self.items_per_goal - self.applied_plans * self.per_plan

    @property
    def work_events(self) -> int:
        return self.goals * self.items_per_goal * EVENTS_PER_ITEM


SIZES: dict[str, TreeShape] = {
    "S": TreeShape("S", goals=6, items_per_goal=10),
    "M": TreeShape("M", goals=40, items_per_goal=50),
    "L": TreeShape("L", goals=200, items_per_goal=100),
}
