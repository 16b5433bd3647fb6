#!/usr/bin/env node
// An ACP agent that asks the person questions (elicitation), for acp-tray interop tests,
// written against the official TypeScript SDK `@agentclientprotocol/sdk` 2.4.0 (pinned in
// package.json / package-lock.json; install with `npm ci --prefix tests/interop`).
//
// Run: node tests/interop/question_agent.mjs --version=1   (ACP 1: the SDK's stable entry point)
//      node tests/interop/question_agent.mjs --version=2   (ACP 2: `@agentclientprotocol/sdk/experimental/v2`)
//
// stdout carries only the protocol; every diagnostic goes to stderr (and, when
// QUESTION_AGENT_LOG names a file, one JSON line per event there too: the client's
// `initialize` capabilities, each question asked and the answer exactly as it came back).
//
// SDK API used (the same names in both versions): `agent()` / `AgentApp.onRequest` /
// `.onNotification` / `.connect`, `ndJsonStream`, `methods.agent.*`,
// `methods.client.session.update`, `methods.client.elicitation.create|complete`, `PROTOCOL_VERSION`.
//
// A prompt's first word says what the turn does:
//   form      a form with every field type: a oneOf string (colour), free text with bounds
//             (name), an integer with bounds and a default (size), a number with bounds (ratio),
//             a boolean (rounded) and a multi-select (tags); colour and name required
//   pick      a form of one oneOf string: "Which colour should the button be?" (red / blue)
//   url       a url question (https://auth.example.com/device?code=…, elicitationId "e-1"); when
//             the file QUESTION_AGENT_LOG + ".complete" exists (looked for every 0.1 s), it sends
//             elicitation/complete for it
// The turn then says the answer ("answer: ACTION CONTENT_JSON") and ends (v1: end_turn; v2: the
// state_update idle with end_turn).

import { appendFileSync, existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const flag = process.argv.find((arg) => arg.startsWith("--version="));
const VERSION = Number(flag ? flag.slice("--version=".length) : "2");
const acp = VERSION === 1 ? v1 : v2;
const LOG = process.env.QUESTION_AGENT_LOG;

const log = (event, details = {}) => {
  console.error("[question-agent]", event, JSON.stringify(details));
  if (LOG) appendFileSync(LOG, JSON.stringify({ event, version: VERSION, ...details }) + "\n");
};

const FORM = {
  type: "object",
  properties: {
    colour: {
      type: "string",
      title: "Colour",
      description: "The button's colour",
      oneOf: [
        { const: "red", title: "Red" },
        { const: "blue", title: "Blue" },
      ],
    },
    name: { type: "string", title: "Name", description: "What the button says", minLength: 2, maxLength: 20 },
    size: { type: "integer", title: "Size", minimum: 1, maximum: 10, default: 3 },
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1 },
    rounded: { type: "boolean", title: "Rounded corners", default: false },
    tags: { type: "array", title: "Tags", items: { type: "string", enum: ["primary", "wide", "quiet"] }, maxItems: 2 },
  },
  required: ["colour", "name"],
};
const PICK = {
  type: "object",
  properties: {
    colour: {
      type: "string",
      title: "Colour",
      oneOf: [
        { const: "red", title: "Red" },
        { const: "blue", title: "Blue" },
      ],
    },
  },
  required: ["colour"],
};
const URL = "https://auth.example.com/device?code=SECRET-DEVICE-CODE";

const sessions = new Set();

function completeWhenAsked(client) {
  const timer = setInterval(() => {
    if (LOG && existsSync(LOG + ".complete")) {
      clearInterval(timer);
      client
        .notify(acp.methods.client.elicitation.complete, { elicitationId: "e-1" })
        .then(() => log("sent complete", { elicitationId: "e-1" }))
        .catch((err) => log("complete failed", { err: String(err) }));
    }
  }, 100);
}

async function ask(client, sessionId, what) {
  let params;
  if (what === "form" || what === "pick") {
    const message = what === "form" ? "How should the button look?" : "Which colour should the button be?";
    params = { sessionId, mode: "form", message, requestedSchema: what === "form" ? FORM : PICK };
  } else {
    params = { sessionId, mode: "url", message: "Sign in to the example MCP server", url: URL, elicitationId: "e-1" };
    completeWhenAsked(client);
  }
  log("asked", { what, params });
  const answer = await client.request(acp.methods.client.elicitation.create, params);
  log("answered", { what, answer });
  return `answer: ${answer.action}${answer.content ? " " + JSON.stringify(answer.content) : ""}\n`;
}

const say = (client, sessionId, text) =>
  client.notify(acp.methods.client.session.update, {
    sessionId,
    update:
      VERSION === 1
        ? { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }
        : { sessionUpdate: "agent_message_chunk", messageId: randomUUID(), content: { type: "text", text } },
  });

function textOf(prompt) {
  return prompt
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(" ")
    .trim();
}

let app = acp
  .agent({ name: "ts-question-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log("initialize", {
      protocolVersion: params.protocolVersion,
      capabilities: VERSION === 1 ? params.clientCapabilities : params.capabilities,
    });
    const info = { name: "ts-question-agent", version: "1.0.0" };
    return VERSION === 1
      ? { protocolVersion: 1, agentInfo: info, agentCapabilities: { loadSession: false } }
      : { protocolVersion: 2, info, capabilities: { session: {} } };
  })
  .onRequest(acp.methods.agent.session.new, () => {
    const sessionId = `question-${randomUUID()}`;
    sessions.add(sessionId);
    return { sessionId };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

if (VERSION === 1) {
  app = app.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = await ask(client, params.sessionId, textOf(params.prompt).split(" ")[0]);
    await say(client, params.sessionId, text);
    return { stopReason: "end_turn" };
  });
} else {
  app = app
    .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
      const messageId = randomUUID();
      const { sessionId } = params;
      const state = (s) => client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: "state_update", ...s } });
      setImmediate(async () => {
        try {
          await state({ state: "running" });
          await state({ state: "requires_action" });
          const text = await ask(client, sessionId, textOf(params.prompt).split(" ")[0]);
          await state({ state: "running" });
          await say(client, sessionId, text);
          await state({ state: "idle", stopReason: "end_turn" });
        } catch (err) {
          log("turn failed", { err: String(err) });
          await state({ state: "idle", stopReason: "end_turn" });
        }
      });
      return { messageId };
    })
    .onRequest(acp.methods.agent.session.resume, ({ params }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.close, ({ params }) => {
      sessions.delete(params.sessionId);
      return {};
    });
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = app.connect(stream);
log("listening", { version: VERSION });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
