// Per turn, the whole request body as bytes in TS Carnet 0.3.0 with the AI SDK (v5), the
// counterpart of `bench/src/bin/request-bytes.rs`. A turn: a fresh session (`resetSession`),
// the system prompt and the tools (`getSystemPrompt`, `getTools` with the application's
// domain tools), the body of the first request, the model's `loadSkill` call run by TS
// Carnet's own tool (a different skill each turn), the body of the second request with the
// call and its result. Tool schemas go through the AI SDK's conversion (`asSchema(...)
// .jsonSchema`: zod 4 to JSON Schema for TS Carnet's meta-tools, `jsonSchema()` for the
// domain tools, which take any object, as carnet's do without code); each body is the object
// the AI SDK's provider packages build for that API, then `JSON.stringify`. The Gemini body
// sends the schema as it is (the AI SDK's Google provider would convert it to OpenAPI: more
// work, not less). MCP: the `tools/list` result only, as on carnet's side.
// Each round makes a new `Carnet` (not timed). Prints one JSON object a line per provider:
// the median nanoseconds per turn of the rounds after the first (`turn_ns`) and of the first
// (`first_ns`), and the bytes of the turn's two bodies.
// Usage: node request-bytes.mjs <manifest.json> <agent> [rounds]
import fs from "node:fs";
import { Carnet } from "@upstart.gg/carnet";
import { asSchema, jsonSchema, tool } from "ai";

const [, , path, agent, roundsArg] = process.argv;
const rounds = Number(roundsArg ?? 3);
const manifest = JSON.parse(fs.readFileSync(path, "utf8"));
const skills = manifest.agents[agent].skills;

// The application's domain tools: every tool the agent can reach (the tools of its skills'
// toolsets), any object as input.
const anyObject = { additionalProperties: true, type: "object" };
const domainTools = {};
const reachable = [...manifest.agents[agent].initialSkills, ...skills];
const toolNames = reachable.flatMap((s) => manifest.skills[s].toolsets).flatMap((t) => manifest.toolsets[t].tools);
for (const name of toolNames) {
  const t = manifest.tools[name];
  domainTools[name] = tool({
    description: t.description,
    inputSchema: jsonSchema(anyObject),
    execute: async () => ({ success: true }),
  });
}

function converted(tools) {
  return Object.entries(tools).map(([name, t]) => ({
    name,
    description: t.description,
    schema: asSchema(t.inputSchema).jsonSchema,
  }));
}

function openaiChat(system, messages, tools) {
  const wire = [{ role: "system", content: system }];
  for (const m of messages) {
    if (m.role === "user") wire.push({ role: "user", content: m.content });
    else if (m.role === "assistant")
      wire.push({
        role: "assistant",
        content: "",
        tool_calls: m.calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      });
    else wire.push({ role: "tool", tool_call_id: m.id, content: JSON.stringify(m.output) });
  }
  return {
    model: "gpt-4.1",
    messages: wire,
    tools: tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.schema },
    })),
  };
}

function openaiResponses(system, messages, tools) {
  const input = [];
  for (const m of messages) {
    if (m.role === "user") input.push({ role: "user", content: m.content });
    else if (m.role === "assistant")
      for (const c of m.calls)
        input.push({ type: "function_call", call_id: c.id, name: c.name, arguments: JSON.stringify(c.args) });
    else input.push({ type: "function_call_output", call_id: m.id, output: JSON.stringify(m.output) });
  }
  return {
    model: "gpt-4.1",
    instructions: system,
    input,
    tools: tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.schema,
      strict: false,
    })),
  };
}

function anthropic(system, messages, tools) {
  const wire = [];
  for (const m of messages) {
    if (m.role === "user") wire.push({ role: "user", content: m.content });
    else if (m.role === "assistant")
      wire.push({
        role: "assistant",
        content: m.calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
      });
    else
      wire.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: m.id, content: JSON.stringify(m.output), is_error: false }],
      });
  }
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 4096,
    system,
    messages: wire,
    tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
  };
}

function gemini(system, messages, tools) {
  const contents = [];
  for (const m of messages) {
    if (m.role === "user") contents.push({ role: "user", parts: [{ text: m.content }] });
    else if (m.role === "assistant")
      contents.push({ role: "model", parts: m.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) });
    else
      contents.push({
        role: "user",
        parts: [{ functionResponse: { name: m.name, response: { content: JSON.stringify(m.output) } } }],
      });
  }
  return {
    systemInstruction: { parts: [{ text: system }] },
    contents,
    tools: [
      { functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.schema })) },
    ],
  };
}

function mcp(tools) {
  return { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.schema })) };
}

const renderers = { "openai-chat": openaiChat, "openai-responses": openaiResponses, anthropic, gemini };

function body(provider, carnet, messages) {
  const tools = converted(carnet.getTools(agent, { tools: domainTools }));
  if (provider === "mcp") return JSON.stringify(mcp(tools));
  const system = carnet.getSystemPrompt(agent, { tools: domainTools });
  return JSON.stringify(renderers[provider](system, messages, tools));
}

async function turn(provider, carnet, skill) {
  carnet.resetSession(agent);
  const messages = [{ role: "user", content: "Help me with the task at hand." }];
  const first = body(provider, carnet, messages);
  const args = { skillName: skill };
  const tools = carnet.getTools(agent, { tools: domainTools });
  const output = await tools.loadSkill.execute(args, { toolCallId: "call_1", messages: [] });
  if (!output.success) throw new Error(`${skill} does not load`);
  messages.push({ role: "assistant", calls: [{ id: "call_1", name: "loadSkill", args }] });
  messages.push({ role: "tool", id: "call_1", name: "loadSkill", output });
  const second = body(provider, carnet, messages);
  return Buffer.byteLength(first) + Buffer.byteLength(second);
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor(sorted.length / 2)];
};

for (const provider of ["openai-chat", "openai-responses", "anthropic", "gemini", "mcp"]) {
  const first = [];
  const times = [];
  const sizes = [];
  for (let r = 0; r < rounds; r++) {
    const carnet = new Carnet(manifest);
    for (const skill of skills) {
      const start = process.hrtime.bigint();
      const bytes = await turn(provider, carnet, skill);
      (r === 0 ? first : times).push(process.hrtime.bigint() - start);
      sizes.push(bytes);
    }
  }
  // The first round apart (the process meets every tool for the first time, the JIT warms);
  // `turn_ns` is the rounds after it (the first when there is only one).
  console.log(JSON.stringify({
    provider,
    turn_ns: Number(median(times.length > 0 ? times : first)),
    first_ns: Number(median(first)),
    bytes: median(sizes),
  }));
}
