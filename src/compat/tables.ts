import { TABLE_0_3_TO_1_0, type CompatTable } from "./table.js";

/** The version pairs a2a-codegen can serve together (`generate --spec <primary> --compat <compat>`). */
export const COMPAT_TABLES: readonly CompatTable[] = [TABLE_0_3_TO_1_0];
