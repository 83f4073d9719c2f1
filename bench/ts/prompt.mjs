// Writes TS Carnet 0.3.0's system prompt for `agent`, at turn 0 and after loading the given
// skills, to files. Usage: node prompt.mjs <manifest.json> <out-prefix> [skill...]
import fs from "node:fs";
import { Carnet } from "@upstart.gg/carnet";

const [, , path, prefix, ...skills] = process.argv;
const carnet = new Carnet(JSON.parse(fs.readFileSync(path, "utf8")));
fs.writeFileSync(`${prefix}.turn0.txt`, carnet.getSystemPrompt("agent"));
for (const skill of skills) carnet._updateSessionOnSkillLoad("agent", skill);
fs.writeFileSync(`${prefix}.loaded.txt`, carnet.getSystemPrompt("agent"));
