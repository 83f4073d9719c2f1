// Interop checks against the published TS runtime, `@upstart.gg/carnet@0.3.0`.
//
//   node check.mjs load-ours MANIFEST.json EXPECT.json   our `carnet build` output loads in `new Carnet(json)`
//   node check.mjs compare TS.json OURS_LIST.json         a TS-built manifest read back by `carnet list --manifest`
import assert from "node:assert/strict";
import fs from "node:fs";
import { Carnet } from "@upstart.gg/carnet";

const [, , mode, ...args] = process.argv;
const read = (p) => JSON.parse(fs.readFileSync(p, "utf8"));

if (mode === "load-ours") {
  const [manifestPath, expectPath] = args;
  const manifest = read(manifestPath);
  const expect = read(expectPath);
  const carnet = new Carnet(manifest, { variables: expect.variables ?? {} });
  assert.deepEqual(Object.keys(carnet.agents).sort(), expect.agents.sort(), "agents");
  for (const [agent, skills] of Object.entries(expect.availableSkills)) {
    assert.deepEqual(carnet.listAvailableSkills(agent).map((s) => s.name), skills, `skills of ${agent}`);
    const prompt = carnet.getSystemPrompt(agent);
    for (const needle of expect.promptContains[agent] ?? []) {
      assert.ok(prompt.includes(needle), `prompt of ${agent} contains ${JSON.stringify(needle)}:\n${prompt}`);
    }
  }
  for (const [toolset, tools] of Object.entries(expect.toolsets ?? {})) {
    assert.deepEqual(carnet.listToolsetTools(toolset).map((t) => [t.name, t.description]), tools, `tools of ${toolset}`);
  }
  for (const { skill, path, content } of expect.files ?? []) {
    assert.equal(carnet.loadSkillFile(skill, path), content, `file ${skill}/${path}`);
  }
  for (const { skill, path, bytes } of expect.binaryFiles ?? []) {
    // Binary files travel base64-encoded; `encoding` (ignored by TS Carnet) says so.
    const entry = manifest.skills[skill].files.find((f) => f.path === path);
    assert.equal(entry.encoding, "base64");
    assert.deepEqual([...Buffer.from(carnet.loadSkillFile(skill, path), "base64")], bytes, `bytes of ${skill}/${path}`);
  }
  for (const { agent, load, exposed } of expect.loads ?? []) {
    carnet._updateSessionOnSkillLoad(agent, load);
    assert.deepEqual([...carnet.getAvailableTools(agent)].sort(), exposed.sort(), `tools after loading ${load}`);
  }
  console.log(`ok: TS Carnet 0.3.0 loads ${manifestPath}`);
} else if (mode === "compare") {
  // The TS manifest and what our CLI read from it must describe the same content.
  const [tsPath, oursPath] = args;
  const ts = read(tsPath);
  const ours = read(oursPath);
  const tsAgents = Object.values(ts.agents);
  assert.equal(ours.length, tsAgents.length, "agent count");
  for (const agent of tsAgents) {
    const mine = ours.find((a) => a.name === agent.name);
    assert.ok(mine, `agent ${agent.name} read back`);
    assert.equal(mine.description, agent.description);
    const groups = [["initialSkills", agent.initialSkills], ["skills", agent.skills.filter((s) => !agent.initialSkills.includes(s))]];
    for (const [key, names] of groups) {
      assert.deepEqual((mine[key] ?? []).map((s) => s.name), names, `${agent.name}.${key}`);
      for (const skill of mine[key] ?? []) {
        const tsSkill = ts.skills[skill.name];
        assert.equal(skill.description, tsSkill.description);
        assert.deepEqual(skill.toolsets.map((t) => t.name), tsSkill.toolsets);
        for (const toolset of skill.toolsets) {
          const tsToolset = ts.toolsets[toolset.name];
          assert.deepEqual(toolset.tools.map((t) => t.name), tsToolset.tools, `tools of ${toolset.name}`);
          for (const tool of toolset.tools) {
            assert.equal(tool.description, ts.tools[tool.name].description, `description of ${tool.name}`);
          }
        }
      }
    }
  }
  console.log(`ok: carnet reads the manifest TS Carnet 0.3.0 built (${tsPath})`);
} else {
  console.error("usage: node check.mjs load-ours|compare ...");
  process.exit(2);
}
