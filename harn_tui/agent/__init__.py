"""The agent template's library: a team member does a work item in its own git workspace, the host commits,
runs the frozen checks, has a judge judge every criterion and writes the proof.

Public API (typed; see docs/guide/agents.md):

- `AgentParameters`: the frozen parameters (worker, judge, team, checks, ask_first, workspace, base, agent_args,
  max_diff_kb).
- `run_agent_template(parameters, env=None) -> int`: run one attempt from inside a template process (the
  `HARN_*` variables the host sets); returns the exit code (0 with a proof in `$HARN_PROOF`, 75 parked).
- `agent_script(parameters)` / `write_agent_template(path, parameters)`: the generated script.
"""

from harn_tui.agent.parameters import AgentParameters
from harn_tui.agent.runner import run_agent_template
from harn_tui.agent.script import agent_parameters, agent_script, template_list, write_agent_template

__all__ = [
    "AgentParameters",
    "agent_parameters",
    "agent_script",
    "run_agent_template",
    "template_list",
    "write_agent_template",
]
