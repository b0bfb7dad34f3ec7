// The optional Workers AI binding (commented out in wrangler.toml, so
// `wrangler types` does not declare it) and the model setting; see
// src/embed.js.
declare namespace Cloudflare {
  interface Env {
    /** Workers AI: `run(model, { text })` resolves to `{ data: number[][] }`, one embedding per text. */
    AI?: { run(model: string, input: { text: string[] }): Promise<{ data?: number[][] }> };
    /** The embedding model (default `@cf/baai/bge-small-en-v1.5`). */
    MEMDEX_AI_MODEL?: string;
  }
}
