"""Plain-text rendering of CLI documents for humans (`--json` prints the documents themselves)."""

from __future__ import annotations

import json
from typing import Any


def _goal_line(goal: dict[str, Any]) -> str:
    return f"{goal['id']}  {goal['state']}/{goal['next_action']}  {goal['title']}"


def _goal_text(goal: dict[str, Any]) -> str:
    lines = [
        _goal_line(goal),
        f"  reason: {goal['reason']}",
        f"  root: {_v(goal['root_work_id'])}  generation: {goal['generation']}",
        f"  attempts: {goal['attempts_used']} used, {goal['attempts_remaining']} left;"
        f" replans: {goal['replans_used']} used, {goal['replans_remaining']} left",
    ]
    if goal.get("pending_plan_id"):
        lines.append(f"  pending plan: {goal['pending_plan_id']}")
    if goal.get("attention_plan_id"):
        lines.append(f"  attention plan: {goal['attention_plan_id']}")
    for item in goal.get("work", []):
        marker = "*" if item["active"] else " "
        lines.append(f"  {marker} {item['id']}  {item['state']}/{item['next_action']}  {item['title']}")
        for finding in item.get("open_findings", []):
            lines.append(f"      {finding['id']}: {finding['statement']}")
    for plan in goal.get("plans", []):
        lines.append(f"  plan {plan['sequence']}: {plan['id']}  {plan['trigger']}  {plan['status']}")
    lines += [f"warning: {warning}" for warning in goal.get("warnings", [])]
    return "\n".join(lines)


def _tick_text(report: dict[str, Any]) -> str:
    """`supervisor tick|run`: why it stopped, what it did (one line per outcome), then the goal."""
    lines = [
        f"stopped: {report['stop_reason']}  (cycles {report['cycles']}, dispatches {report['dispatches']},"
        f" acceptances {report['acceptances']}, replans {report['replans']})"
    ]
    for outcome in report["outcomes"]:
        subject = outcome.get("plan_id") or outcome.get("work_id")
        lines.append(
            f"  {outcome['kind']} {subject}: {outcome['status']}"
            + (f" ({outcome['reason']})" if outcome.get("reason") else "")
        )
    if report.get("goal"):
        lines.append(_goal_text(report["goal"]))
    return "\n".join(lines)


def serve_line(goal_id: str, report: dict[str, Any]) -> str:
    """`supervisor serve`: one line per tick that acted, what it did."""
    did = "; ".join(f"{o['kind']} {o.get('plan_id') or o.get('work_id')}: {o['status']}" for o in report["outcomes"])
    line = (
        f"{goal_id}: {report['stop_reason']}  (dispatches {report['dispatches']},"
        f" acceptances {report['acceptances']}, replans {report['replans']})"
    )
    if did:
        line += f"  {did}"
    if report.get("error"):
        line += f"  error: {report['error']['message']}"
    goal = report.get("goal")
    return line + (f"  -> {goal['state']}/{goal['next_action']}" if goal else "")


def _attempt_text(attempt: dict[str, Any]) -> str:
    resumed = ", resumed" if attempt["resumed"] else ""
    line = f"{attempt['run_id']}  attempt {attempt['attempt']} ({attempt['trigger']}{resumed}): {attempt['status']}"
    if attempt["class"]:
        line += f" [{attempt['class']}]"
    if attempt["approval_id"]:
        line += f" on {attempt['approval_id']}"
    if attempt["reason"]:
        line += f": {attempt['reason']}"
    work = attempt["work"]
    return line + f"\n  work {attempt['work_id']} is now {work['state']}/{work['next_action']}"


def _init_text(document: dict[str, Any]) -> str:
    if "kit" in document:
        return _kit_text(document)
    if "group" not in document:
        return f"initialized {document['harnery']}"
    lines = [f"initialized {document['harnery']}, shared with group {document['group']}"]
    if document["repaired"]:
        lines.append(f"  set right: {len(document['repaired'])} entries (group, mode)")
    lines += [f"  not repaired: {entry['path']}: {entry['problem']}" for entry in document["unrepaired"]]
    lines += [f"  warning: members of {document['group']} cannot enter {entry}" for entry in document["unreachable"]]
    if "agents" in document:
        lines.append(_kit_text(document["agents"]))
    return "\n".join(lines)


def _history_text(document: dict[str, Any]) -> str:
    lines = [
        f"{e['position']:>5} {e['ts']}  {e['source']:8} {e['id']}  {e['actor'] or '-'}  {e['event']}: {e['summary']}"
        for e in document["events"]
    ]
    return "\n".join([f"history of {document['goal_id']} ({len(lines)} entries)", *lines])


def _diff_text(document: dict[str, Any]) -> str:
    before, after = document["before"], document["after"]
    head = f"plan {document['plan_id']} ({document['status']}): generation {before['generation']}"
    if after is None:
        return head + ", nothing to replace (the plan adds no work)"
    lines = [head + f" -> {after['generation']}, root {before['root_work_id']} -> {after['root_work_id']}"]
    for name in ("replaced", "kept", "added"):
        lines.append(f"  {name}: {', '.join(document[name]) or 'none'}")
    return "\n".join(lines)


def _past_text(document: dict[str, Any]) -> str:
    when = "the present state" if document["present"] else "the past"
    return f"as of {document['at']} (entry {document['position']}; {when})\n" + _goal_text(document)


def _kit_text(document: dict[str, Any]) -> str:
    lines = [f"initialized {document['harnery']}", f"wrote the starter kit in {document['kit']}"]
    lines += [f"note: {note}" for note in document["notes"]]
    lines.append("start the mission with:")
    lines += [f"  {command}" for command in document["commands"]]
    return "\n".join(lines)


def _status_text(document: dict[str, Any]) -> str:
    lines = []
    for service in document["services"]:
        state = "stale" if service["stale"] else "live"
        line = (
            f"{service['host']}-{service['pid']}  {state}  actor {service['actor']}  "
            f"{len(service['goals'])} goal(s), {service['rounds']} round(s), last {service['last_round_at']}, "
            f"heartbeat {service['heartbeat_at']}"
        )
        if service["backoff_s"]:
            line += f"  backing off {service['backoff_s']:g} s"
        if service["last_error"]:
            line += f"  last error: {service['last_error']}"
        lines.append(line)
    lines += [f"problem: {p['path']}: {p['problem']}" for p in document["problems"]]
    return "\n".join(lines) or "no serve loop keeps this tree"


def _v(value: Any) -> str:
    """A field for people: `-` for none (never Python's `None`)."""
    return "-" if value is None or value == "" else str(value)


def _pending_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "nothing is waiting for a human"
    lines = []
    for r in rows:
        subject = " ".join(
            f"{name}={r[key]}"
            for name, key in (
                ("goal", "goal_id"),
                ("plan", "plan_id"),
                ("work", "work_id"),
                ("approval", "approval_id"),
            )
            if r.get(key) is not None
        )
        lines.append(f"{r['kind']:12} {subject}  {r['reason']}")
        if r.get("question"):
            lines.append(f"  question: {r['question']}")
    return "\n".join(lines)


def _work_text(item: dict[str, Any]) -> str:
    lines = [
        f"{item['id']}  {item['state']}/{item['next_action']}  {item['title']}",
        f"  reason: {_v(item['reason'])}",
        f"  goal: {_v(item.get('goal_id'))}  attempts: {item['attempts_used']} of {item['max_attempts']}"
        f"  depends on: {', '.join(item['dependencies']) or '-'}",
    ]
    if item.get("also_goal_ids"):
        lines.append(
            f"  also in the graph of goal {', '.join(item['also_goal_ids'])} "
            f"(goal {_v(item.get('goal_id'))} governs it)"
        )
    intent = item.get("intent") or {}
    if intent.get("objective"):
        lines.append(f"  objective: {intent['objective']}")
    lines += [f"  accept: {criterion}" for criterion in intent.get("acceptance", [])]
    for attempt in item.get("attempts", []):
        lines.append(
            f"  attempt {attempt['number']} {attempt['run_id']}: {attempt['status']}"
            + (f" [{attempt['class']}]" if attempt.get("class") else "")
            + (
                f" ({attempt['summary'] or attempt['reason']})"
                if attempt.get("summary") or attempt.get("reason")
                else ""
            )
        )
    lines += [f"  finding {f['id']}: {f['statement']}" for f in item.get("open_findings", [])]
    if item.get("problem"):
        lines.append(f"  problem: {item['problem']}")
    return "\n".join(lines)


def _approval_line(approval: dict[str, Any]) -> str:
    request = approval.get("request") or {}
    decision = approval.get("decision")
    line = f"{approval['id']}  {approval['status']}  work {_v(request.get('work_id'))}: {_v(request.get('question'))}"
    if decision:
        line += f"  ({decision['verdict']} by {decision['actor']}: {_v(decision.get('reason'))})"
    return line


def _approval_text(approval: dict[str, Any]) -> str:
    request = approval.get("request") or {}
    lines = [_approval_line(approval)]
    if request.get("details"):
        lines.append(f"  details: {request['details']}")
    lines.append(
        f"  goal: {_v(request.get('goal_id'))}  run: {_v(request.get('run_id'))}"
        f"  requested: {_v(request.get('requested_at'))}"
    )
    if approval.get("problem"):
        lines.append(f"  problem: {approval['problem']}")
    return "\n".join(lines)


def _plan_text(plan: dict[str, Any]) -> str:
    """`plan show`: the decision-relevant fields; the request, input and receipts are in `--json`."""
    lines = [
        f"plan {plan['sequence']}: {plan['id']}  {plan['trigger']}  {plan['status']}",
        f"  reason: {_v(plan.get('reason'))}",
        f"  rationale: {_v(plan.get('rationale'))}",
        f"  root: {_v(plan.get('root_work_id'))}  work: {', '.join(plan.get('work_ids') or []) or '-'}",
    ]
    proposal = plan.get("proposal")
    if proposal:
        lines.append(f"  proposal: {proposal['decision']}")
        milestone = proposal.get("milestone")
        if milestone:
            lines.append(f"  milestone {milestone['sequence']}: {milestone['title']}")
        for item in proposal.get("work", []):
            after = f" (after {', '.join(item['dependencies'])})" if item.get("dependencies") else ""
            lines.append(f"    {item['key']}  [{item['template']}]  {item['title']}{after}")
    review = plan.get("review")
    if review:
        lines.append(f"  review: {review['outcome']}")
        for verdict in review.get("reviews", []):
            lines.append(
                f"    {verdict.get('reviewer', '?')}: {verdict.get('verdict', '?')} ({_v(verdict.get('rationale'))})"
            )
    lines.append(f"  events: {len(plan.get('events', []))}  (the request, input and receipts: --json)")
    return "\n".join(lines)


def _demo_text(document: dict[str, Any]) -> str:
    if "goals" not in document:  # the console closed: the tree stays
        return f"the demo tree stays in {document['root']}; open it again with: harn --root {document['root']} tui"
    lines = [f"built the demo tree in {document['root']}", *(_goal_line(g) for g in document["goals"])]
    lines += [f"problem: {p['path']}: {p['problem']}" for p in document.get("problems", [])]
    lines.append(f"open it with: harn --root {document['root']} tui")
    return "\n".join(lines)


def render_text(route: tuple[str, ...], document: Any) -> str:
    if "outcome" in document and "event" in document:
        event = document["event"]
        if "event" not in event:
            verdict = {"approve": "approved", "deny": "denied"}.get(str(event.get("verdict")), event.get("verdict"))
            return f"{document['outcome']}: approval {event.get('approval_id')} {verdict} by {event.get('actor')}"
        return f"{document['outcome']}: {event.get('event', '')} (seq {event.get('seq', '?')})"
    if route in (("work", "run"), ("work", "retry")):
        return _attempt_text(document)
    if route == ("supervisor", "show") and "position" in document:
        return _past_text(document)
    if route in (("supervisor", "show"), ("supervisor", "create")):
        return _goal_text(document)
    if route == ("supervisor", "history"):
        return _history_text(document)
    if route == ("supervisor", "plan", "diff"):
        return _diff_text(document)
    if route in (("supervisor", "tick"), ("supervisor", "run")):
        return _tick_text(document)
    if route == ("supervisor", "list"):
        lines = [_goal_line(g) for g in document["goals"]] or ["no goals"]
        lines += [f"problem: {p['path']}: {p['problem']}" for p in document["problems"]]
        return "\n".join(lines)
    if route == ("demo",):
        return _demo_text(document)
    if route == ("examples",):
        return f"copied the examples to {document['examples']}: " + ", ".join(document["files"])
    if route == ("pending",):
        return _pending_text(document["pending"])
    if route in (("work", "show"), ("work", "create")):
        return _work_text(document)
    if route == ("approval", "list"):
        return "\n".join(_approval_line(a) for a in document["approvals"]) or "no approvals"
    if route == ("approval", "show"):
        return _approval_text(document)
    if route == ("supervisor", "plan", "show"):
        return _plan_text(document)
    if route == ("schema",) and "$defs" not in document and "properties" not in document:
        return "\n".join(document)  # the record names; `harn schema NAME` prints one schema
    if route == ("verify",):
        if document["ok"]:
            return "the tree is sound"
        return "\n".join(f"{p['path']}: {p['problem']}" for p in document["problems"])
    if route == ("work", "list"):
        return "\n".join(f"{w['id']}  {w['state']}/{w['next_action']}  {w['title']}" for w in document["work"])
    if route == ("supervisor", "plan", "list"):
        return (
            "\n".join(
                f"{p['sequence']:>3} {p['id']}  {p['trigger']}  {p['status']}  {_v(p['reason'])}"
                for p in document["plans"]
            )
            or "no plans"
        )
    if route == ("supervisor", "status"):
        return _status_text(document)
    if route == ("fault-points",):
        return "\n".join(document["points"])
    if route == ("init",):
        return _init_text(document)
    if route == ("work", "diff"):
        return str(document["diff"])
    if route == ("template", "list"):
        return "\n".join(f"{t['kind']}: {t['description']}" for t in document["templates"])
    if route == ("template", "new"):
        return f"wrote {document['path']}"
    return json.dumps(document, indent=2, ensure_ascii=False)
