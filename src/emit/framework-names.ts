/**
 * The web frameworks a server adapter is generated for: a leaf module (no imports), so that the CLI's
 * unchanged-input path and the config reader can check a framework name without loading the emitters.
 */
export const FRAMEWORKS = ["node", "express", "fastify", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];
