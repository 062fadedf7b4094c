"""Judging a finished template: its exit code and the files it left decide passed, failed or parked.

The host, not the template, writes `proof.json`: a valid proof is re-serialized; anything else (a non-zero exit,
a missing or invalid proof, a timeout) becomes a failed proof whose summary is the reason, charged.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from harn_tui.core.clock import now_iso
from harn_tui.core.journal import describe_validation
from harn_tui.core.records import ApprovalAsk, Proof
from harn_tui.core.records.common import REASON_MAX
from harn_tui.core.records.run import CriterionResult
from harn_tui.core.template_process import ProcessExit

PARK_EXIT_CODE = 75
MAX_FILE_BYTES = 4 * 1024 * 1024
APPROVAL_REQUEST = "approval-request.json"
PROOF = "proof.json"


@dataclass(frozen=True)
class Verdict:
    """What one run of the template amounts to; `proof` is set unless parked, `ask` only when parked."""

    status: Literal["passed", "failed", "parked"]
    class_: Literal["environment", "upstream", "decision"] | None
    reason: str | None
    proof: Proof | None
    ask: ApprovalAsk | None = None


def bounded_reason(text: str) -> str:
    text = text.strip() or "failed"
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 3] + "..."


def host_failure(
    run_id: str, criteria: list[str], reason: str, class_: Literal["environment"] | None = None
) -> Verdict:
    """A failed proof written by the host: every criterion unknown, the reason as its summary; charged, unless
    `class_` is `environment` (the executor lost the process)."""
    reason = bounded_reason(reason)
    proof = Proof.model_validate(
        {
            "run_id": run_id,
            "status": "failed",
            "summary": reason,
            "acceptance": [CriterionResult(criterion=c, status="unknown", evidence="no valid proof") for c in criteria],
            "class": class_,
            "finished_at": now_iso(),
        }
    )
    return Verdict("failed", class_, reason, proof)


class _Invalid(Exception):
    pass


def _read_bounded(path: Path, what: str) -> bytes:
    try:
        with path.open("rb") as handle:
            body = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise _Invalid(f"no {what} at {path}") from None
    except OSError as error:
        raise _Invalid(f"{what} at {path} cannot be read ({error.strerror})") from None
    if len(body) > MAX_FILE_BYTES:
        raise _Invalid(f"{what} at {path} is larger than {MAX_FILE_BYTES} bytes")
    return body


def _parse_proof(body: bytes, run_id: str, criteria: list[str]) -> Proof:
    try:
        json.loads(body)
    except ValueError as error:
        raise _Invalid(f"invalid proof: not JSON ({error})") from None
    try:
        proof = Proof.model_validate_json(body)
    except ValidationError as error:
        raise _Invalid(f"invalid proof: {describe_validation(error)}") from None
    if proof.run_id != run_id:
        raise _Invalid(f"invalid proof: run_id {proof.run_id!r} is not this run ({run_id})")
    listed = Counter(result.criterion for result in proof.acceptance)
    expected = Counter(criteria)
    if listed != expected:
        missing = sorted((expected - listed).elements())
        extra = sorted((listed - expected).elements())
        raise _Invalid(
            "invalid proof: acceptance must list each of the work's criteria exactly once"
            + (f"; missing {missing}" if missing else "")
            + (f"; unexpected or repeated {extra}" if extra else "")
        )
    return proof


def judge(ended: ProcessExit, *, scratch: Path, run_id: str, criteria: list[str], timeout_s: float) -> Verdict:
    """The verdict on one run of a template from its exit and the files it left in `scratch`."""
    if ended.start_error is not None:
        return host_failure(run_id, criteria, ended.start_error)
    if ended.output_capped_at is not None:
        return host_failure(
            run_id,
            criteria,
            f"output cap: the template printed more than {ended.output_capped_at} bytes (or its "
            "transcript reached that size); its process group was killed",
        )
    if ended.timed_out:
        return host_failure(
            run_id, criteria, f"timeout: the template ran longer than {timeout_s:g} s; its process group was killed"
        )
    code = ended.returncode
    try:
        if code == PARK_EXIT_CODE:
            body = _read_bounded(scratch / APPROVAL_REQUEST, APPROVAL_REQUEST)
            try:
                ask = ApprovalAsk.model_validate_json(body)
            except ValidationError as error:
                raise _Invalid(f"invalid {APPROVAL_REQUEST}: {describe_validation(error)}") from None
            return Verdict("parked", None, None, None, ask)
        if code == 0:
            proof = _parse_proof(_read_bounded(scratch / PROOF, "proof ($HARN_PROOF)"), run_id, criteria)
            if proof.passes:
                return Verdict("passed", proof.class_, None, proof)
            return Verdict("failed", proof.class_, bounded_reason(proof.summary or "the proof does not pass"), proof)
    except _Invalid as problem:
        prefix = f"exit {code} with " if code == PARK_EXIT_CODE else ""
        return host_failure(run_id, criteria, prefix + str(problem))
    if code is not None and code < 0:
        return host_failure(run_id, criteria, f"the template was killed by signal {-code}")
    return host_failure(run_id, criteria, f"the template exited with code {code}")
