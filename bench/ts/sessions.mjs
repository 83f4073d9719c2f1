// Peak memory of holding N concurrent conversations in TS Carnet 0.3.0. Sessions live on the
// instance, one per agent name, so N conversations need N instances. Prints the heap and RSS
// growth in bytes. Usage: node --expose-gc sessions.mjs <manifest.json> <n>
import fs from "node:fs";
import { Carnet } from "@upstart.gg/carnet";

const [, , path, nArg] = process.argv;
const n = Number(nArg);
const manifest = JSON.parse(fs.readFileSync(path, "utf8"));
const skill = manifest.agents.agent.skills[1];
globalThis.gc?.();
const before = process.memoryUsage();
const held = [];
for (let i = 0; i < n; i++) {
  const carnet = new Carnet(manifest);
  carnet._updateSessionOnSkillLoad("agent", skill);
  held.push(carnet);
}
globalThis.gc?.();
const after = process.memoryUsage();
console.log(JSON.stringify({ sessions: held.length, heapBytes: after.heapUsed - before.heapUsed, rssBytes: after.rss - before.rss }));
