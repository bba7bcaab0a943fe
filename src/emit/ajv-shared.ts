/**
 * One copy of the code that several compiled validators share. Ajv writes one function per definition,
 * and definitions of the same shape get the same code: the JSON-RPC response envelope of every method
 * (`{jsonrpc, id, result}` or `{jsonrpc, id, error}`, dispatched on which of the two is present) differs
 * from method to method only in the validator it calls for `result`; the same for the success responses
 * and for a few parameter objects. Such a group is written once, as a function that takes the validators
 * it calls as parameters, and each member becomes a one-line function that passes its own:
 *
 *     function validate170(data, options){return sharedValidator0(validate170, validate157, validate140, data, options);}
 *
 * Each member keeps its name, its export and its `errors` (set on the member, `self` in the shared code),
 * and does the same checks in the same order with the same error objects: only the code is not repeated
 * (about 4.7 KB per JSON-RPC response type). Definitions that differ only in a `const` (the JSON-RPC request
 * of each method, `method: "GetTask"`; the error of each code, `code: -32001`) share their code the same way,
 * the constant passed like a validator (`sharedValidator3(validate51, validate50, "GetTask", data, options)`);
 * a constant every member of a group has alike stays in the shared code.
 * The functions are matched on Ajv's exact spelling of a
 * standalone validator (`function validateN(data, {instancePath=""}={}){… validateN.errors = vErrors;return
 * errors === 0;}`); any other function is left as it is.
 */

const FUNCTION = /function (validate\d+)\(data, \{instancePath=""\}=\{\}\)\{(.*?)\1\.errors = vErrors;return errors === 0;\}/g;
/** The module-level names a compiled function refers to (other validators, schema constants, patterns). */
const MODULE_NAME = /\b(?:validate|schema|pattern)\d+\b/g;
/** A `const` keyword's value where Ajv's code compares it and reports it (a string or a number literal). */
const CONST_VALUE = /(?<=\bif\()("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?= !== data(?:\d+|\.\w+|\["[^"]*"\])*\))|(?<=\{allowedValue: )("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?=\})/g;

interface Member {
  name: string;
  /** The module-level names it refers to, in order of first use (the shared code's `ref0`, `ref1`, …). */
  refs: string[];
}

export function shareDuplicateFunctions(code: string): string {
  // The body with its own name as `self` and the names it refers to as `ref0`, `ref1`, …: equal for a group.
  const groups = new Map<string, Member[]>();
  for (const match of code.matchAll(FUNCTION)) {
    const [, name, body] = match as unknown as [string, string, string];
    // Names the shared code would take for its own: such a body is left alone.
    if (/\b(?:self|ref\d+)\b/.test(body)) continue;
    const refs: string[] = [];
    const ref = (id: string): string => {
      let i = refs.indexOf(id);
      if (i < 0) i = refs.push(id) - 1;
      return `ref${i}`;
    };
    const shape = body.replace(MODULE_NAME, (id) => (id === name ? "self" : ref(id))).replace(CONST_VALUE, (literal) => ref(literal));
    const group = groups.get(shape);
    if (group === undefined) groups.set(shape, [{ name, refs }]);
    else group.push({ name, refs });
  }
  const replacements = new Map<string, string>();
  let index = 0;
  for (const [abstract, all] of groups) {
    if (all.length < 2) continue;
    const { shape, members } = inlineCommonConstants(abstract, all);
    const shared = `sharedValidator${index++}`;
    const call = (m: Member) => `function ${m.name}(data, options){return ${shared}(${[m.name, ...m.refs, "data", "options"].join(", ")});}`;
    const [first, ...rest] = members as [Member, ...Member[]];
    const params = ["self", ...first.refs.map((_, i) => `ref${i}`), 'data, {instancePath=""}={}'].join(", ");
    const doc = `/** The checks of ${members.map((m) => m.name).join(", ")}${first.refs.length > 0 ? ", each with the validators and constants it uses as ref0, ref1, ..." : ""}. */`;
    replacements.set(first.name, `\n${doc}\nfunction ${shared}(${params}){${shape}self.errors = vErrors;return errors === 0;}\n${call(first)}`);
    for (const member of rest) replacements.set(member.name, call(member));
  }
  if (replacements.size === 0) return code;
  return code.replace(FUNCTION, (whole, name: string) => replacements.get(name) ?? whole);
}

/**
 * A group's shared code with the constants its members have alike written in it again (only validators and
 * the constants that differ stay parameters), the parameters renumbered in order.
 */
function inlineCommonConstants(shape: string, members: Member[]): { shape: string; members: Member[] } {
  const first = members[0] as Member;
  const keep = first.refs.map((id, i) => !/^["\d-]/.test(id) || members.some((m) => m.refs[i] !== id));
  const renumber = new Map<number, number>();
  keep.forEach((k, i) => {
    if (k) renumber.set(i, renumber.size);
  });
  const written = shape.replace(/\bref(\d+)\b/g, (_m, n: string) => {
    const i = Number(n);
    const to = renumber.get(i);
    return to === undefined ? (first.refs[i] as string) : `ref${to}`;
  });
  return { shape: written, members: members.map((m) => ({ name: m.name, refs: m.refs.filter((_, i) => keep[i]) })) };
}
