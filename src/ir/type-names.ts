/**
 * The TypeScript name json-schema-to-typescript gives a definition key, by its rule (its `toSafeString`,
 * which its package does not export): letters made plain, characters no identifier may hold turned into
 * word breaks, snake_case and words after a break or a digit capitalized, leading digits dropped, the first
 * letter upper-cased. a2a-codegen refuses a key this changes (the type would not be named after its
 * definition) and reports two keys that give one name as a collision; test/ir/type-names.test.ts checks
 * the rule against the library's output.
 */
export function typeNameOf(key: string): string {
  const plain = key.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const name = plain
    .replace(/(^\s*[^a-zA-Z_$])|([^a-zA-Z_$\d])/g, " ")
    .replace(/^_[a-z]/g, (m) => m.toUpperCase())
    .replace(/_[a-z]/g, (m) => m.slice(1).toUpperCase())
    .replace(/([\d$]+[a-zA-Z])/g, (m) => m.toUpperCase())
    .replace(/\s+([a-zA-Z])/g, (m) => m.trim().toUpperCase())
    .replace(/\s/g, "")
    .replace(/^\d+/, "");
  return name.charAt(0).toUpperCase() + name.slice(1);
}
