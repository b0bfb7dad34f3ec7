// The bindings `wrangler types` cannot see (worker-configuration.d.ts is
// generated from wrangler.toml and .dev.vars.example): the tests' switch for
// src/test-hooks.js, never set in a deployment; and the optional Workers AI
// binding (commented out in wrangler.toml) with its model (src/embed.js).
declare namespace Cloudflare {
  interface Env {
    /** Tests only: "1" enables the fault injection of src/test-hooks.js. */
    MEMDEX_TEST_HOOKS?: string;
    /** Workers AI: `run(model, { text })` resolves to `{ data: number[][] }`, one embedding per text. */
    AI?: { run(model: string, input: { text: string[] }): Promise<{ data?: number[][] }> };
    /** The embedding model (default `@cf/baai/bge-small-en-v1.5`). */
    MEMDEX_AI_MODEL?: string;
  }
}
