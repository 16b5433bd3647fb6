"""Sign-in from the window (`POST /sign-in/{name}`, from an agent's sign-in buttons): an agent
method is done by the daemon (`login`); a terminal one opens the person's terminal as the tray does,
where `acp-tray login` runs it and reports back (`login.finished`); the code an agent's sign-in
asks for on its input goes to `login.code` (`POST /sign-in/{name}/code`); an env_var one keeps the typed
value in the OS keyring as `acp-tray agents secret` does, restarts the agent with it and signs in.
The answer is one line for the page's status area; the agent's state arrives through the event stream.
A page closed while the agent signs in stops it (`login.cancel`: cancelled in the agent, or it is restarted)."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api, replies
from acp_tray.desktop.terminal_window import NoTerminalError, open_sign_in
from acp_tray.files import paths
from acp_tray.prefs.names import pasteable
from acp_tray.state.secrets import SecretError, SecretNames
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed
from acp_tray.window.render import Renderer
from acp_tray.window.signin_view import field_name, how_offered, note
from acp_tray.window.views import STATE_WORDS

SIGN_IN_WAIT = 330.0  # s: the daemon gives an agent's own sign-in 300 s (it may wait for the person)
LEFT_POLL = 0.5  # s: how often a sign-in in flight looks whether its page is still there
STOP_WAIT = 30.0  # s: for the daemon to cancel a sign-in its page left
START_WAIT = 60.0  # s: for the agent to start again with its new secret


def _outcome(reply: replies.StateReply | replies.AgentSignIn | replies.WaitReply) -> str:
    """The agent's state after a sign-in, in words (with the reason when it is not connected)."""
    words = STATE_WORDS.get(reply["state"], reply["state"])
    return f"{words} ({reply['detail']})" if reply["detail"] and reply["state"] != "connected" else words


class SignIns:
    def __init__(self, feed: Feed, render: Renderer) -> None:
        self._feed = feed
        self._render = render

    async def sign_in(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = await request.form()
        try:
            method, remote = self._offered(name, str(form.get("method") or ""))
            how = how_offered(remote, method)
            if how == "note":
                raise CallFailedError(note(name, remote, method))
            if how == "secret":
                text = await self._with_secrets(name, method, form)
            else:
                text = f"{name}: {await self._login(name, method['id'], request)}"
        except (SecretError, NoTerminalError) as exc:  # a failed call: the window's one answer says it
            return self._render.toast(request, str(exc), problem=True)
        return self._render.toast(request, text)

    async def code(self, request: Request) -> Response:
        """The code the agent's sign-in page gave the person, for the agent that asked for it on its input."""
        name = request.path_params["name"]
        form = await request.form()
        await ask(api.LOGIN_CODE, api.LoginCodeArgs(name=name, code=str(form.get("code") or "")))
        return self._render.toast(request, f"{name}: sent the code; waiting for it to finish signing in.")

    def _offered(self, name: str, method_id: str) -> tuple[replies.SignInMethodRow, bool]:
        """The method as the agent offers it now, and whether the agent is a remote one."""
        row = next((r for r in self._feed.state.get("agents", []) if r["name"] == name), None)
        if row is None:
            raise CallFailedError(f"There is no agent {name!r} any more.")
        method = next((m for m in row["sign_in_methods"] if m["id"] == method_id), None)
        if method is None:
            raise CallFailedError(f"{name} does not offer that sign-in now.")
        return method, row["kind"] == "remote"

    async def _login(self, name: str, method_id: str, page: Request | None = None) -> str:
        """Sign in with the method (the daemon, or a terminal window); how it went, in words. The
        `page` that asked it left while the agent signs in: the sign-in is stopped."""
        login = asyncio.ensure_future(ask(api.LOGIN, api.LoginArgs(name=name, method=method_id), within=SIGN_IN_WAIT))
        while page is not None and not login.done():
            await asyncio.wait((login,), timeout=LEFT_POLL)
            if not login.done() and await page.is_disconnected():
                with contextlib.suppress(CallFailedError):  # the answer below says how it ended
                    await ask(api.LOGIN_CANCEL, api.NameArgs(name=name), within=STOP_WAIT)
                break
        reply = await login
        if reply["kind"] == "agent" and reply["took"]:
            return f"signed in with {reply['method_name']} · {_outcome(reply)}."
        if reply["kind"] == "agent":  # accepted, yet nothing shows it signed in
            raise CallFailedError(f"{name}: {reply['outcome']}.")
        await asyncio.to_thread(open_sign_in, name, method_id)  # `acp-tray login` there says `login.finished`
        return (
            f"a terminal window opened to sign in with {reply['method_name']}; finish there, and this "
            f"page shows when {name} is signed in. No window? Run {pasteable('login', name, method_id)} in a terminal."
        )

    async def _with_secrets(self, name: str, method: replies.SignInMethodRow, form: FormData) -> str:
        """Keep the typed values in the OS keyring, restart the agent with them, then sign in with them."""
        values = {var: str(form.get(field_name(var)) or "") for var in method["vars"]}
        await asyncio.to_thread(_keep, name, values)
        kept = f"{', '.join(values)} kept in the OS keyring"
        try:
            await ask(api.AGENTS_RESTART, api.NameArgs(name=name))
            started = await ask(api.AGENTS_WAIT, api.WaitArgs(name=name, timeout=START_WAIT), within=START_WAIT + 10)
            if started["ready"]:  # its environment was all it needed
                return f"{name}: {kept}; signed in · {_outcome(started)}."
            if started["state"] != "needs sign-in":
                raise CallFailedError(f"it did not start again: {_outcome(started)}")
            signed = await self._login(name, method["id"])
        except CallFailedError as exc:
            raise CallFailedError(f"{name}: {kept}, but {exc}") from None
        return f"{name}: {kept}; {signed}"


def _keep(agent: str, values: dict[str, str]) -> None:
    names = SecretNames(paths.secret_names_file())
    for var, value in values.items():
        names.store(agent, var, value)
