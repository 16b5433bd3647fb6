#!/usr/bin/env node
// Tiny ACP v1 agent for acp-tray interop tests, written against the official
// TypeScript SDK `@agentclientprotocol/sdk`, pinned at exactly 2.4.0 (see
// package.json / package-lock.json; install with `npm ci --prefix tests/interop`).
//
// Run: node tests/interop/notice_agent.mjs   (speaks ACP v1 as ndjson on stdin/stdout)
//
// stdout carries only the protocol; every diagnostic goes to stderr.
//
// SDK 2.4.0 API used (the legacy `AgentSideConnection` was removed in 2.x; see the
// package's MIGRATION_STABLE_UNSTABLE.md):
//   - `agent()` / `AgentApp.onRequest` / `.onNotification` / `.connect`
//                                          dist/v1/acp.js (re-exported by dist/v1/unstable/acp.js)
//   - `ndJsonStream(output, input)`        dist/v1/acp.js -> dist/core/stream.js
//   - `methods.agent.*`, `methods.client.session.update`    dist/v1/acp.js
//   - `PROTOCOL_VERSION` (= 1)             dist/v1/unstable/schema/index.js
//   - `AgentContext.notify(method, params)` dist/v1/acp.js -> dist/core/jsonrpc.js sendNotification
// imported from the "unstable" v1 entrypoint `@agentclientprotocol/sdk/unstable`
// (full v1 schema incl. unstable additions). In 2.4.0 the `notice` session update
// and `clientCapabilities.session.notices` are in BOTH the stable and unstable v1
// schemas; the unstable entrypoint is a superset.

import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const AGENT_INFO = { name: "ts-interop-agent", version: "1.0.0" };
const SESSION_ID = "ts-session-1";

const log = (...args) => console.error("[ts-interop-agent]", ...args);

// Client capabilities from the last `initialize` (as parsed by the SDK's own
// zod schema `zInitializeRequest` before our handler runs: malformed optional
// capability members are dropped to `undefined` by the SDK).
let clientCapabilities;

// NOTE — capability check. SDK 2.4.0 has NO helper that tests whether the client
// advertised `clientCapabilities.session.notices` (no `supportsNotices`, no guard
// in `notify`, no `isNotice` guard for v1; `AgentContext.notify` sends any params
// unchecked). So this is a hand-written FALLBACK check over the SDK-parsed
// capabilities. Per the schema, omitted or `null` means "not advertised" and an
// object (e.g. `{}`) means supported.
function clientSupportsNotices(capabilities) {
  return capabilities?.session?.notices != null;
}

const NOTICES = [
  {
    sessionUpdate: "notice",
    severity: "info",
    title: "TS interop info",
    description: "from the TypeScript SDK",
  },
  {
    sessionUpdate: "notice",
    severity: "warning",
    title: "TS interop warning",
  },
  {
    sessionUpdate: "notice",
    severity: "_interop.custom",
    title: "TS interop extension",
    description: null,
  },
];

async function sendSessionOpeningUpdates(client, sessionId) {
  const update = (u) =>
    client.notify(acp.methods.client.session.update, { sessionId, update: u });
  if (clientSupportsNotices(clientCapabilities)) {
    for (const notice of NOTICES) {
      await update(notice);
    }
    log(`sent ${NOTICES.length} notices on ${sessionId}`);
  } else {
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "notices unsupported: TS interop fallback" },
    });
    log(`client lacks session.notices; sent fallback chunk on ${sessionId}`);
  }
}

const app = acp
  .agent({ name: AGENT_INFO.name })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities;
    log("initialize; clientCapabilities =", JSON.stringify(clientCapabilities));
    return {
      protocolVersion: acp.PROTOCOL_VERSION, // 1
      agentInfo: AGENT_INFO,
      agentCapabilities: { loadSession: false },
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ client }) => {
    // The SDK writes the response after this handler returns (in microtasks);
    // setImmediate runs after that, so the notices follow the response on the wire.
    setImmediate(() => {
      sendSessionOpeningUpdates(client, SESSION_ID).catch((err) =>
        log("failed to send session updates:", err),
      );
    });
    return { sessionId: SESSION_ID };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "pong" },
      },
    });
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {
    // no-op
  });
// Every other method: SDK default (requests -> -32601 Method not found;
// unknown notifications ignored; requests before `initialize` -> -32600).

const stream = acp.ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin),
);
const connection = app.connect(stream);
log("listening on stdio (ACP v1)");
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error:", err),
);
