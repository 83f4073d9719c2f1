// The per-turn path in TS Carnet 0.3.0, timed in one process: a fresh session (TS keeps one
// per agent name per instance: `resetSession`), the system prompt and the tools, load one
// skill (`_updateSessionOnSkillLoad`, what its `loadSkill` tool does), both again. Prints the
// median nanoseconds per turn. Usage: node per-turn.mjs <manifest.json> [turns]
import fs from "node:fs";
import { Carnet } from "@upstart.gg/carnet";

const [, , path, turnsArg] = process.argv;
const turns = Number(turnsArg ?? 2000);
const manifest = JSON.parse(fs.readFileSync(path, "utf8"));
const carnet = new Carnet(manifest);
const skill = manifest.agents.agent.skills[1];
const samples = [];
let sink = 0;
for (let i = 0; i < turns; i++) {
  const start = process.hrtime.bigint();
  carnet.resetSession("agent");
  sink += carnet.getSystemPrompt("agent").length;
  sink += Object.keys(carnet.getTools("agent")).length;
  carnet._updateSessionOnSkillLoad("agent", skill);
  sink += carnet.getSystemPrompt("agent").length;
  sink += Object.keys(carnet.getTools("agent")).length;
  samples.push(process.hrtime.bigint() - start);
}
samples.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
if (sink < 0) console.error(sink);
console.log(String(samples[Math.floor(samples.length / 2)]));
