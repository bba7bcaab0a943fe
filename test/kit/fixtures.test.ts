// Fixtures of the test kit (issue 32): every type of every bundled version gets an example its generated
// validator accepts, the same on every run, and the mock agent's default card is a valid AgentCard.
import { describe, expect, it } from "vitest";
import { bundledVersions } from "../../src/schema/load.js";
import { loadProtocol } from "../../src/load/protocol.js";
import { fixtureValues } from "../../src/emit/testing/fixture-values.js";
import { mockCard } from "../../src/emit/testing/test-kit.js";
import { generatedValidators, ROOT } from "../support/project.js";

describe.each(bundledVersions())("fixtures of %s", (version) => {
  const { ir } = loadProtocol({ spec: version, cwd: ROOT }, (_phase, work) => work());
  const examples = fixtureValues(ir);

  it("gives every type a value its generated validator accepts", async () => {
    const validators = await generatedValidators(version);
    const rejected: string[] = [];
    for (const type of ir.types) {
      const validate = validators[type.name];
      expect(validate, `validator of ${type.name}`).toBeTypeOf("function");
      if (!validate?.(examples[type.name])) rejected.push(`${type.name}: ${JSON.stringify(validate?.errors?.slice(0, 2))}`);
    }
    expect(rejected).toEqual([]);
    expect(Object.keys(examples)).toEqual(ir.types.map((t) => t.name));
  });

  it("is deterministic for a seed and differs across seeds", () => {
    expect(fixtureValues(ir)).toEqual(examples);
    expect(JSON.stringify(fixtureValues(ir, 7))).not.toEqual(JSON.stringify(examples));
  });

  it("makes a valid default card for the mock agent", async () => {
    const validators = await generatedValidators(version);
    for (const rest of [false, true]) expect(validators[ir.core.agentCard]?.(mockCard(ir, examples, rest)), JSON.stringify(validators[ir.core.agentCard]?.errors)).toBe(true);
  });
});
