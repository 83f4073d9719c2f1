#!/usr/bin/env python3
"""Agent Skills parity: the reference validator `skills-ref` (PyPI, `agentskills validate`)
against `carnet check`, on the vendored corpus and on generated valid and invalid skills.

carnet's verdict on a skill "flags" it when it reports an error, or one of the warnings that
carry the Agent Skills rules (carnet accepts those skills on purpose, DESIGN §2, and says
so):

  W0003 skill-name-style, W0004 long-description, W0005 name-folder-mismatch,
  W0007 unclosed-frontmatter, W0015 long-compatibility

The two tools must agree on every case, or the case must be listed in DELIBERATE with the
reason (README, "Agent Skills parity"). Prints one line per case, then `N passed, N failed`;
exits 1 on any disagreement that is not deliberate, or a deliberate one that went away.

Usage: parity.py AGENTSKILLS CARNET CORPUS_DIR
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGGING_WARNINGS = {"W0003", "W0004", "W0005", "W0007", "W0015"}

# Case name -> why carnet and skills-ref differ, on purpose.
DELIBERATE = {
    "unicode-name": "the spec text allows `a-z`, digits and hyphens; skills-ref accepts any "
    "Unicode letter (`isalnum`). carnet warns (W0003) and loads the skill",
    "unknown-field": "DESIGN §2 keeps unknown frontmatter keys under `extra` without a "
    "diagnostic (carnet's own keys `toolsets` and `files` are such keys to other tools); "
    "skills-ref allows only the spec's six fields",
    "carnet-toolsets-field": "`toolsets` and `files` are carnet's extensions of a skill",
    "name-is-a-number": "carnet is strict about types (DESIGN §2: `name: 123` is an error, "
    "E0004); skills-ref reads every scalar as a string with strictyaml",
    "lowercase-skill-md": "carnet discovers `SKILL.md` only, case-sensitive like TS Carnet's "
    "globs; skills-ref also accepts `skill.md`. carnet does not load the skill",
}


def skill(name="pdf-tools", description="Extracts text from PDF files.", extra="", body="Use it.\n"):
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + body


# Case name -> (folder name, file name, text).
CASES = {
    "valid": ("pdf-tools", "SKILL.md", skill()),
    "valid-all-fields": (
        "pdf-tools",
        "SKILL.md",
        skill(extra="license: Apache-2.0\ncompatibility: Needs Python 3\nallowed-tools: Bash Read\n"
              "metadata:\n  author: someone\n  version: '1.0'"),
    ),
    "valid-64-char-name": ("a" * 64, "SKILL.md", skill(name="a" * 64)),
    "valid-1024-char-description": ("pdf-tools", "SKILL.md", skill(description="d" * 1024)),
    "valid-digits-in-name": ("pdf2-tools", "SKILL.md", skill(name="pdf2-tools")),
    "uppercase-name": ("PDF-Tools", "SKILL.md", skill(name="PDF-Tools")),
    "underscore-in-name": ("pdf_tools", "SKILL.md", skill(name="pdf_tools")),
    "leading-hyphen": ("-pdf", "SKILL.md", skill(name="-pdf")),
    "trailing-hyphen": ("pdf-", "SKILL.md", skill(name="pdf-")),
    "consecutive-hyphens": ("pdf--tools", "SKILL.md", skill(name="pdf--tools")),
    "65-char-name": ("a" * 65, "SKILL.md", skill(name="a" * 65)),
    "name-differs-from-folder": ("pdf", "SKILL.md", skill(name="pdf-tools")),
    "missing-name": ("pdf-tools", "SKILL.md", skill(name=None)),
    "empty-name": ("pdf-tools", "SKILL.md", skill(name="''")),
    "missing-description": ("pdf-tools", "SKILL.md", skill(description=None)),
    "empty-description": ("pdf-tools", "SKILL.md", skill(description="''")),
    "1025-char-description": ("pdf-tools", "SKILL.md", skill(description="d" * 1025)),
    "no-frontmatter": ("pdf-tools", "SKILL.md", "# PDF tools\n"),
    "unclosed-frontmatter": ("pdf-tools", "SKILL.md", "---\nname: pdf-tools\ndescription: d\n"),
    "frontmatter-is-a-list": ("pdf-tools", "SKILL.md", "---\n- a\n- b\n---\n"),
    "invalid-yaml": ("pdf-tools", "SKILL.md", "---\nname: pdf-tools\ndescription: [unclosed\n---\n"),
    "unicode-name": ("données", "SKILL.md", skill(name="données")),
    "unknown-field": ("pdf-tools", "SKILL.md", skill(extra="author: someone")),
    "carnet-toolsets-field": ("pdf-tools", "SKILL.md", skill(extra="toolsets: []")),
    "name-is-a-number": ("123", "SKILL.md", skill(name="123")),
    "lowercase-skill-md": ("pdf-tools", "skill.md", skill()),
    "long-compatibility": ("pdf-tools", "SKILL.md", skill(extra="compatibility: " + "c" * 501)),
}


def skills_ref_flags(agentskills, folder):
    run = subprocess.run([agentskills, "validate", str(folder)], capture_output=True, text=True, timeout=60)
    return run.returncode != 0, (run.stdout + run.stderr).strip().replace("\n", " ")


def carnet_flags(carnet, carnet_dir, skill_folder=None):
    """Whether carnet flags the skill in `skill_folder` (relative to the carnet directory,
    or every diagnostic when None), and the codes it reported."""
    run = subprocess.run(
        [carnet, "check", "--format", "json", "--dir", str(carnet_dir)],
        capture_output=True, text=True, timeout=60,
    )
    if run.returncode not in (0, 1):
        raise SystemExit(f"carnet check failed: {run.returncode}\n{run.stderr}")
    codes = []
    for d in json.loads(run.stdout)["diagnostics"]:
        location = (d.get("location") or {}).get("file", "")
        if skill_folder is not None and f"/{skill_folder}/" not in location:
            continue
        if d["severity"] == "error" or d["code"] in FLAGGING_WARNINGS:
            codes.append(d["code"])
    return bool(codes), codes


def main():
    agentskills, carnet, corpus = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    passed, failed, rows = 0, 0, []

    def record(case, ref, ours, ref_says, our_codes):
        nonlocal passed, failed
        agree = ref == ours
        deliberate = DELIBERATE.get(case)
        if agree and deliberate is None:
            status = "agree"
            passed += 1
        elif not agree and deliberate is not None:
            status = "differ (deliberate)"
            passed += 1
        elif agree:
            status = "agree, but listed as a deliberate difference: update DELIBERATE"
            failed += 1
        else:
            status = "DIFFER"
            failed += 1
        verdict = lambda flagged: "rejects" if flagged else "accepts"
        rows.append(f"{status:22} {case}: skills-ref {verdict(ref)}, carnet {verdict(ours)} {our_codes}"
                    + (f"  [{ref_says[:120]}]" if ref else "")
                    + (f"\n{'':23}why: {deliberate}" if deliberate and not agree else ""))

    with tempfile.TemporaryDirectory() as tmp:
        for case, (folder, file_name, text) in CASES.items():
            root = Path(tmp) / case / "carnet"
            skill_dir = root / "skills" / folder
            skill_dir.mkdir(parents=True)
            (skill_dir / file_name).write_text(text, encoding="utf-8")
            ref, ref_says = skills_ref_flags(agentskills, skill_dir)
            if file_name != "SKILL.md":
                # carnet does not discover it: it neither loads nor flags the skill.
                ours, codes = True, ["not discovered"]
            else:
                ours, codes = carnet_flags(carnet, root)
            record(case, ref, ours, ref_says, codes)

        # The vendored corpus, unchanged: one carnet directory holding every skill.
        root = Path(tmp) / "corpus" / "carnet"
        shutil.copytree(corpus, root / "skills")
        for folder in sorted(p for p in (root / "skills").iterdir() if (p / "SKILL.md").is_file()):
            ref, ref_says = skills_ref_flags(agentskills, folder)
            ours, codes = carnet_flags(carnet, root, folder.name)
            record(f"corpus/{folder.name}", ref, ours, ref_says, codes)

    print("\n".join(rows))
    print(f"parity: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
