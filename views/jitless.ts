/**
 * Imported first by every view (views/common.ts), before zod loads: zod decides whether to compile each object
 * schema with `new Function` when the schema is made, and the ext-apps SDK makes its schemas as it loads, before
 * its App sets `jitless` itself. The probe it runs (`new Function('')`, caught) is a violation a host's CSP
 * without 'unsafe-eval' reports. zod reads this global config (zod/v4/core, `__zod_globalConfig`).
 */
const scope = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
scope.__zod_globalConfig = { ...scope.__zod_globalConfig, jitless: true };
