"""The control API's ops as the daemon answers them, one module per topic, each given the parts it
uses (`app/compose.py` builds them); `dispatch_table` puts them in the table the control server
dispatches through (control/api.py declares them)."""

from __future__ import annotations

from dataclasses import dataclass

from acp_tray.app.ops.agents import AgentOps
from acp_tray.app.ops.approvals import ApprovalOps
from acp_tray.app.ops.diagnostics import DiagnosticsOps
from acp_tray.app.ops.history import HistoryOps
from acp_tray.app.ops.prefs import PrefsOps
from acp_tray.app.ops.prompts import PromptOps
from acp_tray.app.ops.push import PushOps
from acp_tray.app.ops.questions import QuestionOps
from acp_tray.app.ops.signin import SignInOps
from acp_tray.app.ops.status import StatusOps
from acp_tray.app.ops.watch import WatchOps
from acp_tray.control import api
from acp_tray.control.server import Dispatch, answering, dispatch, following, reading, streaming


@dataclass(frozen=True)
class Ops:
    """Every op class, built with its parts."""

    status: StatusOps
    agents: AgentOps
    signin: SignInOps
    prompts: PromptOps
    approvals: ApprovalOps
    questions: QuestionOps
    prefs: PrefsOps
    history: HistoryOps
    push: PushOps
    diagnostics: DiagnosticsOps
    watch: WatchOps


def dispatch_table(ops: Ops) -> Dispatch:
    status, agents, signin, prompts = ops.status, ops.agents, ops.signin, ops.prompts
    approvals, questions, prefs, history, push = ops.approvals, ops.questions, ops.prefs, ops.history, ops.push
    return dispatch(
        reading(api.STATUS, status.status),
        reading(api.AGENTS_LIST, status.agents),
        reading(api.APPROVALS, status.approvals),
        reading(api.SESSIONS, status.sessions),
        answering(api.AGENTS_ADD, agents.add),
        answering(api.AGENTS_REPLACE, agents.replace),
        answering(api.AGENTS_WAIT, agents.wait),
        answering(api.AGENTS_REMOVE, agents.remove),
        answering(api.AGENTS_RESTART, agents.restart),
        answering(api.AGENTS_STOP, agents.stop),
        answering(api.AGENTS_START, agents.start),
        streaming(api.LOGIN, signin.login),
        answering(api.LOGIN_CANCEL, signin.cancel),
        answering(api.LOGIN_CODE, signin.code),
        answering(api.LOGIN_FINISHED, signin.finished),
        answering(api.LOGOUT, signin.logout),
        streaming(api.PROMPT, prompts.prompt),
        answering(api.CANCEL, prompts.cancel),
        answering(api.APPROVE, approvals.approve),
        answering(api.DENY, approvals.deny),
        reading(api.QUESTIONS, questions.questions),
        answering(api.ANSWER, questions.answer),
        reading(api.PREFS_APPLY, prefs.apply),
        reading(api.PREFS_GET, prefs.form),
        answering(api.PREFS_SET, prefs.change),
        answering(api.DND_SET, prefs.dnd),
        answering(api.HISTORY, history.history),
        reading(api.READ, history.read),
        reading(api.QUIT, status.quit),
        reading(api.DIAGNOSTICS, ops.diagnostics.diagnostics),
        following(api.WATCH, ops.watch.watch),
        reading(api.PUSH_LIST, push.list),
        streaming(api.PUSH_ADD, push.add),
        answering(api.PUSH_TEST, push.test),
        streaming(api.PUSH_REMOVE, push.remove),
    )
