"""The approval ops: `approve` (with an option's id or kind) and `deny` a waiting permission request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.agents.approvals import ApprovalError
from acp_tray.control.api import ApproveArgs, DenyArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import ApprovedReply, DeniedReply

if TYPE_CHECKING:
    from acp_tray.agents.approvals import Approvals


class ApprovalOps:
    def __init__(self, approvals: Approvals) -> None:
        self._approvals = approvals

    async def approve(self, args: ApproveArgs) -> ApprovedReply:
        try:
            option = self._approvals.approve(args.id, args.option)
        except ApprovalError as exc:
            raise OpError(str(exc), ErrorCode.NOT_FOUND) from None
        return {"id": args.id, "option": option.option_id, "name": option.name, "kind": option.kind}

    async def deny(self, args: DenyArgs) -> DeniedReply:
        try:
            option = self._approvals.deny(args.id)
        except ApprovalError as exc:
            raise OpError(str(exc), ErrorCode.NOT_FOUND) from None
        return {"id": args.id, "option": option.option_id if option else None}
